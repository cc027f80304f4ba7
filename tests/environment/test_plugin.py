"""A plugin-shaped project: a package that subclasses an installed framework three levels
deep, with the DeepSeek-shaped swallowed flag, found and reported in the plugin only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from initlint.driver import analyze
from initlint.settings import Settings

from .envkit import make_venv, tree_hash, write_tree

# The framework, laid out like an installed wheel: a package below a package, re-exported.
FRAMEWORK = {
    "fw/__init__.py": "",
    "fw/layers/__init__.py": "",
    "fw/layers/rotary/__init__.py": """\
        from fw.layers.rotary.base import RotaryBase
        from fw.layers.rotary.yarn import YarnScaling
        """,
    "fw/layers/rotary/base.py": """\
        import torch
        import torch.nn as nn


        class RotaryBase(nn.Module):
            def __init__(self, head_size, rotary_dim, max_pos, base, *, init_cache=True):
                super().__init__()
                self.rotary_dim = rotary_dim
                self.max_pos = max_pos
                self.base = base
                if init_cache:
                    cache = self._compute_cos_sin_cache()
                    self.register_buffer("cos_sin_cache", cache, persistent=False)

            def _compute_inv_freq(self, base):
                exponent = torch.arange(0, self.rotary_dim, 2).float() / self.rotary_dim
                return 1.0 / (base**exponent)

            def _compute_cos_sin_cache(self):
                t = torch.arange(self.max_pos).float()
                freqs = torch.outer(t, self._compute_inv_freq(self.base))
                return torch.cat((freqs.cos(), freqs.sin()), dim=-1)
        """,
    "fw/layers/rotary/yarn.py": """\
        from .base import RotaryBase


        class YarnScaling(RotaryBase):
            def __init__(self, head_size, rotary_dim, max_pos, base, scaling_factor, **extra):
                self.scaling_factor = scaling_factor
                super().__init__(head_size, rotary_dim, max_pos, base)
        """,
    # The framework's own copy of the bug: it is the framework's, never reported.
    "fw/layers/rotary/v4.py": """\
        from .yarn import YarnScaling


        class FrameworkV4(YarnScaling):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                cache = self._compute_cos_sin_cache()
                self.register_buffer("cos_sin_cache", cache, persistent=False)
        """,
    "fw-0.33.0.dist-info/METADATA": "Name: fw\nVersion: 0.33.0\n",
}

PLUGIN = {
    "pyproject.toml": '[project]\nname = "fw-plugin"\n',
    "fw_plugin/__init__.py": "",
    "fw_plugin/ops/__init__.py": "",
    "fw_plugin/ops/rotary.py": """\
        from fw.layers.rotary import YarnScaling


        class PluginYarn(YarnScaling):
            def forward_oot(self, x):
                return x


        class PluginV4(PluginYarn):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                cache = self._compute_cos_sin_cache()
                self.register_buffer("cos_sin_cache", cache, persistent=False)
        """,
    "fw_plugin/ops/clean.py": """\
        from fw.layers.rotary.base import RotaryBase


        class PluginDone(RotaryBase):
            def __init__(self, *args, **kwargs):
                kwargs.pop("init_cache", None)
                super().__init__(*args, **kwargs, init_cache=False)
                cache = self._compute_cos_sin_cache()
                self.register_buffer("cos_sin_cache", cache, persistent=False)
        """,
}


def test_plugin_three_levels_deep(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    site = make_venv(env, FRAMEWORK)
    root = tmp_path / "plugin"
    write_tree(root, PLUGIN)
    before = tree_hash(site)

    def over(s: Settings) -> Settings:
        return replace(s, python=str(env))

    from initlint.fix.propose import fix_planner

    analysis = analyze(
        [root], cwd=root, overrides=over, jobs=1, use_cache=False, fix_planner=fix_planner
    )
    lines = [f"{d.path}:{d.line}: {d.code} {d.class_name}" for d in analysis.diagnostics]
    assert lines == ["fw_plugin/ops/rotary.py:13: IL001 fw_plugin.ops.rotary.PluginV4"]
    diag = analysis.diagnostics[0]
    # PluginV4 -> PluginYarn -> fw's YarnScaling -> fw's RotaryBase: the flag exists but
    # YarnScaling swallows it, and threading it is an edit in fw: no fix, named.
    assert diag.related[0].path.endswith("site-packages/fw/layers/rotary/base.py")
    assert "(fw 0.33.0)" in diag.related[0].message
    assert "flag `init_cache`" in diag.message
    assert diag.message.endswith("[no fix: the work is done in fw 0.33.0]")
    assert tree_hash(site) == before

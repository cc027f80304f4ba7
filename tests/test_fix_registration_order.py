"""IL005's delete fix keeps the registration order, or says it does not: deleting a build
that a later store replaces registers the value where that store runs. With other modules
registered in between, ``parameters()`` comes out in another order (optimizer state saved by
position would pair with the wrong tensors), so that fix is unsafe and says why."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check
from initlint.diagnostics import Fix

SOURCE = """
from torch import nn


class Adjacent(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.score = nn.Linear(d, d)
        self.score = nn.Linear(d, 2 * d)
        self.proj = nn.Linear(d, d)


class Interleaved(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.score = nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.gate = nn.Linear(d, d)
        self.score = nn.Linear(d, 2 * d)
"""


def _fixes(root: Path, source: str) -> dict[str, Fix | None]:
    """Each class's fix, checking a project of one module holding ``source``."""
    (root / "pyproject.toml").write_text('[project]\nname = "order"\n')
    (root / "layers.py").write_text(source)
    report = check([root], cwd=root, use_cache=False)
    return {d.class_name.rsplit(".", 1)[-1]: d.fix for d in report.diagnostics}


def test_a_delete_that_moves_a_module_past_others_is_unsafe(tmp_path: Path) -> None:
    fixes = _fixes(tmp_path, SOURCE)
    adjacent, interleaved = fixes["Adjacent"], fixes["Interleaved"]
    assert adjacent is not None and adjacent.applicability == "safe"
    assert interleaved is not None and interleaved.applicability == "unsafe"
    assert "`self.proj`, `self.gate` in the registration order" in interleaved.message


FLAGGED = """
from torch import nn


class Block(nn.Module):
    def __init__(self, d, build_attn=True):
        super().__init__()
        if build_attn:
            self.attn = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.ffn = nn.Linear(d, 4 * d)


class LastBlock(nn.Module):
    def __init__(self, d, build_head=True):
        super().__init__()
        self.attn = nn.Linear(d, d)
        if build_head:
            self.head = nn.Linear(d, d)


class WideAttention(Block):
    def __init__(self, d):
        super().__init__(d)
        self.attn = nn.Linear(d, 2 * d)


class WideHead(LastBlock):
    def __init__(self, d):
        super().__init__(d)
        self.head = nn.Linear(d, 2 * d)
"""


def test_a_flag_that_moves_a_module_past_others_is_unsafe(tmp_path: Path) -> None:
    """Switching the ancestor's build off registers the subclass's value where it runs:
    after the norm and the feed-forward layer (unsafe, and named); a build registered last
    keeps its place (safe)."""
    fixes = _fixes(tmp_path, FLAGGED)
    moved, kept = fixes["WideAttention"], fixes["WideHead"]
    assert moved is not None and moved.applicability == "unsafe"
    assert "pass `build_attn=False`" in moved.message
    assert "`self.norm`, `self.ffn` in the registration order" in moved.message
    assert kept is not None and kept.applicability == "safe"

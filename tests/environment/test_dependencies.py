"""Bases resolved in the environment: found across the boundary, reported and edited only
in the project, with Python's precedence, cached, and read-only (docs/design.md)."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.driver import analyze
from initlint.pipeline.analysis import Analysis
from initlint.settings import Settings

from .envkit import CHILD_LINE, ROPELIB, make_project, make_venv, tree_hash, write_tree

FINDING = f"plugin/child.py:{CHILD_LINE}:9: IL001"


def _run(root: Path, env: Path | None, use_cache: bool = False) -> Analysis:
    python = "" if env is None else str(env)

    def over(s: Settings) -> Settings:
        return replace(s, python=python) if python else s

    from initlint.fix.propose import fix_planner

    return analyze(
        [root], cwd=root, overrides=over, jobs=1, use_cache=use_cache, fix_planner=fix_planner
    )


def _lines(analysis: Analysis) -> list[str]:
    return [f"{d.path}:{d.line}:{d.column}: {d.code}" for d in analysis.diagnostics]


def _cli(root: Path, *args: str) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)
    return res.exit_code, res.output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


@pytest.fixture
def env(tmp_path: Path) -> Path:
    make_venv(tmp_path / "env")
    return tmp_path / "env"


def _site(env: Path) -> Path:
    return env / "lib" / "python3.11" / "site-packages"


def test_without_the_environment_the_base_is_invisible(project: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-env"
    make_venv(empty, {})
    assert _lines(_run(project, empty)) == []


def test_swallowed_flag_found_across_the_boundary(project: Path, env: Path) -> None:
    analysis = _run(project, env)
    assert _lines(analysis) == [FINDING]
    diag = analysis.diagnostics[0]
    base = _site(env) / "ropelib" / "base.py"
    assert diag.related[0].path == os.path.relpath(base, project)
    assert diag.related[0].line == 10
    assert "(ropelib 1.2.0)" in diag.message and "(ropelib 1.2.0)" in diag.related[0].message
    # The redo is identical: deleting it is a project edit, and safe.
    assert diag.fix is not None and diag.fix.message == "delete the repeated statement"
    assert analysis.files == 2  # plugin/__init__.py and plugin/child.py: no dependency file


def test_fix_that_needs_a_dependency_edit_is_refused(tmp_path: Path, env: Path) -> None:
    # A redo that is not identical (scaled) cannot be deleted; the flag exists, but
    # threading it through Swallowing means editing the dependency: no fix.
    root = make_project(tmp_path / "proj")
    child = root / "plugin" / "child.py"
    child.write_text(
        child.read_text().replace("self._compute_cache()", "self._compute_cache() * 2")
    )
    analysis = _run(root, env)
    assert _lines(analysis) == [FINDING]
    diag = analysis.diagnostics[0]
    assert diag.fix is None
    assert diag.message.endswith("[no fix: the work is done in ropelib 1.2.0]")
    # Machine-readable output: the reason in a field of its own, not in the message.
    code, out = _cli(root, "check", "--format", "json", "--python", str(env), ".")
    (item,) = json.loads(out)
    assert item["fix"] is None and item["no_fix"] == "the work is done in ropelib 1.2.0"
    assert "[no fix" not in item["message"]
    assert item["message"] + " [no fix: the work is done in ropelib 1.2.0]" == diag.message
    code, out = _cli(root, "check", "--format", "sarif", "--python", str(env), ".")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["properties"]["noFix"] == "the work is done in ropelib 1.2.0"
    assert "[no fix" not in result["message"]["text"]
    before = tree_hash(env)
    code, out = _cli(root, "fix", "--unsafe-fixes", "--python", str(env), ".")
    assert code == 1, out  # the finding stays
    assert tree_hash(env) == before


def test_a_flag_the_dependency_threads_is_switched_off_in_the_child(
    tmp_path: Path, env: Path
) -> None:
    root = make_project(tmp_path / "proj", parent="Threading")
    analysis = _run(root, env)
    assert _lines(analysis) == [FINDING]
    fix = analysis.diagnostics[0].fix
    assert fix is not None and fix.applicability == "safe"
    before = tree_hash(_site(env))
    code, out = _cli(root, "fix", "--python", str(env), ".")
    assert code == 0, out
    text = (root / "plugin" / "child.py").read_text()
    assert "init_cache=False" in text
    assert _lines(_run(root, env)) == []
    assert tree_hash(_site(env)) == before


def test_nothing_reported_or_written_in_site_packages(project: Path, env: Path) -> None:
    # The dependency has its own redo, which is never reported; fix --unsafe-fixes edits
    # only the project, and nothing lands in site-packages (no cache, no bytecode).
    write_tree(
        _site(env),
        {
            "ropelib/v4.py": """\
                from .yarn import Swallowing


                class V4(Swallowing):
                    def __init__(self, size):
                        super().__init__(size)
                        self.register_buffer("cache", self._compute_cache(), persistent=False)
                """
        },
    )
    (project / "plugin" / "more.py").write_text(
        "from ropelib.v4 import V4\n\n\nclass Mine(V4):\n    pass\n"
    )
    before = tree_hash(env)
    code, out = _cli(project, "check", "--python", str(env), ".")
    assert code == 1
    assert FINDING in out
    assert "site-packages" not in out.split("\n    note:")[0].split(": IL001")[0]
    assert "v4.py" not in "\n".join(ln for ln in out.splitlines() if not ln.startswith(" "))
    code, out = _cli(project, "fix", "--unsafe-fixes", "--python", str(env), ".")
    assert code == 0, out
    assert tree_hash(env) == before


def test_project_module_shadows_the_installed_one(project: Path, env: Path) -> None:
    # A top-level ropelib in the project wins, as on Python's path: its Swallowing is clean.
    write_tree(
        project,
        {
            "ropelib/__init__.py": """\
                class Swallowing:
                    def __init__(self, size, scale=1.0):
                        self.scale = scale
                """
        },
    )
    assert _lines(_run(project, env)) == []


def test_nested_module_shadows_nothing(project: Path, env: Path) -> None:
    # plugin/env/ropelib.py is plugin.env.ropelib, never `ropelib`.
    nested = """\
        class Swallowing:
            def __init__(self, size, scale=1.0):
                self.scale = scale
        """
    write_tree(project, {"plugin/env/__init__.py": "", "plugin/env/ropelib.py": nested})
    assert _lines(_run(project, env)) == [FINDING]


def test_nested_torch_module_is_not_torch(tmp_path: Path) -> None:
    # No torch installed: `import torch` stays external, it does not bind pkg/env/torch.py.
    empty = tmp_path / "empty-env"
    make_venv(empty, {})
    root = tmp_path / "proj"
    write_tree(
        root,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/env/__init__.py": "",
            "pkg/env/torch.py": "def arange(n):\n    return list(range(n))\n",
            "pkg/m.py": """\
                import torch


                class Base:
                    def __init__(self):
                        self.t = torch.arange(4)
                """,
        },
    )
    analysis = _run(root, empty)
    mod = analysis.index.module("pkg.m")
    assert mod is not None
    target = analysis.index.resolve(mod, "torch.arange")
    assert target is not None and (target.kind, target.name) == ("external", "torch.arange")


def test_re_exports_and_star_imports(tmp_path: Path, env: Path) -> None:
    # `from ropelib import Swallowing` goes through __init__'s `from .yarn import *`.
    root = make_project(tmp_path / "proj")
    analysis = _run(root, env)
    mod = analysis.index.module("plugin.child")
    assert mod is not None
    target = analysis.index.resolve(mod, "Swallowing")
    assert target is not None and target.name == "ropelib.yarn.Swallowing"
    assert analysis.index.module("ropelib.yarn") is not None
    assert analysis.index.module("ropelib.yarn").is_dependency  # type: ignore[union-attr]
    assert not mod.is_dependency


def test_namespace_packages_across_portions(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    files = {
        f"nsrope/{k.removeprefix('ropelib/')}": v
        for k, v in ROPELIB.items()
        if k.startswith("ropelib/")
    }
    files["nsrope/__init__.py"] = ""  # nsrope.core below is a regular package in a namespace
    env = tmp_path / "env"
    site = make_venv(env, {"extra.pth": str(extra) + "\n"})
    write_tree(site, {f"ns/core/{k}": v for k, v in files.items()})
    write_tree(
        extra,
        {
            "ns/more/__init__.py": "",
            "ns/more/child_base.py": "from ns.core.nsrope.yarn import Swallowing\n",
        },
    )
    shutil.rmtree(site / "ns" / "core" / "nsrope" / "__pycache__", ignore_errors=True)
    root = tmp_path / "proj"
    write_tree(
        root,
        {
            "pyproject.toml": "",
            "plugin/__init__.py": "",
            "plugin/child.py": """\
                from ns.more.child_base import Swallowing


                class Child(Swallowing):
                    def __init__(self, size):
                        super().__init__(size, 2.0)
                        self.register_buffer("cache", self._compute_cache(), persistent=False)
                """,
        },
    )
    assert _lines(_run(root, env)) == [FINDING]


def test_editable_install_resolves_through_its_finder(tmp_path: Path) -> None:
    src = tmp_path / "checkout"
    write_tree(src, {k: v for k, v in ROPELIB.items() if k.startswith("ropelib/")})
    env = tmp_path / "env"
    make_venv(
        env,
        {
            "__editable__.ropelib-1.2.0.pth": "import __editable___ropelib_1_2_0_finder; y()\n",
            "__editable___ropelib_1_2_0_finder.py": (
                f"MAPPING = {{'ropelib': {str(src / 'ropelib')!r}}}\n"
            ),
            "ropelib-1.2.0.dist-info/METADATA": "Name: ropelib\n",
        },
    )
    root = make_project(tmp_path / "proj")
    analysis = _run(root, env)
    assert _lines(analysis) == [FINDING]
    assert "ropelib 1.2.0" in analysis.diagnostics[0].message
    # A finder whose MAPPING is computed cannot be read: unresolved, clean.
    finder = env / "lib" / "python3.11" / "site-packages" / "__editable___ropelib_1_2_0_finder.py"
    finder.write_text("MAPPING = load_mapping()\n")
    assert _lines(_run(root, env)) == []


@pytest.mark.parametrize(
    "shape", ["extension", "bytecode", "undecodable", "syntax-error", "stub-only"]
)
def test_compiled_or_unreadable_module_is_clean(project: Path, env: Path, shape: str) -> None:
    yarn = _site(env) / "ropelib" / "yarn.py"
    if shape == "stub-only":  # a package shipping .pyi files only: no source to read
        for path in (_site(env) / "ropelib").glob("*.py"):
            path.rename(path.with_suffix(".pyi"))
    elif shape == "extension":
        (yarn.parent / "yarn.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    elif shape == "bytecode":
        yarn.rename(yarn.with_suffix(".pyc"))
    elif shape == "undecodable":
        yarn.write_bytes(b"# -*- coding: utf-8 -*-\nclass Swallowing:\n    x = '\xff\xfe'\n")
    else:
        yarn.write_text("class Swallowing(CacheBase:\n")
    code, out = _cli(project, "check", "--no-cache", "--python", str(env), ".")
    assert code == 0, out
    assert "IL90" not in out


def test_dependency_change_between_runs(project: Path, env: Path) -> None:
    """Warm runs reuse results and facts; a changed dependency file invalidates both."""
    args = ("check", "--python", str(env), ".")
    assert FINDING in _cli(project, *args)[1]
    assert FINDING in _cli(project, *args)[1]  # warm: same answer
    base = _site(env) / "ropelib" / "base.py"
    registers = 'self.register_buffer("cache", self._compute_cache(), persistent=False)'
    text = base.read_text().replace(registers, "self.ready = True")
    base.write_text(text)
    future = time.time() + 5  # a different mtime even on a coarse clock
    os.utime(base, (future, future))
    code, out = _cli(project, *args)
    assert code == 0, out  # the base no longer builds the cache: no repeat left
    # An upgrade that brings it back is seen too.
    base.write_text(text.replace("self.ready = True", registers))
    os.utime(base, (future + 5, future + 5))
    assert FINDING in _cli(project, *args)[1]


def test_newly_installed_dependency_is_seen_by_a_warm_run(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    env = tmp_path / "env"
    site = make_venv(env, {})
    args = ("check", "--python", str(env), ".")
    assert _cli(project, *args)[0] == 0
    os.utime(site, (time.time() - 10, time.time() - 10))
    write_tree(site, ROPELIB)  # pip install ropelib
    assert FINDING in _cli(project, *args)[1]


def test_dependency_facts_are_cached_by_stat_and_version(project: Path, env: Path) -> None:
    from initlint.environment import Distribution
    from initlint.facts.cache import FactsCache
    from initlint.pipeline.project import dependency_facts

    cache = FactsCache(project, "t", True)
    path = _site(env) / "ropelib" / "base.py"
    facts, key = dependency_facts(path, Distribution("ropelib", "1.2.0"), cache)
    assert [c.name for c in facts.classes] == ["CacheBase"]
    again, key2 = dependency_facts(path, Distribution("ropelib", "1.2.0"), cache)
    assert key2 == key
    _, other = dependency_facts(path, Distribution("ropelib", "1.3.0"), cache)
    assert other != key
    cache.close()

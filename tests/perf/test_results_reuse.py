"""Reusing a file's last results (``reuse_results``) changes nothing but speed (issue 7).

After every edit, a run that reuses results reports exactly what a run without any cache
reports; and the reuse is real: files whose import closure did not change are not checked.
"""

from __future__ import annotations

import os
import shutil
import textwrap
import time
from pathlib import Path

import pytest

import initlint.driver.results as results
from initlint.driver import analyze

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "check"


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expected.txt").exists())


def _full(root: Path, **kwargs: object) -> list[tuple[object, ...]]:
    analysis = analyze([root], cwd=kwargs.pop("cwd", root), jobs=1, **kwargs)  # type: ignore[arg-type]
    return [
        (d.path, d.line, d.column, d.end_line, d.end_column, d.code, d.message, d.confidence)
        + (d.classes, d.related, d.fix)
        for d in analysis.diagnostics
    ]


@pytest.mark.parametrize("name", _cases())
def test_reused_results_equal_fresh_ones_on_every_fixture(
    name: str, tmp_path: Path, reused: list[Path]
) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    fresh = _full(root, use_cache=False)
    assert _full(root, reuse_results=True) == fresh  # cold: computes and stores
    reused.clear()
    assert _full(root, reuse_results=True) == fresh  # warm: every file with classes reused
    if fresh and not any("IL90" in str(d[5]) for d in fresh):
        assert reused, "a warm run with nothing changed reused nothing"
    # Files without classes depend on their own content only: always reused when unchanged.
    plain = {p for p in root.rglob("*.py") if "class" not in p.read_text(errors="replace")}
    assert plain <= set(reused)


def test_file_without_classes_is_reused_until_it_changes(
    tmp_path: Path, reused: list[Path]
) -> None:
    """A class-less report file is not read again while its size and mtime hold; once it
    gains a class, it is checked, with what its new class inherits."""
    _write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    _write(tmp_path, "pkg/__init__.py", "from pkg.base import Base\n")
    _write(tmp_path, "pkg/base.py", BASE)
    _write(tmp_path, "pkg/util.py", "def helper():\n    return 1\n")
    fresh = _full(tmp_path, use_cache=False)
    assert _full(tmp_path, reuse_results=True) == fresh == []
    reused.clear()
    assert _full(tmp_path, reuse_results=True) == fresh
    assert tmp_path / "pkg" / "util.py" in reused
    _write(tmp_path, "pkg/util.py", CHILD)  # now it defines a class that redoes Base's work
    reused.clear()
    changed = _full(tmp_path, reuse_results=True)
    assert tmp_path / "pkg" / "util.py" not in reused
    assert changed == _full(tmp_path, use_cache=False) != fresh
    assert [d[5] for d in changed] == ["IL001"]


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))


BASE = """
    import torch
    from torch import nn

    class Base(nn.Module):
        def __init__(self, n=4):
            super().__init__()
            self.register_buffer("cache", torch.zeros(n))
    """

CHILD = """
    import torch
    from pkg import Base

    class Child(Base):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))
    """

OTHER = """
    import torch
    from torch import nn

    class Other(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Linear(3, 3)
    """


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    _write(root, "pyproject.toml", "[project]\nname = 'p'\n")
    _write(root, "pkg/__init__.py", "from pkg.base import Base\n")
    _write(root, "pkg/base.py", BASE)
    _write(root, "pkg/child.py", CHILD)
    _write(root, "pkg/other.py", OTHER)
    return root


def _step(root: Path, reused: list[Path]) -> list[tuple[object, ...]]:
    reused.clear()
    got = _full(root, reuse_results=True)
    assert got == _full(root, use_cache=False)
    return got


def test_reuse_follows_every_kind_of_edit(project: Path, reused: list[Path]) -> None:
    first = _step(project, reused)
    assert [d[5] for d in first] == ["IL001"]

    # An edit outside the child's imports: the child's result is reused.
    _write(project, "pkg/other.py", OTHER + "\n    X = 1\n")
    assert _step(project, reused) == first
    assert project / "pkg" / "child.py" in reused
    assert project / "pkg" / "other.py" not in reused

    # The ancestor changes: the child is checked again, and its finding goes away.
    _write(
        project,
        "pkg/base.py",
        BASE.replace('self.register_buffer("cache", torch.zeros(n))', "self.ready = True"),
    )
    assert _step(project, reused) == []
    assert project / "pkg" / "child.py" not in reused

    # The re-export changes to another module's Base: resolution follows it.
    _write(project, "pkg/base2.py", BASE)
    _write(project, "pkg/__init__.py", "from pkg.base2 import Base\n")
    assert [d[5] for d in _step(project, reused)] == ["IL001"]

    # A suppression comment in the child.
    text = (project / "pkg" / "child.py").read_text()
    _write(
        project,
        "pkg/child.py",
        text.replace("torch.zeros(4))", "torch.zeros(4))  # initlint: ignore[IL001]"),
    )
    assert _step(project, reused) == []

    # Another folder to show paths from: entries are per folder.
    _write(project, "pkg/child.py", CHILD)
    _step(project, reused)
    sub = project / "pkg"
    fresh = _full(project, cwd=sub, use_cache=False)
    assert _full(project, cwd=sub, reuse_results=True) == fresh
    assert fresh[0][0] == "child.py"


def test_json_style_runs_never_reuse(project: Path, reused: list[Path]) -> None:
    _full(project, reuse_results=True)
    _full(project)  # reuse_results=False: plans are needed, so everything is checked
    assert reused == []


def _age(root: Path, seconds: int = 100) -> None:
    old = time.time() - seconds
    for path in root.rglob("*.py"):
        os.utime(path, (old, old))


def test_unchanged_stats_skip_reading_and_a_same_size_edit_is_seen(
    project: Path, reused: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _age(project)
    first = _step(project, reused)  # records the stats of the (old) files
    reads: list[str] = []
    real = results.read_bytes

    def read_bytes(path: Path) -> bytes:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(results, "read_bytes", read_bytes)
    assert _full(project, reuse_results=True) == first
    assert reads == []  # every module's stat matched: nothing was read to validate

    # Same size, another mtime (still old): the stat differs, the content is read and hashed.
    base = project / "pkg" / "base.py"
    base.write_text(base.read_text().replace("n=4", "n=5"))
    stamp = time.time() - 50
    os.utime(base, (stamp, stamp))
    reused.clear()
    got = _full(project, reuse_results=True)
    assert got == _full(project, use_cache=False)
    assert "base.py" in reads
    assert project / "pkg" / "child.py" not in reused

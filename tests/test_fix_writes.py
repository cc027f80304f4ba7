"""The fixer writes all files or none, and never outside the project root."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from initlint.fix import apply as apply_mod
from initlint.fix.api import run_fix
from initlint.fix.transform import FixError

CASE = Path(__file__).parent / "fixtures" / "fix" / "deepseek_v4_bug"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(CASE / "in", dst)
    return dst


def test_interrupted_between_files_leaves_old_files(work: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    before = _snapshot(work)
    real_replace = os.replace
    calls = 0

    def flaky_replace(src: str, dst: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 2 and str(dst).endswith(".py"):
            raise OSError("disk went away")
        real_replace(src, dst)

    monkeypatch.setattr(apply_mod.os, "replace", flaky_replace)
    with pytest.raises(OSError):
        run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    after = _snapshot(work)
    assert after == before  # the first file was restored; nothing truncated
    assert not [p for p in work.rglob("*.tmp")]


def test_each_file_old_or_new_if_restore_fails_too(work: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    before = _snapshot(work)
    out = _snapshot(CASE / "out")
    real_replace = os.replace
    calls = 0

    def flaky_replace(src: str, dst: str) -> None:
        nonlocal calls
        calls += 1
        if calls >= 2:
            raise OSError("read-only now")
        real_replace(src, dst)

    monkeypatch.setattr(apply_mod.os, "replace", flaky_replace)
    with pytest.raises(OSError):
        run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    for name, data in _snapshot(work).items():
        assert data in (before[name], out[name]), name


def test_refuses_symlink_leaving_the_root(work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = work / "rope" / "yarn.py"
    moved = outside / "yarn.py"
    shutil.move(target, moved)
    target.symlink_to(moved)
    before = moved.read_bytes()
    before_v4 = (work / "rope" / "deepseek_v4.py").read_bytes()
    with pytest.raises(FixError, match="outside"):
        run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert moved.read_bytes() == before
    assert (work / "rope" / "deepseek_v4.py").read_bytes() == before_v4


def test_file_mode_is_kept(work: Path) -> None:
    v4 = work / "rope" / "deepseek_v4.py"
    v4.chmod(0o640)
    run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert v4.stat().st_mode & 0o777 == 0o640
    assert b"init_cache=False" in v4.read_bytes()


def test_file_with_syntax_error_is_never_touched(work: Path) -> None:
    broken = work / "rope" / "broken.py"
    broken.write_text("from .base import RotaryEmbeddingBase\nclass X(RotaryEmbeddingBase:\n")
    data = broken.read_bytes()
    before, outcome, _ = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert any(d.code == "IL900" for d in before.diagnostics)
    assert broken.read_bytes() == data
    assert all(c.path != broken for c in outcome.changes)

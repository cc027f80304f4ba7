"""Writes keep each file's owner, group and mode, and a read-only file stops the run before
anything is written, with an error naming it.

The tests run as root here, which may write any file; so read-only means no write bit at
all (``chmod 444``), checked from the mode bits rather than from an EACCES, and the owner
test gives the files away to another uid, which only root can do (skipped otherwise)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main

CASE = Path(__file__).parent / "fixtures" / "fix" / "deepseek_v4_bug"


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(CASE / "in", dst)
    monkeypatch.chdir(dst)
    return dst


def _fix(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["fix", "--unsafe-fixes", "--no-cache", *args, "."])
    return result.exit_code, result.output


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_read_only_file_refused_and_nothing_written(work: Path) -> None:
    yarn = work / "rope" / "yarn.py"
    yarn.chmod(0o444)
    before = _tree(work)
    code, output = _fix()
    assert code == 2, output
    assert "error: no file was changed" in output
    assert "refusing to write" in output and "yarn.py" in output and "read-only" in output
    assert "deepseek_v4.py" not in output  # only the file that is read-only is named
    assert _tree(work) == before  # deepseek_v4.py, which is writable, is not written either
    assert not list(work.rglob("*.tmp"))
    assert stat.S_IMODE(yarn.stat().st_mode) == 0o444
    # --diff writes nothing, so a read-only file is no obstacle to it.
    code, output = _fix("--diff")
    assert code == 1 and "+++ b/rope/yarn.py" in output


def test_mode_owner_and_group_kept(work: Path) -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    files = [work / "rope" / "yarn.py", work / "rope" / "deepseek_v4.py"]
    for f in files:
        os.chown(f, 12345, 23456)
        f.chmod(0o640)
    code, output = _fix()
    assert code == 0, output
    for f in files:
        st = f.stat()
        assert (st.st_uid, st.st_gid) == (12345, 23456), f
        assert stat.S_IMODE(st.st_mode) == 0o640, f
    assert b"init_cache" in files[0].read_bytes()

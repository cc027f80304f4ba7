"""The cache folder stays bounded: old generations go when a new one is created, unused
facts rows and old result files go once a day, and ``initlint clean`` removes it all."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from click.testing import CliRunner

from initlint import cache as cache_module
from initlint.cache import CACHE_DIR, BlobCache
from initlint.cli import main
from initlint.driver import analyze

BASE = """\
import torch


class Base(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("table", torch.zeros(n, n))
"""

CHILD = """\
import torch

from pkg.base import Base


class Child(Base):
    def __init__(self, n):
        super().__init__(n)
        self.register_buffer("table", torch.zeros(n, n))
"""

DAY = 86400.0


def _project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(BASE)
    (root / "pkg" / "child.py").write_text(CHILD)
    return root


def _age(path: Path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def _old_store(top: Path, name: str, days: float) -> Path:
    path = top / name
    if name.endswith(".sqlite"):
        path.write_bytes(b"old")
        wal = top / f"{name}-wal"
        wal.write_bytes(b"old")
        _age(wal, days)
    else:
        path.mkdir()
        (path / "entry.pkl").write_bytes(b"old")
    _age(path, days)
    return path


def test_a_new_generation_removes_old_ones_and_keeps_recent_ones(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    top = root / CACHE_DIR
    top.mkdir()
    # Five older facts generations, 10..14 days old, and one another run wrote an hour ago.
    old = [_old_store(top, f"facts-0.0.{i}-abc-t2-def.sqlite", 10 + i) for i in range(5)]
    recent = _old_store(top, "facts-0.0.9-abc-t2-def.sqlite", 1 / 24)
    stale_results = [_old_store(top, f"results-0.0.{i}-abc-def", 20 + i) for i in range(5)]
    analyze([root], cwd=root, jobs=1)
    facts = sorted(p.name for p in top.glob("facts-*.sqlite"))
    assert recent.exists()
    # Beside the new store: the 3 newest others (the recent one among them); the rest go.
    assert [p.exists() for p in old] == [True, True, False, False, False]
    assert not (top / f"{old[4].name}-wal").exists()
    assert (top / f"{old[0].name}-wal").exists()
    assert len(facts) == 4
    assert [p.exists() for p in stale_results] == [True, True, True, False, False]
    # A run that finds its stores prunes nothing: an old generation added now stays.
    late = _old_store(top, "facts-0.0.8-abc-t2-def.sqlite", 40)
    (root / "pkg" / "child.py").write_text(CHILD + "# edited\n")
    analyze([root], cwd=root, jobs=1)
    assert late.exists()


def _rows(root: Path) -> dict[str, int]:
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    db = sqlite3.connect(db_path)
    try:
        return dict(db.execute("SELECT k, seen FROM facts").fetchall())
    finally:
        db.close()


def _set_seen(root: Path, updates: dict[str, int], extra: dict[str, int]) -> None:
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    db = sqlite3.connect(db_path)
    with db:
        db.executemany(
            "UPDATE facts SET seen = ? WHERE k = ?", [(v, k) for k, v in updates.items()]
        )
        db.executemany(
            "INSERT INTO facts (k, v, seen) VALUES (?, ?, ?)",
            [(k, b"gone", v) for k, v in extra.items()],
        )
    db.close()


def test_facts_rows_unused_for_a_month_are_dropped(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    analyze([root], cwd=root, jobs=1)
    today = int(time.time() // DAY)
    rows = _rows(root)
    assert rows and set(rows.values()) == {today}
    in_use = sorted(rows)
    # Rows this project still reads, last used 31 days ago; rows of contents that are gone.
    _set_seen(
        root,
        {k: today - 31 for k in in_use},
        {"gone-a": today - 31, "gone-b": today - cache_module.MAX_UNUSED_DAYS + 1},
    )
    analyze([root], cwd=root, jobs=1)  # reads every file's facts from the table
    after = _rows(root)
    assert {k: after[k] for k in in_use} == {k: today for k in in_use}  # stamped, kept
    assert "gone-a" not in after  # unused for 31 days
    assert after["gone-b"] == today - cache_module.MAX_UNUSED_DAYS + 1  # 29 days: kept


def test_old_file_entries_go_in_the_daily_pass(tmp_path: Path) -> None:
    first = BlobCache(tmp_path, "results-x")
    first.store("kept", 1)
    mark = first.dir / ".pruned"
    assert mark.exists()
    old = first.dir / "old.pkl"
    old.write_bytes(b"x")
    _age(old, 40)
    young = first.dir / "young.pkl"
    young.write_bytes(b"x")
    _age(young, 20)
    BlobCache(tmp_path, "results-x").store("new", 2)  # the pass ran less than a day ago
    assert old.exists()
    _age(mark, 2)
    BlobCache(tmp_path, "results-x").store("new", 2)
    assert not old.exists()
    assert young.exists() and (first.dir / "kept.pkl").exists()
    assert BlobCache(tmp_path, "results-x").load("new") == 2


def test_clean_removes_the_cache_folder(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    analyze([root], cwd=root, jobs=1)
    assert (root / CACHE_DIR).is_dir()
    runner = CliRunner()
    result = runner.invoke(main, ["clean", str(root / "pkg" / "child.py")])
    assert result.exit_code == 0, result.output
    assert "Removed" in result.output
    assert not (root / CACHE_DIR).exists()
    assert (root / "pkg" / "child.py").read_text() == CHILD
    again = runner.invoke(main, ["clean", str(root)])
    assert again.exit_code == 0
    assert "No cache at" in again.output


def test_clean_unlinks_a_linked_cache_folder_only(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    (shared / "keep.pkl").write_bytes(b"x")
    (root / CACHE_DIR).symlink_to(shared)
    result = CliRunner().invoke(main, ["clean", str(root)])
    assert result.exit_code == 0, result.output
    assert not (root / CACHE_DIR).exists()
    assert (shared / "keep.pkl").exists()

"""A ``.initlint_cache`` the repository carries is never trusted: its entries are never
unpickled unless this user's initlint wrote them there, and a damaged or foreign cache gives
the output of ``--no-cache``.

The planted cache replaces every store file (and every row of the SQLite store) with a
pickle that would create a marker file when loaded: ``check`` (text, JSON, ``--diff
--unsafe-fixes``) and ``fix`` run over it and the marker never appears. The editor server's
part is in ``tests/server/test_untrusted_cache.py``.
"""

from __future__ import annotations

import os
import pickle
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from server.project import make_project  # an IL001 in sub.py, fixed in mid.py

from initlint.cache import CACHE_DIR

REPO = Path(__file__).resolve().parents[2]
TRACEBACK = "Traceback (most recent call last)"


class _Planted:
    """Pickles to a call of ``os.system`` that creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {shlex.quote(str(self.marker))}",))


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _outcome(proc: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    assert TRACEBACK not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def _tree(root: Path) -> dict[str, bytes]:
    """The project's files, the cache left out."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and CACHE_DIR not in p.parts
    }


def _store_files(root: Path) -> list[Path]:
    """Every store file of the cache: SQLite stores and the entries of the folder stores."""
    top = root / CACHE_DIR
    return [
        p
        for p in sorted(top.rglob("*"))
        if p.is_file()
        and p.name not in (".gitignore", "CACHEDIR.TAG", ".pruned")
        and not p.name.endswith(("-wal", "-shm"))
    ]


def _rows(db_path: Path) -> list[tuple[str, bytes]]:
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT k, v FROM facts").fetchall()
    finally:
        db.close()


def _set_rows(db_path: Path, rows: list[tuple[str, bytes]]) -> None:
    db = sqlite3.connect(db_path)
    try:
        with db:
            db.executemany("UPDATE facts SET v = ? WHERE k = ?", [(v, k) for k, v in rows])
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def plant(root: Path, marker: Path, gitignore: str | None = "*\n") -> int:
    """Replace every store file and every SQLite row with a pickle that touches ``marker``
    (half of them behind 16 bytes that pose as a tag); set the cache folder's ``.gitignore``
    (None: none). Returns how many entries were planted."""
    evil = pickle.dumps(_Planted(marker))
    posing = os.urandom(16) + evil
    planted = 0
    for path in _store_files(root):
        if path.suffix == ".sqlite":
            rows = _rows(path)
            _set_rows(path, [(k, evil if i % 2 else posing) for i, (k, _) in enumerate(rows)])
            planted += len(rows)
        else:
            path.write_bytes(evil if planted % 2 else posing)
            planted += 1
    ignore = root / CACHE_DIR / ".gitignore"
    ignore.unlink(missing_ok=True)
    if gitignore is not None:
        ignore.write_text(gitignore)
    return planted


COMMANDS = {
    "text": ("check", "."),
    "json": ("check", ".", "--format", "json"),
    "diff": ("check", ".", "--diff", "--unsafe-fixes"),
}


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "EXECUTED"


@pytest.mark.parametrize("gitignore", ["*\n", None, "!*\n"], ids=["kept", "missing", "other"])
def test_a_planted_cache_is_never_unpickled(
    tmp_path: Path, marker: Path, gitignore: str | None
) -> None:
    root = make_project(tmp_path / "proj")
    clean = {name: _outcome(_run(root, *cmd, "--no-cache")) for name, cmd in COMMANDS.items()}
    assert clean["text"][0] == 1 and "IL001" in clean["text"][1]
    assert "+++ b/pkg/mid.py" in clean["diff"][1]
    assert not (root / CACHE_DIR).exists()
    for cmd in COMMANDS.values():  # every store written, then planted before each command
        _run(root, *cmd)
    stores = {p.parent.name if p.suffix == ".pkl" else p.name for p in _store_files(root)}
    assert {s.split("-")[0] for s in stores} == {"facts", "results", "locate"}
    for name, cmd in COMMANDS.items():
        assert plant(root, marker, gitignore) >= 4
        assert _outcome(_run(root, *cmd)) == clean[name], name
        assert not marker.exists(), name
        assert (root / CACHE_DIR / ".gitignore").read_text() == "*\n"  # written again
    # fix: on two copies, one planted, one without a cache
    planted_copy, clean_copy = tmp_path / "planted", tmp_path / "clean"
    shutil.copytree(root, planted_copy)
    shutil.copytree(root, clean_copy, ignore=shutil.ignore_patterns(CACHE_DIR))
    plant(planted_copy, marker, gitignore)
    fixed = _outcome(_run(planted_copy, "fix", ".", "--unsafe-fixes"))
    assert fixed == _outcome(_run(clean_copy, "fix", ".", "--unsafe-fixes", "--no-cache"))
    assert _tree(planted_copy) == _tree(clean_copy)
    assert _tree(planted_copy) != _tree(root)  # the fix did edit the file
    assert not marker.exists()


def test_entries_are_rewritten_by_this_users_initlint(tmp_path: Path, marker: Path) -> None:
    """A planted entry is a miss: the run writes its own in its place, and the next run
    reads that one (the cache still saves the work)."""
    root = make_project(tmp_path / "proj")
    _run(root, "check", ".")
    [db_path] = (root / CACHE_DIR).glob("facts-*.sqlite")
    good = dict(_rows(db_path))
    plant(root, marker)
    _run(root, "check", ".")
    assert dict(_rows(db_path)) == good  # the same bytes: deterministic, and tagged again
    assert not marker.exists()


# -- fuzzing each store ----------------------------------------------------------------


def _damage_file(path: Path, how: str, rng: random.Random) -> None:
    data = path.read_bytes()
    if how == "random":
        path.write_bytes(rng.randbytes(rng.randint(0, 2 * len(data) + 64)))
    elif how == "truncated":
        path.write_bytes(data[: rng.randint(0, max(len(data) - 1, 0))])
    elif how == "flipped":
        if data:
            buf = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
            path.write_bytes(bytes(buf))


def _damage(root: Path, store: str, how: str, seed: int, other: Path) -> None:
    rng = random.Random(seed)
    top = root / CACHE_DIR
    if how == "swapped":  # this store's entries exchanged with each other, or another's
        if store == "facts":
            [db_path] = top.glob("facts-*.sqlite")
            rows = _rows(db_path)
            values = [v for _, v in rows]
            rng.shuffle(values)
            values = values[1:] + values[:1]  # none left in place
            _set_rows(db_path, [(k, v) for (k, _), v in zip(rows, values, strict=True)])
        else:
            foreign = sorted((other / CACHE_DIR).glob(f"{store}-*/*.pkl"))
            for mine in top.glob(f"{store}-*/*.pkl"):
                mine.write_bytes(rng.choice(foreign).read_bytes())
        return
    if store == "facts":
        [db_path] = top.glob("facts-*.sqlite")
        if how == "rows":  # each row's bytes damaged, the file itself sound
            rows = _rows(db_path)
            damaged = []
            for k, v in rows:
                buf = bytearray(v)
                buf[rng.randrange(len(buf))] ^= 0xFF
                damaged.append((k, bytes(buf)))
            _set_rows(db_path, damaged)
            return
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        _damage_file(db_path, how, rng)
        return
    for entry in top.glob(f"{store}-*/*.pkl"):  # every generation (settings) of the store
        _damage_file(entry, "flipped" if how == "rows" else how, rng)


@pytest.fixture(scope="module")
def fuzz_base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    """A project with its cache written by every command, another project's cache (for
    swaps), and the ``--no-cache`` outcome of each command."""
    base = tmp_path_factory.mktemp("fuzz")
    root = make_project(base / "proj")
    other = make_project(base / "other")
    (other / "pkg" / "extra.py").write_text(
        "from pkg.base import RopeBase\n\n\nclass E(RopeBase): ...\n"
    )
    clean = {name: _outcome(_run(root, *cmd, "--no-cache")) for name, cmd in COMMANDS.items()}
    for cmd in COMMANDS.values():
        _run(root, *cmd)
        _run(other, *cmd)
    return root, other, clean


@pytest.mark.parametrize("how", ["random", "truncated", "rows", "swapped"])
@pytest.mark.parametrize("store", ["facts", "results", "walk", "locate"])
def test_a_damaged_store_gives_the_output_of_no_cache(
    tmp_path: Path,
    fuzz_base: tuple[Path, Path, dict[str, object]],
    store: str,
    how: str,
) -> None:
    base, other, clean = fuzz_base
    root = tmp_path / "proj"
    shutil.copytree(base, root)
    for seed, (name, cmd) in enumerate(COMMANDS.items()):  # damaged again before each
        _damage(root, store, how, zlib.crc32(f"{store} {how} {seed}".encode()), other)
        assert _outcome(_run(root, *cmd)) == clean[name], (store, how, name)


def test_another_projects_cache_swapped_in_is_not_trusted(
    tmp_path: Path, fuzz_base: tuple[Path, Path, dict[str, object]]
) -> None:
    """The whole cache folder of another project, moved in: every tag names the other
    project's folder, so nothing verifies."""
    base, other, clean = fuzz_base
    root = tmp_path / "proj"
    shutil.copytree(base, root, ignore=shutil.ignore_patterns(CACHE_DIR))
    shutil.copytree(other / CACHE_DIR, root / CACHE_DIR)
    for name, cmd in COMMANDS.items():
        assert _outcome(_run(root, *cmd)) == clean[name], name


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path: Path) -> None:
    """A repository cannot point the cache at the user's files: a linked cache folder is
    neither read, written nor pruned."""
    root = make_project(tmp_path / "proj")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    old = elsewhere / "results-notes.txt"  # a name a store's pruning would take for its own
    old.write_text("keep me")
    os.utime(old, (0, 0))
    (root / CACHE_DIR).symlink_to(elsewhere)
    clean = _outcome(_run(root, "check", ".", "--no-cache"))
    assert _outcome(_run(root, "check", ".")) == clean
    assert sorted(p.name for p in elsewhere.iterdir()) == ["results-notes.txt"]


# -- the key ---------------------------------------------------------------------------


def _key_in(folder: Path, monkeypatch: pytest.MonkeyPatch) -> bytes | None:
    from initlint import trust

    monkeypatch.setenv("INITLINT_KEY_DIR", str(folder))
    trust.user_key.cache_clear()
    try:
        return trust.user_key()
    finally:
        trust.user_key.cache_clear()


def test_the_key_is_made_once_private_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "user-cache" / "initlint"
    key = _key_in(folder, monkeypatch)
    assert key is not None and len(key) == 32
    assert (folder / "cache-key").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in folder.iterdir()] == ["cache-key"]  # no temporary file left
    assert _key_in(folder, monkeypatch) == key  # read back, not made again


@pytest.mark.parametrize("bad", ["readable", "short", "link"])
def test_a_key_file_not_fit_to_trust_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    folder = tmp_path / "initlint"
    folder.mkdir()
    path = folder / "cache-key"
    known = b"k" * 32  # a key someone else could know
    if bad == "readable":
        path.write_bytes(known)
        path.chmod(0o644)
    elif bad == "short":
        path.write_bytes(known[:8])
        path.chmod(0o600)
    else:
        target = tmp_path / "elsewhere"
        target.write_bytes(known)
        target.chmod(0o600)
        path.symlink_to(target)
    key = _key_in(folder, monkeypatch)
    assert key is not None and key != known and key != known[:8]
    assert not path.is_symlink() and path.stat().st_mode & 0o777 == 0o600


def test_without_a_key_the_cache_is_off_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: Path
) -> None:
    """No usable key folder (a relative one, as ``~`` without a home would give): no cache
    is read or written, and the output is the same."""
    root = make_project(tmp_path / "proj")
    _run(root, "check", ".")
    plant(root, marker)
    before = sorted(p.name for p in (root / CACHE_DIR).rglob("*"))
    monkeypatch.setenv("INITLINT_KEY_DIR", "relative/key-dir")
    assert _outcome(_run(root, "check", ".")) == _outcome(_run(root, "check", ".", "--no-cache"))
    assert not marker.exists()
    assert not (root / "relative").exists()
    assert sorted(p.name for p in (root / CACHE_DIR).rglob("*")) == before


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_planted_special_files_neither_block_nor_redirect(tmp_path: Path, kind: str) -> None:
    """Every store file (the SQLite store's journals too) replaced by a FIFO (reading one
    would block the run) or by a link to a file of the user's (SQLite would write a ``-wal``
    through it): the run ends, with the output of ``--no-cache``, and the user's file is as
    it was."""
    root = make_project(tmp_path / "proj")
    for cmd in COMMANDS.values():
        _run(root, *cmd)
    theirs = tmp_path / "users-file"
    theirs.write_bytes(b"precious")
    top = root / CACHE_DIR
    [db_path] = top.glob("facts-*.sqlite")
    targets = [*_store_files(root), top / ".gitignore"]
    targets += [Path(f"{db_path}{s}") for s in ("-wal", "-shm", "-journal")]
    for path in targets:
        path.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(theirs)
    for name, cmd in COMMANDS.items():
        assert _outcome(_run(root, *cmd)) == _outcome(_run(root, *cmd, "--no-cache")), name
    assert theirs.read_bytes() == b"precious"

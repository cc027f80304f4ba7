"""The fact cache and the process pool change nothing but speed (issue 7).

Findings are identical with and without the cache, cold and warm, with one job or several
(the pool forced on even for these small inputs); a warm run after an edit re-parses only the
edited file; two runs at once leave a valid cache; a corrupt entry is ignored and rewritten.
No timings here: speed is measured by benchmarks/check_speed.py, as ratios.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import initlint.driver.loading as loading
import initlint.driver.run as engine
import initlint.driver.split as split
from initlint.cache import CACHE_DIR
from initlint.driver import analyze
from initlint.driver import factpass as runner
from initlint.facts.model import ModuleFacts
from initlint.fix.propose import fix_planner
from initlint.trust import sealer

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "check"
REPO = Path(__file__).resolve().parents[2]


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expected.txt").exists())


@pytest.fixture
def pool_always(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Use the process pool whatever the number of files (workers fork and inherit this).
    The list counts the pools started."""
    monkeypatch.setattr(runner, "POOL_THRESHOLD", 0)
    started: list[int] = []

    class CountingPool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            started.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(runner, "ProcessPoolExecutor", CountingPool)
    return started


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Paths whose facts were computed by parsing (not the cache, not the pre-filter), in the
    pool or in this process, reported and loaded alike."""
    seen: list[Path] = []
    real_compute, real_for = engine.compute_facts, engine.facts_for

    def compute(*args: object, **kwargs: object) -> Iterator[runner.FactsOutcome]:
        for outcome in real_compute(*args, **kwargs):  # type: ignore[arg-type]
            if outcome.parsed:
                seen.append(outcome.path)
            yield outcome

    def facts_for(*args: object, **kwargs: object) -> runner.FactsOutcome:
        outcome = real_for(*args, **kwargs)  # type: ignore[arg-type]
        if outcome.parsed:
            seen.append(outcome.path)
        return outcome

    monkeypatch.setattr(engine, "compute_facts", compute)
    monkeypatch.setattr(engine, "facts_for", facts_for)
    monkeypatch.setattr(loading, "facts_for", facts_for)  # the index's loads
    yield seen


def _render(root: Path, *, jobs: int, use_cache: bool) -> list[str]:
    """Everything a diagnostic says (ranges, message, fix, related), one line each."""
    analysis = analyze([root], cwd=root, jobs=jobs, use_cache=use_cache, fix_planner=fix_planner)
    return [repr(d) for d in analysis.diagnostics]


def _cache_entries(root: Path) -> dict[str, bytes]:
    """The facts cache's rows: content key -> pickled facts (each row's tag checked and
    taken off: an entry that does not verify maps to b"")."""
    files = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    if not files:
        return {}
    [db_path] = files
    seal = sealer(db_path.parent, db_path.name)
    assert seal is not None
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute("SELECT k, v FROM facts").fetchall()
    finally:
        db.close()
    return {k: seal.open(k, v) or b"" for k, v in rows}


def _seal(root: Path, key: str, blob: bytes) -> bytes:
    """``blob`` tagged as the facts store's entry ``key`` would be."""
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    seal = sealer(db_path.parent, db_path.name)
    assert seal is not None
    return seal.seal(key, blob)


def _set_entry(root: Path, key: str, blob: bytes) -> None:
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    db = sqlite3.connect(db_path)
    with db:
        db.execute("UPDATE facts SET v = ? WHERE k = ?", (blob, key))
    db.close()


@pytest.mark.parametrize("name", _cases())
def test_same_findings_with_cache_and_jobs(
    name: str, tmp_path: Path, pool_always: list[int], parses: list[Path]
) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    reference = _render(root, jobs=1, use_cache=False)
    assert not (root / CACHE_DIR).exists()
    assert pool_always == []
    assert _render(root, jobs=2, use_cache=False) == reference  # the pool, no cache
    assert pool_always == [1]
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference  # cold: fills the cache
    cold_parses = len(parses)
    assert _cache_entries(root) or cold_parses == 0
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference  # warm, in the pool's place
    assert _render(root, jobs=1, use_cache=True) == reference  # warm, one job
    assert parses == []
    # The fixture's own expectation still holds, read the way tests/test_check_fixtures does.
    expected = (CASES / name / "expected.txt").read_text().splitlines()
    analysis = analyze([root], cwd=root, jobs=2, use_cache=True)
    got = sorted(
        f"{d.path}:{d.line}:{d.column}: {d.code} {d.severity} {d.confidence}"
        for d in analysis.diagnostics
    )
    assert got == expected


# -- a small project with cross-file inheritance and enough files for several pool chunks --

BASE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim, init_cache=True):
        super().__init__()
        self.dim = dim
        if init_cache:
            self.register_buffer("cache", self._build(dim), persistent=False)

    def _build(self, dim):
        return torch.arange(dim).float().cos()

    def forward(self, x):
        return x * self.cache
"""

CHILD = """\
from pkg.base import Base


class Child{i}(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.register_buffer("cache", self._build(dim), persistent=False)
"""

PLAIN = """\
def helper_{i}(x):
    return x + {i}
"""


def _project(root: Path, children: int = 12, plain: int = 60) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    for i in range(children):
        (pkg / f"child{i}.py").write_text(CHILD.format(i=i))
    for i in range(plain):
        (pkg / f"plain{i}.py").write_text(PLAIN.format(i=i))
    return root


def test_warm_run_reparses_only_the_edited_file(
    tmp_path: Path, pool_always: list[int], parses: list[Path]
) -> None:
    root = _project(tmp_path / "proj")
    reference = _render(root, jobs=1, use_cache=False)
    assert len(reference) == 12  # every child registers the buffer again
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference
    assert len(parses) == 13  # base + 12 children; the 60 class-less files are pre-filtered
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference
    assert parses == []

    edited = root / "pkg" / "child3.py"
    edited.write_text(edited.read_text() + "\n# an edit\n")
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference
    assert parses == [edited]
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference
    assert parses == []

    # An edit that changes findings is seen, and still only that file is parsed.
    (root / "pkg" / "base.py").write_text(BASE.replace('"cache"', '"table"'))
    parses.clear()
    changed = _render(root, jobs=2, use_cache=True)
    assert parses == [root / "pkg" / "base.py"]
    assert changed == _render(root, jobs=1, use_cache=False)
    assert changed != reference


def _cli(root: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "initlint", "check", "--format", "json", "--jobs", "2", *extra],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _valid_cache(root: Path) -> dict[str, bytes]:
    entries = _cache_entries(root)
    for key, blob in entries.items():
        assert isinstance(pickle.loads(blob), ModuleFacts), key
    leftovers = [p for p in (root / CACHE_DIR).rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []
    return entries


def test_concurrent_runs_leave_a_valid_cache(tmp_path: Path, parses: list[Path]) -> None:
    # 50 files to parse: more than runner.POOL_THRESHOLD, so each run uses its pool.
    root = _project(tmp_path / "proj", children=49, plain=40)
    reference = _cli(root, "--no-cache").communicate()
    assert json.loads(reference[0])  # findings, as JSON
    for _ in range(2):  # two cold races, then two warm ones
        shutil.rmtree(root / CACHE_DIR, ignore_errors=True)
        for _warm in range(2):
            runs = [_cli(root), _cli(root)]
            outs = [r.communicate() for r in runs]
            for run, (out, err) in zip(runs, outs, strict=True):
                assert run.returncode == 1, err  # 1: there are findings
                assert "Traceback" not in err
                assert out == reference[0]
            assert len(_valid_cache(root)) == 50  # base + 49 children
    parses.clear()
    analysis = analyze([root], cwd=root, jobs=2, use_cache=True)
    assert parses == []  # everything came from the cache the racing runs wrote
    assert len(analysis.diagnostics) == 49


@pytest.mark.parametrize(
    "damage", ["garbage", "truncated", "foreign", "empty", "sealed-foreign", "other-key"]
)
def test_corrupt_entry_is_ignored_and_rewritten(
    tmp_path: Path, damage: str, parses: list[Path]
) -> None:
    root = _project(tmp_path / "proj", children=3, plain=2)
    reference = _render(root, jobs=1, use_cache=True)
    base = root / "pkg" / "base.py"
    # base.py's entry: the one defining Base
    [(entry, good)] = [
        (key, blob)
        for key, blob in _cache_entries(root).items()
        if any(c.name == "Base" for c in pickle.loads(blob).classes)
    ]
    _set_entry(
        root,
        entry,
        {
            "garbage": os.urandom(512),
            "truncated": good[: len(good) // 2],
            "foreign": pickle.dumps({"not": "facts"}),
            "empty": b"",
            # tagged by this user's key: verifies, then is not facts
            "sealed-foreign": _seal(root, entry, pickle.dumps({"not": "facts"})),
            # a good entry of another key, moved here: its tag names the other key
            "other-key": _seal(root, "0" * 40, good),
        }[damage],
    )
    parses.clear()
    assert _render(root, jobs=1, use_cache=True) == reference
    assert parses == [base]  # ignored, so read again...
    assert isinstance(pickle.loads(_cache_entries(root)[entry]), ModuleFacts)  # ...rewritten
    parses.clear()
    assert _render(root, jobs=1, use_cache=True) == reference
    assert parses == []


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", children=2, plain=1)
    _render(root, jobs=1, use_cache=False)
    assert not (root / CACHE_DIR).exists()


def test_cache_entries_are_small(tmp_path: Path) -> None:
    """Facts keep the module text and read only constructors up front: an entry is about
    the size of its file, not several times it (it was 430 KB for a 3,000-line file)."""
    root = tmp_path / "proj"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    methods = "".join(
        textwrap.dedent(
            f"""
            def step_{i}(self, x, y=None):
                if y is None:
                    y = self.table[{i}] * torch.ones(4)
                z = self.proj(x).float().softmax(-1) + y
                return self.out(z, scale={i}.5, mode="m{i}")
            """
        ).replace("\n", "\n    ")
        for i in range(500)
    )
    source = f"import torch\n\n\nclass Big(torch.nn.Module):{methods}\n"
    (pkg / "big.py").write_text(source)
    analyze([root], cwd=root, jobs=1, use_cache=True)
    [entry] = _cache_entries(root).values()
    assert len(entry) < 2 * len(source.encode())


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "folder"])
def test_damaged_cache_file_is_replaced(tmp_path: Path, damage: str, parses: list[Path]) -> None:
    """A facts file that is not a database (or a broken one) reads as no cache; the run
    rebuilds it, and the next run reads everything from it."""
    root = _project(tmp_path / "proj", children=3, plain=2)
    reference = _render(root, jobs=1, use_cache=True)
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    good = db_path.read_bytes()
    assert len(good) > 4096
    db_path.unlink()
    if damage == "folder":  # cannot be replaced: the run goes on without a cache
        db_path.mkdir()
    else:
        db_path.write_bytes(
            {"garbage": os.urandom(8192), "truncated": good[:4096], "empty": b""}[damage]
        )
    parses.clear()
    assert _render(root, jobs=1, use_cache=True) == reference
    assert len(parses) == 4  # base + 3 children, read again
    parses.clear()
    assert _render(root, jobs=2, use_cache=True) == reference
    if damage == "folder":
        assert db_path.is_dir() and len(parses) == 4
    else:
        assert parses == []  # rebuilt by the run before
        assert len(_valid_cache(root)) == 4


def test_locked_cache_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[Path]
) -> None:
    """Another process holding the write lock past the timeout: this run reads what it
    can, skips its writes and gives the same findings."""
    from initlint import cache as cache_module

    monkeypatch.setattr(cache_module, "_BUSY_TIMEOUT", 0.05)
    root = _project(tmp_path / "proj", children=3, plain=2)
    reference = _render(root, jobs=1, use_cache=True)
    (root / "pkg" / "child1.py").write_text(CHILD.format(i=1) + "# edited\n")
    [db_path] = sorted((root / CACHE_DIR).glob("facts-*.sqlite"))
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        parses.clear()
        assert _render(root, jobs=1, use_cache=True) == reference
        assert len(parses) >= 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    parses.clear()
    assert _render(root, jobs=1, use_cache=True) == reference
    assert parses == [root / "pkg" / "child1.py"]  # its entry was not written while locked
    parses.clear()
    assert _render(root, jobs=1, use_cache=True) == reference
    assert parses == []


def test_checking_while_the_pool_reads_waits_for_later_files(
    tmp_path: Path, pool_always: list[int], parses: list[Path]
) -> None:
    """Files are checked as their chunk arrives; a base class in a file of a later chunk
    (``zbase.py`` sorts after every child) is waited for, not read a second time."""
    root = _project(tmp_path / "proj", children=30, plain=20)
    base = root / "pkg" / "base.py"
    base.rename(root / "pkg" / "zbase.py")
    for child in (root / "pkg").glob("child*.py"):
        child.write_text(child.read_text().replace("pkg.base", "pkg.zbase"))
    reference = _render(root, jobs=1, use_cache=False)
    assert len(reference) == 30
    parses.clear()
    assert _render(root, jobs=2, use_cache=False) == reference
    assert pool_always == [1]
    assert sorted(parses) == sorted(set(parses))  # each file parsed once
    assert len(parses) == 31


def test_report_file_that_shares_a_module_name_wins_it(tmp_path: Path) -> None:
    """``pkg/mod.py`` and ``pkg/mod/__init__.py`` both name ``pkg.mod``. Checking only the
    package, its ``Base`` is the one a child (checked first) inherits, as when all report
    modules were indexed before any check."""
    root = tmp_path / "proj"
    (root / "pkg" / "mod").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text(
        "from torch import nn\n\n\nclass Base(nn.Module):\n    pass\n"
    )
    (root / "pkg" / "mod" / "__init__.py").write_text(BASE)
    (root / "pkg" / "a_child.py").write_text(CHILD.format(i=0).replace("pkg.base", "pkg.mod"))
    report = [root / "pkg" / "a_child.py", root / "pkg" / "mod" / "__init__.py"]
    analysis = analyze(report, cwd=root, jobs=1, use_cache=False)
    assert [d.code for d in analysis.diagnostics] == ["IL001"]
    assert analysis.diagnostics[0].path.endswith("a_child.py")


@pytest.mark.parametrize("count", [1, 7, 48, 100, 366, 3231])
def test_chunks_keep_every_file_once_in_order(count: int) -> None:
    todo = [Path(f"f{i}.py") for i in range(count)]
    chunks = runner._chunks(todo, 2)
    assert [p for chunk in chunks for p in chunk] == todo
    sizes = [len(c) for c in chunks]
    assert max(sizes) <= 64
    if count >= 366:  # small chunks first (the check starts sooner) and last
        assert sizes[:2] == sizes[-2:] == [runner.SMALL_CHUNK] * 2
        assert max(sizes) > runner.SMALL_CHUNK


def test_console_entry_ends_without_teardown_yet_loses_nothing(
    tmp_path: Path, parses: list[Path]
) -> None:
    """``python -m initlint check`` ends with os._exit after a finished check: all output is
    there (through a pipe), the exit code is kept, no pool worker outlives the run (a worker
    left waiting would hold the pipe open and hang this test) and the cache is whole."""
    root = _project(tmp_path / "proj", children=49, plain=40)
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    summary = "Found 49 diagnostics in 49 of 91 files checked."
    for extra, code in (((), 1), (("--exit-zero",), 0)):
        done = subprocess.run(
            [sys.executable, "-m", "initlint", "check", "--jobs", "2", *extra],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == code, done.stderr
        assert done.stdout.count(": IL001 ") == 49
        assert done.stdout.splitlines()[-1].startswith(summary)
    out, err = _cli(root).communicate(timeout=120)  # JSON
    assert len(json.loads(out)) == 49, err
    parses.clear()
    analyze([root], cwd=root, jobs=1, use_cache=True)
    assert parses == []  # every entry the runs computed was written before they ended


@pytest.fixture
def split_tail(monkeypatch: pytest.MonkeyPatch, pool_always: list[int]) -> list[int]:
    """Fork a copy for the second half of whatever is left once the pool is done, however
    few files that is. The list counts the splits."""
    monkeypatch.setattr(engine, "TAIL_SPLIT_MIN", 2)
    splits: list[int] = []
    real = engine.check_in_two

    def counting(rest: list[Path], *args: Any) -> None:
        splits.append(len(rest))
        real(rest, *args)

    monkeypatch.setattr(engine, "check_in_two", counting)
    return splits


def _render_reusing(root: Path, *, jobs: int, use_cache: bool = True) -> list[str]:
    analysis = analyze(
        [root],
        cwd=root,
        jobs=jobs,
        use_cache=use_cache,
        fix_planner=fix_planner,
        reuse_results=True,
    )
    return [repr(d) for d in analysis.diagnostics]


@pytest.mark.parametrize("name", _cases())
def test_split_check_gives_the_same_findings(
    name: str, tmp_path: Path, split_tail: list[int]
) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    reference = _render(root, jobs=1, use_cache=False)
    assert _render_reusing(root, jobs=2) == reference  # cold, maybe split
    assert _render_reusing(root, jobs=2) == reference  # warm


def test_split_check_on_a_project_merges_results_and_cache(
    tmp_path: Path, split_tail: list[int], parses: list[Path]
) -> None:
    root = _project(tmp_path / "proj", children=30, plain=20)
    base = root / "pkg" / "base.py"
    base.rename(root / "pkg" / "zbase.py")  # needed by every child, read last
    for child in (root / "pkg").glob("child*.py"):
        child.write_text(child.read_text().replace("pkg.base", "pkg.zbase"))
    reference = _render(root, jobs=1, use_cache=False)
    parses.clear()
    assert _render_reusing(root, jobs=2) == reference
    assert split_tail and split_tail[0] >= 2
    # The copy's half was merged into the results cache and the facts cache: a warm run
    # parses nothing and reuses every file's results.
    parses.clear()
    assert _render_reusing(root, jobs=2) == reference
    assert parses == []
    edited = root / "pkg" / "zbase.py"
    edited.write_text(edited.read_text().replace('"cache"', '"table"'))
    changed = _render_reusing(root, jobs=2)
    assert changed == _render(root, jobs=1, use_cache=False) != reference


def test_split_check_falls_back_when_the_copy_fails(
    tmp_path: Path, split_tail: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "proj", children=30, plain=20)
    reference = _render(root, jobs=1, use_cache=False)
    parent = os.getpid()
    real = engine.check_module

    def fails_in_the_copy(*args: Any) -> list[Any]:
        if os.getpid() != parent:
            raise RuntimeError("the copy fails")
        return real(*args)

    monkeypatch.setattr(engine, "check_module", fails_in_the_copy)
    assert _render_reusing(root, jobs=2, use_cache=False) == reference
    assert split_tail


def test_early_pool_with_reused_results(
    tmp_path: Path, pool_always: list[int], parses: list[Path]
) -> None:
    """With no facts cache the pool starts before the results cache is read, for every
    report file; when the results cache then answers most files, the extra outcomes are
    only unused, and the findings stay the same."""
    root = _project(tmp_path / "proj", children=12, plain=20)
    reference = _render(root, jobs=1, use_cache=False)
    assert _render_reusing(root, jobs=2) == reference
    started = len(pool_always)
    for db in (root / CACHE_DIR).glob("facts-*.sqlite*"):
        db.unlink()
    (root / "pkg" / "child3.py").write_text(CHILD.format(i=3) + "# edited\n")
    parses.clear()
    assert _render_reusing(root, jobs=2) == reference
    assert len(pool_always) == started + 1  # the early pool
    assert len(parses) == 13  # it read every class file, not only the edited one


def test_two_ends_give_every_position_once_front_and_back() -> None:
    ends = split.TwoEnds(7)
    got = [ends.take(front=i % 3 != 0) for i in range(9)]
    ends.close()
    assert got == [6, 0, 1, 5, 2, 3, 4, None, None]


def test_two_ends_are_shared_with_a_forked_copy() -> None:
    ends = split.TwoEnds(200)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy: take from the back until the ends meet
        taken = []
        while (pos := ends.take(front=False)) is not None:
            taken.append(pos)
        os.write(write_fd, pickle.dumps(taken))
        os._exit(0)
    os.close(write_fd)
    mine = []
    while (pos := ends.take(front=True)) is not None:
        mine.append(pos)
    with os.fdopen(read_fd, "rb") as pipe:
        theirs = pickle.loads(pipe.read())
    os.waitpid(pid, 0)
    ends.close()
    assert sorted(mine + theirs) == list(range(200))  # each position once
    assert mine == list(range(len(mine))) and theirs == list(range(199, len(mine) - 1, -1))


def test_two_ends_outlive_a_copy_that_dies_holding_the_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ends = split.TwoEnds(3)
    pid = os.fork()
    if pid == 0:  # dies inside take(), between taking the lock and giving it back
        monkeypatch.setattr(os, "pread", lambda *args: os._exit(0))
        ends.take(front=False)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert status == 0
    assert [ends.take(front=True) for _ in range(4)] == [0, 1, 2, None]
    ends.close()


def test_split_check_takes_files_from_both_ends(
    tmp_path: Path, split_tail: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # This process checks a run from the front of what is left, the copy one from the back:
    # whichever files take longer, both end when they meet.
    root = _project(tmp_path / "proj", children=24, plain=40)
    parent = os.getpid()
    here: list[int] = []
    real = split.TwoEnds.take

    def recording(ends: split.TwoEnds, front: bool) -> int | None:
        got = real(ends, front)
        if os.getpid() == parent and got is not None:
            assert front
            here.append(got)
        return got

    monkeypatch.setattr(split.TwoEnds, "take", recording)
    reference = _render(root, jobs=1, use_cache=False)
    assert _render_reusing(root, jobs=2) == reference
    assert split_tail and here == list(range(len(here))) and 0 < len(here) <= split_tail[0]


def test_the_check_imports_and_runs_where_there_are_no_record_locks(tmp_path: Path) -> None:
    # No fcntl (Windows): the driver still imports, and a split is not tried.
    root = _project(tmp_path / "proj", children=2, plain=0)
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "from initlint.driver import split\n"
        "ran = []\n"
        "class Run:\n    def check(self, f): ran.append(f)\n"
        "split.check_in_two(['a', 'b'], Run(), False)\n"
        "assert ran == ['a', 'b'], ran\n"
        "from initlint.cli import main\n"
        "main(['check', '--exit-zero', '--no-cache', sys.argv[1]])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": IL001 ") == 2

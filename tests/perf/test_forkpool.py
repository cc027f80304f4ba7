"""initlint.driver.forkpool: the fact pass's pool of plain forks (POSIX)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

import initlint.driver.run as engine
from initlint.driver import analyze
from initlint.driver import factpass as runner
from initlint.driver.forkpool import BrokenForkPool, ForkPool

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "check"


def _square(n: int) -> tuple[int, int, int]:
    return n, n * n, os.getpid()


def _fails_on_7(n: int) -> int:
    if n == 7:
        raise ValueError("seven")
    return n


def _dies_on_5(n: int) -> int:
    if n == 5:
        os._exit(3)  # the worker is gone mid-task
    return n


def _unpicklable(n: int) -> object:
    return (lambda: n) if n == 2 else n


def _slow(n: int) -> int:
    time.sleep(0.05)
    return n


def _big_then_clock(n: int) -> object:
    return b"x" * 600_000 if n == 0 else time.monotonic()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipe sizes are Linux's")
def test_a_worker_goes_on_while_its_large_result_waits_to_be_read() -> None:
    # A chunk's facts (~0.7 MB) fit the widened result pipe: the worker starts its next
    # task at once instead of waiting for this process to read (it reads only when it
    # needs a result).
    with ForkPool(max_workers=1) as pool:
        big, clock = pool.submit(_big_then_clock, 0), pool.submit(_big_then_clock, 1)
        pool.start()
        time.sleep(1.0)
        reading_from = time.monotonic()
        assert big.result() == b"x" * 600_000
        started = clock.result()
    assert isinstance(started, float) and started < reading_from


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_every_task_comes_back_by_number(workers: int) -> None:
    with ForkPool(max_workers=workers) as pool:
        futures = [pool.submit(_square, n) for n in range(40)]
        pool.start()
        results = [f.result() for f in futures]
    assert [(n, sq) for n, sq, _ in results] == [(n, n * n) for n in range(40)]  # type: ignore[misc]
    pids = {pid for _, _, pid in results}  # type: ignore[misc]
    assert os.getpid() not in pids and len(pids) <= workers


def test_a_failing_task_fails_alone() -> None:
    with ForkPool(max_workers=2) as pool:
        futures = [pool.submit(_fails_on_7, n) for n in range(12)]
        pool.start()
        for n, future in enumerate(futures):
            if n == 7:
                with pytest.raises(BrokenForkPool):
                    future.result()
            else:
                assert future.result() == n


def test_an_unpicklable_result_fails_alone() -> None:
    with ForkPool(max_workers=2) as pool:
        futures = [pool.submit(_unpicklable, n) for n in range(5)]
        pool.start()
        assert [f.result() for n, f in enumerate(futures) if n != 2] == [0, 1, 3, 4]
        with pytest.raises(BrokenForkPool):
            futures[2].result()


def test_a_dead_worker_loses_only_its_task() -> None:
    with ForkPool(max_workers=2) as pool:
        futures = [pool.submit(_dies_on_5, n) for n in range(20)]
        pool.start()
        got = {}
        for n, future in enumerate(futures):
            try:
                got[n] = future.result()
            except BrokenForkPool:
                got[n] = None
    assert got[5] is None
    assert all(got[n] == n for n in range(20) if n != 5)


def test_done_does_not_wait_and_shutdown_leaves_no_worker() -> None:
    pool = ForkPool(max_workers=2)
    futures = [pool.submit(_slow, n) for n in range(6)]
    pool.start()
    started = time.monotonic()
    assert not all(f.done() for f in futures)
    assert time.monotonic() - started < 0.04
    pids = list(pool._pids)
    pool.shutdown()  # with tasks left: the workers end, none is left behind
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_submit_after_start_is_refused() -> None:
    with ForkPool(max_workers=1) as pool:
        pool.submit(_square, 1)
        pool.start()
        with pytest.raises(RuntimeError):
            pool.submit(_square, 2)


@pytest.mark.parametrize("name", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_fact_pass_in_fork_pool_gives_the_same_findings(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    reference = [repr(d) for d in analyze([root], cwd=root, jobs=1, use_cache=False).diagnostics]
    monkeypatch.setattr(runner, "POOL_THRESHOLD", 0)
    monkeypatch.setattr(runner, "ProcessPoolExecutor", None)  # the default: ForkPool
    monkeypatch.setattr(engine, "TAIL_SPLIT_MIN", 2)
    for reuse in (False, True):
        for _ in range(2):  # cold, then warm
            got = analyze([root], cwd=root, jobs=2, use_cache=True, reuse_results=reuse)
            assert [repr(d) for d in got.diagnostics] == reference
        shutil.rmtree(root / ".initlint_cache")

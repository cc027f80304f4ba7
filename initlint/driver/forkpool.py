"""A process pool made of plain forks, for the fact pass (POSIX only).

concurrent.futures' pool costs ~23 ms of imports (multiprocessing, logging) before its
first worker starts: a tenth of the fact pass on a few hundred files. This pool does only
what the fact pass needs: run one picklable-result function over a list of tasks known
before the workers start, in any order, and hand the results back by task number.

Workers take task numbers from one pipe (4-byte records, written before they start, so
every read gets a whole record) and send ``(number, ok, result)`` pickles, length-prefixed,
each on its own pipe. A task whose worker died, or whose result did not pickle, fails: its
future raises :class:`BrokenForkPool` (a RuntimeError, as concurrent.futures' is), and the
caller reads those files itself.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
from collections.abc import Callable
from typing import Any, Protocol

_INDEX = struct.Struct("<I")
_SIZE = struct.Struct("<Q")
_MAX_TASKS = 65536 // _INDEX.size  # the task pipe must hold them all before any worker reads


PIPE_SIZE = 1 << 20  # Linux's default cap for an unprivileged process


def _widen(fd: int) -> None:
    """Let a result pipe hold a whole chunk's facts (~0.7 MB for 45 files): at the default
    64 KiB a worker stalled on every write until the main process, busy checking, read it,
    and vLLM's layers took ~0.1 s longer to read. Linux only; elsewhere a no-op."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except (ImportError, OSError):  # not Linux, or a lower cap: the default size then
        pass


class PoolFuture(Protocol):
    """What the fact pass asks of a task's future (ours or concurrent.futures')."""

    def result(self) -> object: ...
    def done(self) -> bool: ...


class BrokenForkPool(RuntimeError):
    """A worker died, or a task's result could not be sent back."""


class ForkFuture:
    def __init__(self, pool: ForkPool, number: int) -> None:
        self._pool = pool
        self._number = number

    def result(self) -> object:
        return self._pool._result(self._number)

    def done(self) -> bool:
        return self._pool._done(self._number)


class ForkPool:
    """``submit`` every task, then ``start``; ``shutdown`` (or the context manager's exit)
    waits for the workers."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max(1, max_workers)
        self._tasks: list[tuple[Callable[[Any], object], object]] = []
        self._results: dict[int, tuple[bool, object]] = {}
        self._buffers: dict[int, bytearray] = {}  # result pipe -> bytes not parsed yet
        self._pids: list[int] = []
        self._started = False

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def submit(self, fn: Callable[[Any], object], arg: object) -> ForkFuture:
        if self._started:
            raise RuntimeError("ForkPool: submit after start")
        if len(self._tasks) >= _MAX_TASKS:
            raise RuntimeError("ForkPool: too many tasks")
        self._tasks.append((fn, arg))
        return ForkFuture(self, len(self._tasks) - 1)

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        task_r, task_w = os.pipe()
        try:
            os.write(task_w, b"".join(_INDEX.pack(i) for i in range(len(self._tasks))))
        finally:
            os.close(task_w)
        try:
            for _ in range(min(self.max_workers, len(self._tasks))):
                out_r, out_w = os.pipe()
                _widen(out_w)
                pid = os.fork()
                if pid == 0:  # pragma: no cover - runs in the worker
                    self._serve(task_r, out_r, out_w)
                os.close(out_w)
                self._pids.append(pid)
                self._buffers[out_r] = bytearray()
        finally:
            os.close(task_r)

    def _serve(self, task_r: int, out_r: int, out_w: int) -> None:  # pragma: no cover
        status = 1
        try:
            os.close(out_r)
            for fd in self._buffers:  # the other workers' pipes
                os.close(fd)
            while True:
                record = os.read(task_r, _INDEX.size)
                if not record:
                    break
                (number,) = _INDEX.unpack(record)
                fn, arg = self._tasks[number]
                try:
                    data = pickle.dumps((number, True, fn(arg)), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:  # noqa: BLE001 - that task fails, the others go on
                    data = pickle.dumps((number, False, None))
                frame = memoryview(_SIZE.pack(len(data)) + data)
                while frame:
                    frame = frame[os.write(out_w, frame) :]
            status = 0
        finally:
            os._exit(status)

    def _done(self, number: int) -> bool:
        if number in self._results:  # asked before every file: no select for what came
            return True
        self.start()
        self._drain(block=False)
        return number in self._results or not self._buffers

    def _result(self, number: int) -> object:
        self.start()
        while number not in self._results and self._buffers:
            self._drain(block=True)
        got = self._results.get(number)
        if got is None or not got[0]:
            raise BrokenForkPool(f"task {number} of the fact pass did not come back")
        return got[1]

    def _drain(self, block: bool) -> None:
        """Read what the workers sent (waiting for something when ``block``)."""
        ready, _, _ = select.select(list(self._buffers), [], [], None if block else 0)
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:  # that worker is gone
                os.close(fd)
                del self._buffers[fd]
                continue
            buf = self._buffers[fd]
            buf += chunk
            while len(buf) >= _SIZE.size:
                (size,) = _SIZE.unpack_from(buf)
                if len(buf) < _SIZE.size + size:
                    break
                number, ok, value = pickle.loads(buf[_SIZE.size : _SIZE.size + size])
                del buf[: _SIZE.size + size]
                self._results[number] = (ok, value)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        for fd in list(self._buffers):
            os.close(fd)  # a worker still writing gets EPIPE and ends
        self._buffers.clear()
        for pid in self._pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self._pids.clear()

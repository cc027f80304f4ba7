"""Peak-memory meters for one construction.

CUDA: the caching allocator's own high-water mark (exact for tensor memory on that device).
CPU: a sampling thread reads, every millisecond, the bytes malloc has handed out (glibc's
``mallinfo2``: in-use heap plus mmapped blocks) and reports the peak above the level before.
Unlike RSS, this also sees memory that malloc reuses from earlier frees, and untouched pages.
It misses spikes shorter than the sampling period (up to the 5 ms GIL switch interval while
pure-Python code runs). Where mallinfo2 is missing (musl, macOS), the resident set size from
/proc/self/statm is sampled instead, which cannot see reused memory; without /proc, the
process-wide high-water mark ``ru_maxrss`` is used, which only shows growth above the process'
previous peak.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

_STATM = "/proc/self/statm"


class PeakMeter(Protocol):
    def start(self) -> None: ...

    def stop(self) -> int | None:
        """Stop measuring; return the peak bytes above the level at ``start`` (None: unmeasured)."""
        ...

    def abort(self) -> None:
        """Stop measuring without a result (the construction failed); never raises."""
        ...


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo2() -> Callable[[], int] | None:
    """A reader of malloc's bytes in use, or None where glibc's mallinfo2 is missing."""
    try:
        libc = ctypes.CDLL(None)
        fn = libc.mallinfo2
    except (OSError, AttributeError):
        return None
    fn.restype = _MallInfo2
    fn.argtypes = []

    def read() -> int:
        info = fn()
        return int(info.uordblks) + int(info.hblkhd)

    return read


def _read_rss(fd: int, page_size: int) -> int:
    fields = os.pread(fd, 128, 0).split()
    return int(fields[1]) * page_size


def _max_rss() -> int:
    try:
        import resource
    except ImportError:  # Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


class CpuPeakMeter:
    """Samples RSS on a background thread (see the module docstring for the limits)."""

    def __init__(self, interval: float = 0.001) -> None:
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fd = -1
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._baseline = 0
        self._peak = 0
        self._read: Callable[[], int] | None = None

    def start(self) -> None:
        self._read = _mallinfo2()
        if self._read is None:
            try:
                fd = os.open(_STATM, os.O_RDONLY)
            except OSError:
                self._baseline = _max_rss()
                return
            self._fd = fd
            self._read = lambda: _read_rss(fd, self._page)
        self._baseline = self._peak = self._read()
        self._thread = threading.Thread(target=self._run, name="initlint-peak", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def _sample(self) -> None:
        assert self._read is not None
        value = self._read()
        if value > self._peak:
            self._peak = value

    def stop(self) -> int:
        if self._read is None:
            return max(0, _max_rss() - self._baseline)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        return max(0, self._peak - self._baseline)

    def abort(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class CudaPeakMeter:
    """torch.cuda.max_memory_allocated after a reset, minus what was allocated before."""

    def __init__(self, torch: Any, device: Any) -> None:
        self._cuda = torch.cuda
        self._device = device
        self._baseline = 0

    def start(self) -> None:
        self._cuda.synchronize(self._device)
        self._cuda.reset_peak_memory_stats(self._device)
        self._baseline = int(self._cuda.memory_allocated(self._device))

    def stop(self) -> int:
        self._cuda.synchronize(self._device)
        return max(0, int(self._cuda.max_memory_allocated(self._device)) - self._baseline)

    def abort(self) -> None:
        pass


class NoPeakMeter:
    """The meta device: tensors there have no storage, so there is no peak to measure."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        return None

    def abort(self) -> None:
        pass

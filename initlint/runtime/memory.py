"""Peak-memory meters for one construction.

CUDA: the caching allocator's own high-water mark (exact for tensor memory on that device).
CPU: a sampling thread reads the resident set size from /proc/self/statm every millisecond and
reports max(RSS) - RSS before. RSS sees every allocation (not only torch's) but only pages that
were touched, misses spikes shorter than the sampling period (up to the 5 ms GIL switch interval
while pure-Python code runs), and cannot see memory that malloc reuses from earlier frees.
Without /proc (macOS), the process-wide high-water mark ``ru_maxrss`` is used, which only shows
growth above the process' previous peak.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Protocol

_STATM = "/proc/self/statm"


class PeakMeter(Protocol):
    def start(self) -> None: ...

    def stop(self) -> int:
        """Stop measuring; return the peak bytes above the level at ``start``."""
        ...

    def abort(self) -> None:
        """Stop measuring without a result (the construction failed); never raises."""
        ...


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

    def start(self) -> None:
        try:
            self._fd = os.open(_STATM, os.O_RDONLY)
        except OSError:
            self._fd = -1
            self._baseline = _max_rss()
            return
        self._baseline = self._peak = _read_rss(self._fd, self._page)
        self._thread = threading.Thread(target=self._run, name="initlint-rss", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def _sample(self) -> None:
        rss = _read_rss(self._fd, self._page)
        if rss > self._peak:
            self._peak = rss

    def stop(self) -> int:
        if self._fd < 0:
            return max(0, _max_rss() - self._baseline)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
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

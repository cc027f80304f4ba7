"""A one-line progress counter on stderr for long runs; silent unless stderr is a terminal.

Usage (the engine owns the loop)::

    with Progress(total=len(files), label="checking") as progress:
        for f in files:
            ...
            progress.advance()

It redraws one line with ``\\r`` and erases it on close, so the report that follows starts on a
clean line. No colour and no dependency; redraws are throttled to ``interval`` seconds.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

_ERASE = "\r\x1b[K"


def stream_is_terminal(stream: TextIO) -> bool:
    """True when ``stream`` is an interactive terminal that understands ``\\r`` and ANSI erase."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # closed or fake stream
        return False
    return tty and os.environ.get("TERM") != "dumb"


class Progress:
    """Counts ``advance()`` calls up to ``total`` and shows ``label: done/total (pct%)``.

    ``enabled=None`` means "on when ``stream`` is a terminal". A disabled reporter writes
    nothing at all. Nothing is drawn before ``delay`` seconds have passed, so quick runs
    stay quiet even on a terminal.
    """

    def __init__(
        self,
        total: int,
        enabled: bool | None = None,
        *,
        label: str = "checking",
        stream: TextIO | None = None,
        delay: float = 0.3,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(0, total)
        self.enabled = stream_is_terminal(self.stream) if enabled is None else enabled
        self.label = label
        self.done = 0
        self._clock = clock
        self._start = clock()
        self._delay = delay
        self._interval = interval
        self._last_draw: float | None = None
        self._closed = False

    def advance(self, n: int = 1) -> None:
        """Record ``n`` more finished items and redraw if due."""
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        if not self.enabled or self._closed:
            return
        now = self._clock()
        if now - self._start < self._delay:
            return
        due = self._last_draw is None or now - self._last_draw >= self._interval
        if due or self.done == self.total:
            self._draw(now)

    def close(self) -> None:
        """Erase the line if anything was drawn. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self.enabled and self._last_draw is not None:
            self.stream.write(_ERASE)
            self.stream.flush()

    def line(self) -> str:
        """The text shown for the current count."""
        if not self.total:
            return f"{self.label}: {self.done}"
        pct = 100 * self.done // self.total
        return f"{self.label}: {self.done}/{self.total} ({pct}%)"

    def _draw(self, now: float) -> None:
        self._last_draw = now
        self.stream.write(_ERASE + self.line())
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

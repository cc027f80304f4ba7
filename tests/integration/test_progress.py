"""initlint.progress: a \\r line on a terminal, nothing at all otherwise."""

from __future__ import annotations

import io

import pytest

from initlint.progress import Progress, stream_is_terminal


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_draws_on_a_terminal_and_erases_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    stream, clock = FakeTTY(), Clock()
    progress = Progress(4, stream=stream, clock=clock, delay=0.0, interval=0.0)
    assert progress.enabled
    for _ in range(4):
        clock.now += 1
        progress.advance()
    progress.close()
    out = stream.getvalue()
    frames = out.split("\r\x1b[K")
    assert frames[1:] == [
        "checking: 1/4 (25%)",
        "checking: 2/4 (50%)",
        "checking: 3/4 (75%)",
        "checking: 4/4 (100%)",
        "",  # erased: the report starts on a clean line
    ]
    assert "\n" not in out


def test_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with Progress(3, stream=stream, delay=0.0, interval=0.0) as progress:
        assert not progress.enabled
        progress.advance(3)
    assert stream.getvalue() == ""
    assert progress.done == 3


def test_silent_on_a_dumb_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    assert not stream_is_terminal(FakeTTY())
    assert not Progress(1, stream=FakeTTY()).enabled


def test_explicit_enabled_wins() -> None:
    assert not Progress(1, enabled=False, stream=FakeTTY()).enabled
    stream = io.StringIO()
    with Progress(1, enabled=True, stream=stream, delay=0.0) as progress:
        progress.advance()
    assert stream.getvalue() == "\r\x1b[Kchecking: 1/1 (100%)\r\x1b[K"


def test_quick_runs_draw_nothing_and_redraws_are_throttled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    stream, clock = FakeTTY(), Clock()
    progress = Progress(100, stream=stream, clock=clock, delay=0.5, interval=0.1, label="facts")
    for _ in range(10):  # all within the delay
        clock.now += 0.01
        progress.advance()
    assert stream.getvalue() == ""
    clock.now = 1.0
    progress.advance()  # drawn
    progress.advance()  # same instant: throttled
    clock.now = 1.05
    progress.advance()  # still throttled
    clock.now = 1.2
    progress.advance()  # drawn
    progress.advance(86)  # the last item is always drawn
    progress.close()
    frames = stream.getvalue().split("\r\x1b[K")[1:]
    assert frames == ["facts: 11/100 (11%)", "facts: 14/100 (14%)", "facts: 100/100 (100%)", ""]


def test_close_is_idempotent_and_quiet_if_nothing_was_drawn() -> None:
    stream = FakeTTY()
    progress = Progress(5, enabled=True, stream=stream, delay=10.0)
    progress.advance()
    progress.close()
    progress.close()
    progress.advance()  # after close: ignored
    assert stream.getvalue() == ""


def test_unknown_total_counts_up() -> None:
    stream = io.StringIO()
    with Progress(0, enabled=True, stream=stream, delay=0.0, interval=0.0) as progress:
        progress.advance()
        progress.advance()
    assert stream.getvalue().split("\r\x1b[K")[1:] == ["checking: 1", "checking: 2", ""]


def test_closed_stream_is_not_a_terminal() -> None:
    stream = io.StringIO()
    stream.close()
    assert not stream_is_terminal(stream)

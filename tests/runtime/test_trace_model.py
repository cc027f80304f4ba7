"""The result types and their rendering; no torch needed."""

from __future__ import annotations

import dataclasses

import pytest

from initlint.runtime import InitTrace, Repeat, TraceEvent
from initlint.runtime.model import find_repeats
from initlint.runtime.paths import owner_of
from initlint.runtime.render import format_bytes, render_text, verdict
from initlint.runtime.target import TargetError, parse_target

MiB = 1024 * 1024


def event(kind: str, name: str, size: int, line: int) -> TraceEvent:
    return TraceEvent(kind, name, size, f"/p/m.py:{line}", "m.C")  # type: ignore[arg-type]


def make_trace(*events: TraceEvent) -> InitTrace:
    return InitTrace("m.C", 0.5, 3 * MiB, "cpu", events, find_repeats(events))


def test_find_repeats_groups_by_kind_and_name_in_first_occurrence_order() -> None:
    events = (
        event("call", "C._build", 100, 1),
        event("buffer", "cache", 10, 2),
        event("attribute", "cache", 7, 3),  # another kind: not the same item
        event("call", "C._build", 300, 4),
        event("buffer", "cache", 20, 5),
        event("buffer", "cache", 40, 6),
        event("parameter", "w", 5, 7),
    )
    assert find_repeats(events) == (
        Repeat("call", "C._build", 2, 100, ("/p/m.py:1", "/p/m.py:4")),
        Repeat("buffer", "cache", 3, 30, ("/p/m.py:2", "/p/m.py:5", "/p/m.py:6")),
    )


def test_wasted_bytes_counts_storage_and_calls_once() -> None:
    trace = make_trace(
        event("call", "C._build", 256 * MiB, 1),
        event("buffer", "cache", 128 * MiB, 2),
        event("call", "C._build", 256 * MiB, 3),
        event("buffer", "cache", 256 * MiB, 4),
    )
    assert trace.wasted_bytes == 256 * MiB
    assert verdict(trace) == "verdict: 2 repeated items, 256.0 MiB wasted"
    only_calls = make_trace(event("call", "C.f", 64, 1), event("call", "C.f", 64, 2))
    assert only_calls.wasted_bytes == 64


def test_repeated_names_and_flags() -> None:
    trace = make_trace(event("buffer", "a", 1, 1), event("buffer", "a", 1, 2))
    assert trace.has_repeats
    assert trace.repeated_names("buffer") == {"a"}
    assert trace.repeated_names("call") == frozenset()
    with pytest.raises(ValueError, match="unknown kind"):
        trace.repeated_names("buffers")  # type: ignore[arg-type]
    assert not make_trace(event("buffer", "a", 1, 1)).has_repeats


def test_to_json_keys() -> None:
    trace = make_trace(event("buffer", "a", 1, 1), event("buffer", "a", 2, 2))
    data = trace.to_json()
    assert data == {
        "class": "m.C",
        "seconds": 0.5,
        "peak_bytes": 3 * MiB,
        "device": "cpu",
        "repeated": [
            {
                "kind": "buffer",
                "name": "a",
                "count": 2,
                "bytes": 1,
                "sites": ["/p/m.py:1", "/p/m.py:2"],
            }
        ],
        "events": [
            {"kind": "buffer", "name": "a", "bytes": 1, "site": "/p/m.py:1", "owner": "m.C"},
            {"kind": "buffer", "name": "a", "bytes": 2, "site": "/p/m.py:2", "owner": "m.C"},
        ],
    }


def test_results_are_frozen() -> None:
    trace = make_trace()
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.seconds = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (256 * MiB, "256.0 MiB")],
)
def test_format_bytes(size: int, text: str) -> None:
    assert format_bytes(size) == text


def test_render_text() -> None:
    text = render_text(
        make_trace(event("buffer", "cache", 2048, 1), event("buffer", "cache", 2048, 9))
    )
    lines = text.splitlines()
    assert lines[0] == "traced m.C on cpu: 0.500 s, peak memory 3.0 MiB, 2 events"
    assert lines[1].split() == ["kind", "name", "count", "wasted", "sites"]
    assert lines[2].split() == ["buffer", "cache", "2", "2.0", "KiB", "/p/m.py:1,", "/p/m.py:9"]
    assert lines[-1] == "verdict: 1 repeated item, 2.0 KiB wasted"
    assert render_text(make_trace()).splitlines()[-1] == "verdict: no repeated work"


@pytest.mark.parametrize(
    ("qualname", "module", "owner"),
    [
        ("C.f", "m", "m.C"),
        ("Outer.Inner.f", "m", "m.Outer.Inner"),
        ("C.f.<locals>.g", "m", "m.C"),
        ("C.f.<locals>.<lambda>", None, "C"),
        ("make.<locals>.C.f", "m", "m.make.<locals>.C"),
        ("f", "m", None),
        ("f.<locals>.g", "m", None),
    ],
)
def test_owner_of(qualname: str, module: str | None, owner: str | None) -> None:
    assert owner_of(qualname, module) == owner


def test_parse_target() -> None:
    target = parse_target("pkg.mod:Rope(64, base={'a': 1})")
    assert (target.module, target.expression) == ("pkg.mod", "Rope(64, base={'a': 1})")
    with pytest.raises(TargetError):
        parse_target("pkg.mod")

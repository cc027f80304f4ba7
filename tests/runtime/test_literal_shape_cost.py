"""A project tensor's cost reads its shape (docs/design.md, "Cost classes"): on the
``cost_literal_shape`` fixture, what the checker calls light (a literal list of a few
numbers written out, a one-element tensor) wastes at most SMALL_NUMEL numbers whatever the
arguments, and what it calls heavy or unknown (sizes taken from arguments: a warning
of unknown cost for one dimension, which may be a bias or a table) grows with them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402
from initlint.simulation.torch_knowledge import SMALL_NUMEL  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "cost_literal_shape"


@pytest.fixture
def spans(check_fixture: Callable[[str], Path]) -> ModuleType:
    check_fixture(CASE.name)
    import pkg.spans as m

    return m


def wasted(m: ModuleType, width: int, max_tokens: int, sizes: list[int]) -> dict[str, int]:
    trace = trace_init(lambda: m.ThreeWaySpans(width, max_tokens, sizes))
    return {r.name: r.bytes for r in trace.repeated if r.kind in ("buffer", "attribute")}


def severities() -> dict[str, str]:
    analysis = analyze([CASE], cwd=CASE, jobs=1, use_cache=False)
    lines = (CASE / "pkg" / "spans.py").read_text().splitlines()
    out = {}
    for d in analysis.diagnostics:
        stmt = lines[d.line - 1].strip()
        name = stmt.split('"')[1] if "register_buffer" in stmt else stmt.split("=")[0]
        # (a repeat whose cost is not known says so: "unknown" in place of its confidence)
        sure = "unknown" if "costs is not known here" in d.message else d.confidence
        out[name.removeprefix("self.").strip()] = f"{d.severity} {sure}"
    return out


def test_light_repeats_stay_small_and_heavy_ones_grow(spans: ModuleType) -> None:
    rated = severities()
    assert rated == {
        "bounds": "warning definite",
        "cuts": "warning definite",
        "flag": "warning definite",
        "scratch": "warning unknown",
        "ends": "error definite",
        "scale": "warning unknown",
    }
    small = wasted(spans, 8, 4, [3])
    large = wasted(spans, 4096, 1 << 16, list(range(1000)))
    assert set(small) == set(large) == set(rated)
    for name, severity in rated.items():
        if severity == "warning definite":  # light: small whatever the arguments
            assert large[name] == small[name] <= SMALL_NUMEL * 8, name
        else:
            assert large[name] > 100 * small[name], name

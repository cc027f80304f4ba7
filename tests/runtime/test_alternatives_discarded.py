"""The build a repeat discards, among an ancestor's alternatives (DESIGN §3 "Guards"): on
the ``alternatives_discarded`` fixture, a rebuild under the same test of the object's own
state as the ancestor's branch is rated by what that branch built (runtime: the bytes it
throws away), and one under a call's result, which initlint cannot match, by the heaviest
build that may have run."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "alternatives_discarded"


@pytest.fixture
def trunk(forget_modules: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    copy = forget_modules / "case"
    shutil.copytree(CASE, copy)
    for name in [n for n in sys.modules if n.partition(".")[0] == "pkg"]:
        monkeypatch.delitem(sys.modules, name)  # another fixture's `pkg`
    monkeypatch.syspath_prepend(str(copy))
    import pkg.trunk as m

    return m


def severities() -> dict[tuple[str, int], str]:
    """(class, line) -> severity of WiderTrunk's findings."""
    analysis = analyze([CASE], cwd=CASE, jobs=1, use_cache=False)
    return {
        (cls.rsplit(".", 1)[-1], d.line): d.severity
        for d in analysis.diagnostics
        for cls in d.classes
    }


def wasted(m: ModuleType, name: str) -> int:
    trace = trace_init(lambda: m.WiderTrunk(8))
    return sum(r.bytes for r in trace.repeated if r.name == name)


def branch_line(name: str, last: bool) -> int:
    """The line of WiderTrunk's rebuild of ``name`` in the branch that runs."""
    lines = (CASE / "pkg" / "trunk.py").read_text().splitlines()
    start = next(i for i, t in enumerate(lines) if t.startswith("class WiderTrunk"))
    hits = [i + 1 for i, t in enumerate(lines) if i > start and f"self.{name} = " in t]
    return hits[0] if last else hits[1]


@pytest.mark.parametrize("last", [True, False])
def test_a_matched_test_rates_the_branch_by_what_it_discards(
    trunk: ModuleType, monkeypatch: pytest.MonkeyPatch, last: bool
) -> None:
    monkeypatch.setattr(trunk.Group, "is_last", last)
    rated = severities()[("WiderTrunk", branch_line("head", last))]
    discarded = wasted(trunk, "head")
    assert (discarded > 0) == last  # the Linear, or a Placeholder without parameters
    assert rated == ("error" if discarded > 0 else "warning")


@pytest.mark.parametrize("last", [True, False])
def test_an_unmatched_test_is_rated_by_the_heaviest_alternative(
    trunk: ModuleType, monkeypatch: pytest.MonkeyPatch, last: bool
) -> None:
    monkeypatch.setattr(trunk, "on_last_stage", lambda: last)
    discarded = wasted(trunk, "norm")
    assert (discarded > 0) == last  # which build was discarded depends on the call
    # both rebuilds: "error", the LayerNorm that may have been the one discarded
    assert severities()[("WiderTrunk", branch_line("norm", last))] == "error"

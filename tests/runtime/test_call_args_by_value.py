"""IL002 compares a repeated call by the values its parameters get, not by its argument text
(docs/rules.md): on the ``call_args_by_value`` fixture, a class is reported exactly when, at
runtime, its construction calls the helper again with equal arguments and so throws away rows
the first run built.

Two runtime measures, each independent of the checker: ``trace_model``, which groups calls
by their arguments' values; and the rows ``Table._grow`` builds against the rows the table
holds at the end (a row built again for a name replaces the first one: that work is lost).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("torch")

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_model  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "call_args_by_value"

# class -> (positional arguments, keyword arguments) for the construction checked
BUILDS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "CasedTable": ((["Ab", "cd"],), {}),
    "SkippingTable": ((["ab", "cd"],), {}),
    "RefreshedTable": ((), {}),
    "DirectTable": ((), {}),
    "ChosenTable": ((), {}),
}


@pytest.fixture
def tables(check_fixture: Callable[[str], Path]) -> ModuleType:
    check_fixture(CASE.name)
    import pkg.tables as m

    return m


def il002() -> dict[str, str]:
    """The classes IL002 reports, with the finding's confidence."""
    analysis = analyze([CASE], cwd=CASE, jobs=1, use_cache=False)
    out = {}
    for d in analysis.diagnostics:
        if d.code == "IL002":
            for cls in d.classes or ((d.class_name,) if d.class_name else ()):
                out[cls.rsplit(".", 1)[-1]] = d.confidence
    return out


def equal_calls(m: ModuleType, name: str, *args: Any, **kwargs: Any) -> set[str]:
    """The methods called more than once with equal arguments on the constructed table."""
    cls = getattr(m, name)
    trace = trace_model(lambda: cls(*args, **kwargs), static=False)
    return {r.repeat.name.rsplit(".", 1)[-1] for r in trace.repeats if r.repeat.kind == "call"}


def rows_lost(m: ModuleType, name: str, *args: Any, **kwargs: Any) -> int:
    """How many of the rows Table._grow built the finished table no longer holds."""
    grow = m.Table._grow
    built = []

    def counting(self: Any, names: Any, reserved: Any) -> Any:
        built.extend(names)
        return grow(self, names, reserved)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(m.Table, "_grow", counting)
        table = getattr(m, name)(*args, **kwargs)
    return len(built) - len(table.rows)


def test_reported_exactly_when_the_helper_repeats_with_equal_values(tables: ModuleType) -> None:
    reported = il002()
    assert reported == {
        "RefreshedTable": "definite",
        "DirectTable": "definite",
        "ChosenTable": "possible",
    }
    for name, (args, kwargs) in BUILDS.items():
        again = equal_calls(tables, name, *args, **kwargs)
        lost = rows_lost(tables, name, *args, **kwargs)
        if name in reported:
            assert "_grow" in again, name
            assert lost == len(tables.RESERVED), name  # the reserved rows were built twice
        else:
            assert again == set(), name
            assert lost == 0, name  # every row built is kept: the second run was new work


def test_possible_repeat_happens_only_with_the_default(tables: ModuleType) -> None:
    """ChosenTable's call equals the base's only when ``reserve`` keeps its default (True):
    a "possible" finding. Passed False, the helper gets other values: no repeated call."""
    assert "_grow" in equal_calls(tables, "ChosenTable")
    assert equal_calls(tables, "ChosenTable", reserve=False) == set()

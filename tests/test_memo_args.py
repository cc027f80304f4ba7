"""A memoised factory's arguments are compared after binding them to its parameters, also
through plain wrappers (``simulation/memo.py``): what each shape of call gives."""

from __future__ import annotations

import textwrap

import pytest

from initlint.driver import analyze
from initlint.facts.model import BodyError
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.simulation.levels import HEAVY, NONE
from initlint.simulation.records import Simulation

SOURCE = textwrap.dedent(
    """\
    import torch
    from torch import nn

    _CACHE = {}


    class Table(nn.Module):
        def __init__(self, dim, base):
            super().__init__()
            self.register_buffer("t", torch.arange(dim).outer(torch.ones(2)) / base)


    def table(dim, base=10.0, extra=None):
        key = (dim, base, extra)
        if key in _CACHE:
            return _CACHE[key]
        built = Table(dim, base)
        _CACHE[key] = built
        return built


    def table_on(dim, base=10.0, device=None):
        return table(dim, base)


    def table_half(dim):
        return table(dim, 5.0)


    def table_two(dim, alt=False):
        pick = table_half if alt else table
        return pick(dim)


    def broken_wrapper(dim):
        print "x"


    class Base(nn.Module):
        def __init__(self, dim, extra=None):
            super().__init__()
            self.t = table(dim, extra=extra)


    class Omitted(Base):
        def __init__(self, dim):
            super().__init__(dim)
            self.t = table(dim, 10.0)


    class ArgAgainstConstant(Base):
        def __init__(self, dim, extra=None):
            super().__init__(dim, extra=extra)
            self.t = table(dim)


    class OtherConstant(Base):
        def __init__(self, dim):
            super().__init__(dim)
            self.t = table(dim, base=2.0)


    class ThroughWrapper(Base):
        def __init__(self, dim):
            super().__init__(dim)
            self.t = table_on(dim, device="cpu")


    class Local(Base):
        def __init__(self, dim):
            super().__init__(dim)
            width = dim
            self.t = table(width)


    class PicksAtRunTime(Base):
        def __init__(self, dim):
            super().__init__(dim)
            self.t = table_two(dim)


    class Broken(Base):
        def __init__(self, dim):
            super().__init__(dim)
            self.t = broken_wrapper(dim)
    """
)


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Simulator:
    root = tmp_path_factory.mktemp("memo")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "m.py").write_text(SOURCE)
    index = analyze([root], cwd=root, use_cache=False, jobs=1).index
    return Simulator(index, CostModel(index))


def _own_build(sim: Simulator, name: str) -> tuple[str, int]:
    info = sim.index.class_info(f"pkg.m.{name}")
    assert info is not None
    result = sim.simulate(info)
    assert isinstance(result, Simulation)
    ancestor, own = [e for e in result.events if e.kind == "assign" and e.name == "t"]
    assert ancestor.ancestor and ancestor.cost == HEAVY  # a first build: the factory builds
    return own.memo_changed, own.cost


@pytest.mark.parametrize(
    ("name", "changed", "cost"),
    [
        ("Omitted", "", NONE),  # extra=None left out, base=10.0 spelled out: equal
        ("ArgAgainstConstant", "maybe", HEAVY),  # extra: the caller's against None
        ("OtherConstant", "yes", HEAVY),  # base 2.0 against 10.0
        ("ThroughWrapper", "", NONE),  # the wrapper passes dim and base on: equal
        ("Local", "", NONE),  # a local bound to the argument: its value
        ("PicksAtRunTime", "maybe", HEAVY),  # table's, or table_half's with base 5.0
    ],
)
def test_arguments_compared_after_binding(
    sim: Simulator, name: str, changed: str, cost: int
) -> None:
    assert _own_build(sim, name) == (changed, cost)


def _routes(sim: Simulator, name: str) -> list[tuple[str, list[str]]]:
    info = sim.index.class_info(f"pkg.m.{name}")
    assert info is not None
    result = sim.simulate(info)
    assert isinstance(result, Simulation)
    own = [e for e in result.events if e.kind == "assign" and not e.ancestor][-1]
    routes = sim.cost.memos.memo_routes(own.effect.value, own.fn.module)
    assert not isinstance(routes, BodyError)
    return sorted((r.factory, [h.owner for h in r.hops]) for r in routes)


def test_wrapper_routes_name_the_factory_and_the_hops(sim: Simulator) -> None:
    assert _routes(sim, "ThroughWrapper") == [("pkg.m.table", ["pkg.m.table_on"])]
    assert _routes(sim, "PicksAtRunTime") == [
        ("pkg.m.table", ["pkg.m.table_two"]),
        ("pkg.m.table", ["pkg.m.table_two", "pkg.m.table_half"]),
    ]
    assert _routes(sim, "Omitted") == [("pkg.m.table", [])]


def test_a_wrapper_whose_body_does_not_parse_is_an_error_every_time(sim: Simulator) -> None:
    info = sim.index.class_info("pkg.m.Broken")
    assert info is not None
    first = sim.simulate(info)
    assert isinstance(first, BodyError)
    again = sim.simulate(info)  # nothing of the ended search was kept: met again
    assert isinstance(again, BodyError) and (again.line, again.col) == (first.line, first.col)
    assert first.line == SOURCE.splitlines().index('    print "x"') + 1

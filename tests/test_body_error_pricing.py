"""A body that does not parse, met deep inside the cost model's recursive, memoised pricing,
comes back up as a value: the simulation that asked gets the ``BodyError``, and the memo
tables keep nothing of the pricing it ended (no recursion guard is left standing), so the
next class simulated in the same run is priced as a run that never met the error prices
it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from initlint.driver import analyze
from initlint.facts.model import BodyError
from initlint.pipeline.check import check_class
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.simulation.levels import HEAVY
from initlint.simulation.records import Simulation

# ``X`` and ``Y`` build each other. Priced from ``Y`` (as ``A`` does), ``X`` meets ``Y``'s
# recursion guard, goes on to ``broken()`` and reads its body, which does not parse (the
# skeleton pass blanked it). Priced from ``X`` (as ``B`` does), ``Y`` is HEAVY (its tensor),
# and ``X`` stops there, never reading ``broken``: ``X()`` costs HEAVY. A guard that stayed
# set after the error would price ``X`` as nothing.
SOURCE = textwrap.dedent(
    """\
    import torch


    def broken():
        print "x"


    class X:
        def __init__(self):
            self.y = Y()
            self.b = broken()


    class Y:
        def __init__(self):
            self.x = X()
            self.w = torch.zeros(1024, 1024)


    class Base(torch.nn.Module):
        def __init__(self):
            super().__init__()


    class A(Base):
        def __init__(self):
            super().__init__()
            self.y = Y()


    class B(Base):
        def __init__(self):
            super().__init__()
            self.x = X()


    class C(Base):
        def __init__(self):
            super().__init__()
            self.y = Y()
    """
)


def _simulator(tmp_path: Path) -> Simulator:
    (tmp_path / "pkg").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(SOURCE)
    index = analyze([tmp_path], cwd=tmp_path, use_cache=False, jobs=1).index
    return Simulator(index, CostModel(index))  # its memo tables start empty


def _simulate(sim: Simulator, name: str) -> Simulation | BodyError | None:
    info = sim.index.class_info(f"pkg.m.{name}")
    assert info is not None and sim.needs_simulation(info)
    return sim.simulate(info)


def _costs(result: Simulation | BodyError | None) -> list[tuple[str, int]]:
    assert isinstance(result, Simulation)
    return [(e.name, e.cost) for e in result.events if e.kind == "assign"]


def test_the_next_class_after_a_deep_pricing_error_is_priced_as_in_a_fresh_run(
    tmp_path: Path,
) -> None:
    fresh = _simulator(tmp_path / "fresh")
    alone = _costs(_simulate(fresh, "B"))
    assert alone == [("x", HEAVY)]  # what B's construction costs, with no error met first

    sim = _simulator(tmp_path / "run")
    error = _simulate(sim, "A")  # Y -> X -> (Y's guard) -> broken: the body is read here
    assert isinstance(error, BodyError) and error.msg
    assert error.line == SOURCE.splitlines().index('    print "x"') + 1
    assert _costs(_simulate(sim, "B")) == alone  # the same run, after the error


def test_a_class_that_reaches_the_error_again_meets_it_again(tmp_path: Path) -> None:
    """``C`` prices ``Y()`` as ``A`` did: nothing of ``A``'s ended pricing was memoised, so
    ``C`` reads ``broken`` again and gets the same error (as a fresh run does), rather than
    a cost left by a guard."""
    sim = _simulator(tmp_path / "run")
    first = _simulate(sim, "A")
    assert isinstance(first, BodyError)
    again = _simulate(sim, "C")
    assert isinstance(again, BodyError) and (again.line, again.col) == (first.line, first.col)
    info = sim.index.class_info("pkg.m.C")
    assert info is not None and check_class(sim, info) == again
    fresh = _simulator(tmp_path / "fresh")
    alone = _simulate(fresh, "C")
    assert isinstance(alone, BodyError) and (alone.line, alone.col) == (first.line, first.col)


def test_the_simulation_reads_bodies_only_through_the_loader() -> None:
    """Nothing in ``initlint/simulation/`` reads the strict accessors that raise
    (``facts.params``, ``facts.effects``, ``facts.calls_super_init``): every body comes
    through ``FunctionFacts.load()``, so an error can only travel as a value."""
    import ast

    import initlint.simulation

    strict = {"params", "effects", "calls_super_init"}
    found = []
    for path in sorted(Path(initlint.simulation.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in strict
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "facts"
            ):
                found.append(f"{path.name}:{node.lineno}: .facts.{node.attr}")
    assert found == []

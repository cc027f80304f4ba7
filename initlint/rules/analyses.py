"""The analyses several rules read, computed once per simulation, and the findings of every
rule on one simulation."""

from __future__ import annotations

from initlint.rules.base import REGISTRY, Finding
from initlint.rules.repeats import find_repeats
from initlint.simulation.engine import Simulation


class SimulationAnalyses:
    """The shared analyses of one simulation (:class:`~initlint.rules.base.Analyses`), each
    computed on first use."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._repeats: list[Finding] | None = None

    @property
    def repeats(self) -> list[Finding]:
        if self._repeats is None:
            self._repeats = find_repeats(self.sim)
        return self._repeats


def analyses_of(sim: Simulation) -> SimulationAnalyses:
    """``sim``'s shared analyses: one per simulation, whoever asks (the rules, the fixer)."""
    got = sim.memo.get("analyses")
    if not isinstance(got, SimulationAnalyses):
        got = sim.memo["analyses"] = SimulationAnalyses(sim)
    return got


def findings_of(sim: Simulation) -> list[Finding]:
    """Every registered rule's findings on ``sim``, in the simulation's order: the repeated
    statements as they run, then what no statement of the class did (IL004)."""
    shared = analyses_of(sim)
    found = [f for rule in REGISTRY.values() for f in rule.detect(sim, shared)]
    found.sort(key=lambda f: (f.event is None, f.event.index if f.event is not None else 0))
    return found

"""The analyses several rules read, computed once per simulation, and the findings of every
rule on one simulation."""

from __future__ import annotations

from initlint.rules.base import REGISTRY, DisabledFinding, Finding, RepeatFinding
from initlint.rules.repeats import find_repeats
from initlint.simulation.records import Simulation


class SimulationAnalyses:
    """The shared analyses of one simulation (:class:`~initlint.rules.base.Analyses`), each
    computed on first use."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._repeats: list[RepeatFinding] | None = None

    @property
    def repeats(self) -> list[RepeatFinding]:
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
    found.sort(key=_order)
    return found


def _order(f: Finding) -> tuple[bool, int]:
    match f:
        case RepeatFinding(event=event):
            return False, event.index
        case DisabledFinding():
            return True, 0

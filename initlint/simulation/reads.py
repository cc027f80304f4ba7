"""Read and write sets over a simulation's events (docs/design.md, "Reads").

A ``touch`` event carries what one statement reads and writes of ``self``; ``buffer`` and
``assign`` events write their name. A call's read set is the union over the events its frame
performed, so it follows ``self.method()`` calls with the simulation's virtual dispatch. A
call that was not followed (recursion) reads and writes everything (``*``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from initlint.facts.reads import EVERYTHING
from initlint.records import dataclass
from initlint.simulation.records import Event, Simulation


def subtree(sim: Simulation, ev: Event) -> list[Event]:
    """``ev`` and the events performed by the frames it called (contiguous: depth first)."""
    inside = {ev.index}
    out = [ev]
    for e in sim.events[ev.index + 1 :]:
        if e.parent not in inside:
            break
        inside.add(e.index)
        out.append(e)
    return out


def reads(events: Iterable[Event]) -> set[str]:
    out: set[str] = set()
    for e in events:
        if e.shadow:
            continue
        if e.kind == "touch":
            out |= e.effect.reads
        elif e.unfollowed:
            out.add(EVERYTHING)
    return out


def writes(events: Iterable[Event]) -> set[str]:
    out: set[str] = set()
    for e in events:
        if e.shadow:
            continue
        if e.kind == "touch":
            out |= e.effect.writes
        elif e.kind in ("buffer", "assign"):
            out.add(e.name)
        elif e.unfollowed:
            out.add(EVERYTHING)
    return out


def meet(a: set[str], b: set[str]) -> set[str]:
    """The names both sets may hold (``*`` meets anything)."""
    if not a or not b:
        return set()
    if EVERYTHING in a:
        return set(b) if EVERYTHING not in b else {EVERYTHING}
    if EVERYTHING in b:
        return set(a)
    return a & b


def exposed_reads(events: Sequence[Event]) -> set[str]:
    """Names read before they are written, in event order (a statement reads, then writes)."""
    written: set[str] = set()
    out: set[str] = set()
    for e in events:
        if e.shadow:
            continue
        if e.kind == "touch":
            out |= e.effect.reads - written
            written |= e.effect.writes
        elif e.kind in ("buffer", "assign"):
            written.add(e.name)
    return out


@dataclass(frozen=True)
class Strand:
    """A read of ``self.<name>`` by ``reader`` before anything in the construction wrote it,
    while something later does write it."""

    name: str
    reader: Event


def strands(sim: Simulation) -> dict[str, Strand]:
    """Per attribute, the first read that comes before the attribute is built (and it is
    built later in the construction). On correct code this is mostly empty; a fix that
    adds one stranded a reader."""
    written_later = writes(sim.events)
    written: set[str] = set()
    out: dict[str, Strand] = {}
    for e in sim.events:
        if e.shadow:
            continue
        if e.kind == "touch":
            for name in e.effect.reads - written - {EVERYTHING}:
                if name in written_later and name not in out:
                    out[name] = Strand(name, e)
            written |= e.effect.writes
        elif e.kind in ("buffer", "assign"):
            written.add(e.name)
    return out


def built(sim: Simulation) -> set[str]:
    """The attributes and buffers the construction writes (unless switched off)."""
    return {e.name for e in sim.events if not e.shadow and e.kind in ("buffer", "assign")}


def statement_events(sim: Simulation, ev: Event) -> list[Event]:
    """The events of the statement ``ev`` sits in, with those of the calls it makes."""
    eff = ev.effect
    own = [
        e
        for e in sim.events
        if e.frame == ev.frame and e.effect.stmt_span == eff.stmt_span and e.effect.stmt == eff.stmt
    ]
    if not own:
        return [ev]
    lo = own[0].index
    hi = max(subtree(sim, e)[-1].index for e in own)
    return sim.events[lo : hi + 1]

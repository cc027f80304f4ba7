"""Read a simulation and find repeated init work (shared by IL001-IL004)."""

from __future__ import annotations

from initlint.rules.base import Finding
from initlint.simulation.engine import Event, FlagRef, Simulation
from initlint.simulation.values import MAYBE, Origin


def _confidence(*events: Event) -> str:
    return "possible" if any(e.status == MAYBE for e in events) else "definite"


def _exclusive(a: Event, b: Event) -> bool:
    """The two never both run: they assume opposite truths of one undecided condition."""
    if not a.assume or not b.assume:
        return False
    theirs = set(b.assume)
    return any((key, not truth) in theirs for key, truth in a.assume)


def _flag(first: Event) -> FlagRef | None:
    return first.flags[-1] if first.flags else None


def find_repeats(sim: Simulation) -> list[Finding]:
    events = sim.events
    live = [e for e in events if not e.shadow]
    first_buffer: dict[str, Event] = {}
    first_assign: dict[str, Event] = {}
    first_call: dict[tuple[str, str], Event] = {}
    for e in live:
        if not e.ancestor:
            continue
        if e.kind == "buffer" and not e.value_const:
            first_buffer.setdefault(e.name, e)
        elif e.kind == "assign" and e.expensive:
            first_assign.setdefault(e.name, e)
        elif e.kind == "call" and e.expensive and e.callee is not None:
            first_call.setdefault((e.callee.qualname, e.args_key), e)

    repeated_calls: set[int] = set()
    findings: list[Finding] = []
    by_event: dict[int, Finding] = {}

    def nested_in_repeat(e: Event) -> bool:
        p = e.parent
        while p is not None:
            if p in repeated_calls:
                return True
            p = events[p].parent
        return False

    for e in live:
        if e.ancestor or nested_in_repeat(e):
            continue
        finding: Finding | None = None
        if e.kind == "call" and e.expensive and e.callee is not None:
            first = first_call.get((e.callee.qualname, e.args_key))
            if first is not None and first.index < e.index and not _exclusive(first, e):
                repeated_calls.add(e.index)
                what = f"`self.{e.name}({e.args_key})`"
                finding = Finding("IL002", sim, e, first, _confidence(e, first), what, _flag(first))
        elif e.kind == "buffer":
            first = first_buffer.get(e.name)
            if first is not None and first.index < e.index and not _exclusive(first, e):
                what = f"{e.effect.detail or 'buffer'} `{e.name}`"
                finding = Finding("IL001", sim, e, first, _confidence(e, first), what, _flag(first))
        elif e.kind == "assign" and e.expensive:
            first = first_buffer.get(e.name)
            if first is not None and first.index < e.index and not _exclusive(first, e):
                what = f"buffer `{e.name}`"
                finding = Finding("IL001", sim, e, first, _confidence(e, first), what, _flag(first))
            else:
                first = first_assign.get(e.name)
                if first is not None and first.index < e.index and not _exclusive(first, e):
                    what = f"`self.{e.name}`"
                    finding = Finding(
                        "IL003", sim, e, first, _confidence(e, first), what, _flag(first)
                    )
        if finding is not None:
            findings.append(finding)
            by_event[e.index] = finding
    return _fold_calls(sim, findings, by_event)


def _fold_calls(
    sim: Simulation, findings: list[Finding], by_event: dict[int, Finding]
) -> list[Finding]:
    """IL002 whose result only feeds a reported registration/assignment is one finding."""
    frame_effects: dict[tuple[int, int], list[Event]] = {}
    for e in sim.events:
        frame_effects.setdefault((e.frame, e.effect_index), []).append(e)
    out = []
    for f in findings:
        if f.code == "IL002" and f.event is not None:
            eff = f.event.effect
            fed = [frame_effects.get((f.event.frame, i), []) for i in eff.feeds]
            if (
                eff.feeds
                and not eff.feeds_other
                and all(evs and all(ev.index in by_event for ev in evs) for evs in fed)
            ):
                continue
        out.append(f)
    return out


def find_disabled(sim: Simulation) -> list[Finding]:
    """IL004: C passes a flag that switches off ancestor setup nothing else performs."""
    performed = {(e.kind, e.name) for e in sim.events if not e.shadow}
    by_origin: dict[Origin, list[Event]] = {}
    for e in sim.events:
        if not e.shadow or not e.ancestor:
            continue
        if e.kind == "buffer" or (e.kind == "assign" and e.expensive):
            origin = next((o for o in e.switched_off_by if o.frame == sim.top_frame), None)
            if origin is None:
                continue
            if ("buffer", e.name) in performed or ("assign", e.name) in performed:
                continue
            by_origin.setdefault(origin, []).append(e)
    out = []
    for origin, evs in by_origin.items():
        names = ", ".join(dict.fromkeys(f"`{e.name}`" for e in evs))
        out.append(
            Finding(
                "IL004",
                sim,
                None,
                evs[0],
                _confidence(*evs),
                names,
                origin=origin,
                disabled=tuple(evs),
            )
        )
    return out

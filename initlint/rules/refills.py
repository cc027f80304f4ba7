"""IL005's second analysis: a tensor of ``self`` that an ancestor's code filled in place
(its initialisation pass: ``init.kaiming_uniform_(self.weight)`` in ``Linear.reset_parameters``)
and the class's own code fills again, every number of it, before anything reads it. The
ancestor's pass is thrown away: work that allocates nothing, priced as the tensor it fills."""

from __future__ import annotations

from initlint.rules.base import RepeatFinding, confidence_of
from initlint.rules.discards import attribute_uses
from initlint.rules.repeats import never_both
from initlint.simulation.levels import HEAVY, LIGHT, UNKNOWN
from initlint.simulation.records import Event, Simulation

CODE = "IL005"
# Events that store the attribute anew: a fill before them filled another tensor.
_STORES = ("assign", "buffer", "delete")


def find_refills(sim: Simulation) -> list[RepeatFinding]:
    """One finding per own fill of a whole attribute that an ancestor's fill of it, not read
    since, precedes."""
    # (a fill statement reads the tensor it fills: that read is no use of its numbers; its
    # other reads are, ``self.proj.weight.data.copy_(self.weight)``)
    filling: dict[tuple[int, object], set[str]] = {}
    for e in sim.events:
        if e.kind == "init":
            filling.setdefault((e.frame, e.effect.stmt_span), set()).add(e.name.split(".")[0])
    filled: dict[str, Event] = {}  # attribute -> the ancestor's fill not read since
    built: dict[str, Event] = {}  # attribute -> the store that made what it holds
    # attribute -> its store wrapping a module in a reparametrisation, nothing used since
    wrapped: dict[str, Event] = {}
    out: list[RepeatFinding] = []
    for e in sim.events:
        if e.shadow:
            continue
        if e.kind == "init" and "." in e.name:  # a part of a held module
            holder, _, part = e.name.partition(".")
            store = wrapped.get(holder)
            if store is not None and store.recomputed is not None:
                if store.recomputed[1] == part and not e.ancestor:
                    out.append(_recomputed(sim, store, e))
            continue
        if e.kind == "init":
            first = filled.get(e.name)
            if e.ancestor:
                filled[e.name] = e
            elif first is not None and not never_both(first, e) and not _called_again(sim, e):
                out.append(_finding(sim, first, e, built.get(e.name)))
                del filled[e.name]
            continue
        if e.kind in _STORES:
            filled.pop(e.name, None)
            built[e.name] = e
            wrapped.pop(e.name, None)
            if e.recomputed is not None:
                wrapped[e.name] = e
            continue
        used = set(attribute_uses(e, sim.mro))
        if e.kind == "touch":
            used -= filling.get((e.frame, e.effect.stmt_span), set())
        if "*" in used:
            filled.clear()
            wrapped.clear()  # (``remove_weight_norm(self.conv)`` may undo the wrap)
        for name in used:
            filled.pop(name, None)
            wrapped.pop(name, None)
    return out


def _called_again(sim: Simulation, e: Event) -> bool:
    """Whether ``e`` runs in a method the ancestors called too (``self.reset_parameters()``
    again): the whole call is the repeat, IL002's."""
    ancestors_called = {
        c.callee.qualname for c in sim.events if c.kind == "call" and c.ancestor and c.callee
    }
    parent = e.parent
    while parent is not None:
        call = sim.events[parent]
        if call.kind == "call" and call.callee is not None:
            if call.callee.qualname in ancestors_called:
                return True
        parent = call.parent
    return False


def _finding(sim: Simulation, first: Event, again: Event, store: Event | None) -> RepeatFinding:
    """The ancestor's pass ``first`` over ``self.<name>``, filled again by ``again``: priced
    as what the tensor is (the store that made it), unknown when no store shows it."""
    cost = store.cost if store is not None else UNKNOWN
    owner = first.fn.owner
    where = owner.qualname.rsplit(".", 1)[-1] if owner is not None else "an ancestor"
    return RepeatFinding(
        CODE,
        sim,
        again,
        first,
        confidence_of(first, again),
        f"the initialisation of `self.{again.name}`",
        cost=max(cost, LIGHT),
        no_fix=f"the first pass runs in {where}'s code, for its other users too: "
        "switch it off there, or fill the tensor once",
    )


def _recomputed(sim: Simulation, store: Event, fill: Event) -> RepeatFinding:
    """``self.conv = weight_norm(nn.Conv1d(...))``, then the class fills ``self.conv.weight``,
    nothing having used ``self.conv`` in between: the wrapper computes that part anew from
    its own parameters, so the fill never reaches them and is lost."""
    assert store.recomputed is not None  # (the caller's test)
    wrapper, part = store.recomputed
    return RepeatFinding(
        CODE,
        sim,
        fill,
        store,
        confidence_of(store, fill),
        f"the initialisation of `self.{fill.name}`",
        cost=_part_cost(store, part),
        no_fix=(
            f"{wrapper} computes `{part}` anew from its own parameters: initialise the "
            f"module's `{part}` before wrapping it, or the parameters {wrapper} made"
        ),
    )


def _part_cost(store: Event, part: str) -> int:
    """A module's ``weight`` is priced as the module the store built when that is heavy (the
    weight of a layer with parameters), unknown when the store only wrapped a module built
    before (``weight_norm(self.conv)``); any other part (a bias) as light."""
    if part != "weight":
        return LIGHT
    return store.cost if store.cost >= HEAVY else UNKNOWN

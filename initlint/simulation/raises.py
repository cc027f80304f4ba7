"""The raise model: a read of an attribute that is surely unset raises AttributeError
(``raise_attribute_error``), a call Python refuses raises TypeError (``raise_type_error``).
The frames up to the nearest undecided guard end; the guarded block that raised never runs
again while what its guard reads is unchanged (``in_dead_block``); and when one undecided
guard alone led there, every later effect assumes it was false. A ``return`` ends its frame
the same way (``return_from``)."""

from __future__ import annotations

from initlint.facts.model import Cond, Effect
from initlint.facts.reads import EVERYTHING
from initlint.simulation.events import writes_any
from initlint.simulation.guards import GuardEval, cond_inputs, is_dotted
from initlint.simulation.records import ATTRIBUTE_WRITES, Event, Raise, RaisedError
from initlint.simulation.run_state import Frame
from initlint.simulation.values import TRUE

# Decorators that run the function they wrap with the arguments they are given, so that a
# call its parameters refuse raises as the undecorated one would (by their last name).
SIGNATURE_KEEPING = frozenset(
    {"no_grad", "inference_mode", "enable_grad", "beartype", "typechecked"}
)


class RaiseModel(GuardEval):
    """Where a read of an unset attribute ends the construction's paths."""

    def raise_attribute_error(self, frame: Frame, attr: str) -> None:
        """The read of ``self.<attr>`` (definitely unset) in ``frame`` raises AttributeError
        (``raise_here``)."""
        self.raise_here(frame, attr, "AttributeError")

    def raise_type_error(self, frame: Frame, callee: str) -> None:
        """A call Python refuses (a required parameter left out, a surplus positional or an
        unknown keyword) raises TypeError before ``callee`` runs (``raise_here``)."""
        self.raise_here(frame, callee, "TypeError")

    def raise_here(self, frame: Frame, what: str, error: RaisedError) -> None:
        """The effect running in ``frame`` (its event the last one) raises ``error``.
        The frames from there up to the nearest one whose running effect sits under an
        undecided guard end; in that one, the rest of that guarded block does not run, and
        when that guard is the only undecided one, every later effect runs only where it was
        false. Nothing is assumed where the exception may be caught (a ``try`` or ``with``
        on the way) or the path is one a flag switched off."""
        levels: list[Frame] = []
        cur: Frame | None = frame
        while cur is not None:
            levels.append(cur)
            cur = cur.caller
        if any(f.shadowed or f.current is None or f.current.protected for f in levels):
            return
        d = next((j for j, f in enumerate(levels) if f.maybe), None)
        self.sim.raises.append(Raise(len(self.sim.events) - 1, what, d is None, error))
        for f in levels if d is None else levels[:d]:
            f.dead = True
        if d is None:
            return
        top = levels[d]
        running = top.current
        assert running is not None  # (checked above)
        if all(_stable(c) for c in top.maybe):
            top.dead_blocks.append((running.stmt, running.guard, len(self.sim.events)))
        if len(top.maybe) != 1 or any(f.maybe for f in levels[d + 1 :]):
            return
        cond = top.maybe[0]
        negated = self.assumptions(top, cond, False)
        self.after_raise = (*self.after_raise, *(a for a in negated if a not in self.after_raise))
        literal = self.literal(top, cond)
        if literal is not None and not literal[0].startswith(f"{top.id}:"):
            # keyed by the value it tests (a truth passed down), not by its text in a frame
            flipped = (literal[0], not literal[1])
            if flipped not in self.after_raise_literals:
                self.after_raise_literals = (*self.after_raise_literals, flipped)

    def delete_of(self, frame: Frame, eff: Effect, name: str) -> None:
        """``del self.<name>``, run on every path so far, reads the attribute: where nothing
        set it, that path raises AttributeError. Surely unset, it is a read that raises;
        set by one store alone, under undecided guards, the paths where that store did not
        run raise, so every later effect assumes what the store assumed."""
        if self.surely_unset(name):
            self.raise_attribute_error(frame, name)
            return
        if eff.protected or frame.shadowed or self.wild or self.blind:
            return
        if name in self.set_names or name.startswith("_") or self._class_may_bind(name):
            return
        store = _only_store(self.sim.events[:-1], name, (frame.id, eff.stmt))
        if store is None or store.status == TRUE or store.unkeyed:
            return
        if not store.assume and not store.literals:
            return
        added = tuple(a for a in store.assume if a not in self.after_raise)
        self.after_raise = (*self.after_raise, *added)
        self.after_raise_literals = (
            *self.after_raise_literals,
            *(x for x in store.literals if x not in self.after_raise_literals),
        )

    def return_from(self, frame: Frame, eff: Effect) -> None:
        """A ``return`` ends its frame. Reached with no undecided guard of its own, the rest
        of the body never runs; under undecided guards, the rest runs only where the return
        did not (``possibly``), and where one guard alone led there, it assumes that guard
        false. Nothing is assumed inside a ``try`` (its ``finally`` still runs)."""
        if eff.protected or frame.shadowed:
            return
        if not frame.maybe:
            frame.dead = True
            return
        frame.returned = True
        if len(frame.maybe) != 1:
            return
        cond = frame.maybe[0]
        negated = self.assumptions(frame, cond, False)
        frame.after_return = (
            *frame.after_return,
            *(a for a in negated if a not in frame.after_return),
        )
        literal = self.literal(frame, cond)
        if literal is not None and (literal[0], not literal[1]) not in frame.after_return_literals:
            frame.after_return_literals = (
                *frame.after_return_literals,
                (literal[0], not literal[1]),
            )

    def in_dead_block(self, frame: Frame, eff: Effect) -> bool:
        """``eff`` sits in a block a raise ended (same top statement, the guard a prefix of
        its own), and nothing the guard reads was written since: it never runs."""
        for stmt, guard, at in frame.dead_blocks:
            if eff.stmt != stmt or eff.guard[: len(guard)] != guard:
                continue
            names: set[str] = set()
            attrs: set[str] = set()
            for c in guard:
                cond_inputs(c, names, attrs)
            if any(frame.written.get(n, (0, ""))[0] > at for n in names):
                continue
            if attrs and writes_any(self.sim.events, at - 1, frozenset(attrs)):
                continue
            return True
        return False


def _only_store(events: list[Event], name: str, deleting: tuple[int, int]) -> Event | None:
    """The one event that may have set ``self.<name>`` before the statement ``deleting``
    (frame, statement) deletes it: a store of it, with no other store, deletion or write
    of it by another statement; None otherwise."""
    stores: list[Event] = []
    writers: set[tuple[int, int]] = set()
    for ev in events:
        if ev.shadow:
            continue
        if ev.kind == "touch":
            if name in ev.effect.writes or EVERYTHING in ev.effect.writes:
                writers.add((ev.frame, ev.effect.stmt))
        elif ev.name.partition(".")[0] == name and ev.kind in ATTRIBUTE_WRITES:
            stores.append(ev)
    if len(stores) != 1 or stores[0].kind not in ("assign", "buffer"):
        return None
    found = stores[0]
    return found if writers <= {(found.frame, found.effect.stmt), deleting} else None


def _stable(cond: Cond) -> bool:
    """A guard whose truth a later test of the same text repeats while the names it reads
    are not written (``cond_inputs``): no call, loop, ``hasattr`` or unnamed test."""
    if cond.op in ("const", "name", "selfattr"):
        return True
    if cond.op == "unknown":
        return is_dotted(cond.name)
    if cond.op in ("not", "and", "or", "is", "isnot", "eq", "ne"):
        return all(_stable(c) for c in cond.args)
    return False

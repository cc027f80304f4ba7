"""The raise model: a read of an attribute that is surely unset raises AttributeError
(``raise_attribute_error``). The frames up to the nearest undecided guard end; the guarded
block that raised never runs again while what its guard reads is unchanged
(``in_dead_block``); and when one undecided guard alone led there, every later effect
assumes it was false. A ``return`` ends its frame the same way (``return_from``)."""

from __future__ import annotations

from initlint.facts.model import Cond, Effect
from initlint.simulation.events import writes_any
from initlint.simulation.guards import GuardEval, is_dotted
from initlint.simulation.records import Raise
from initlint.simulation.run_state import Frame


class RaiseModel(GuardEval):
    """Where a read of an unset attribute ends the construction's paths."""

    def raise_attribute_error(self, frame: Frame, eff: Effect, attr: str) -> None:
        """The read of ``self.<attr>`` (definitely unset) in ``frame`` raises AttributeError.
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
        self.sim.raises.append(Raise(len(self.sim.events) - 1, attr, certain=d is None))
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
                _cond_inputs(c, names, attrs)
            if any(frame.written.get(n, (0, ""))[0] > at for n in names):
                continue
            if attrs and writes_any(self.sim.events, at - 1, frozenset(attrs)):
                continue
            return True
        return False


def _stable(cond: Cond) -> bool:
    """A guard whose truth a later test of the same text repeats while the names it reads
    are not written (``_cond_inputs``): no call, loop, ``hasattr`` or unnamed test."""
    if cond.op in ("const", "name", "selfattr"):
        return True
    if cond.op == "unknown":
        return is_dotted(cond.name)
    if cond.op in ("not", "and", "or", "is", "isnot", "eq", "ne"):
        return all(_stable(c) for c in cond.args)
    return False


def _cond_inputs(cond: Cond, names: set[str], attrs: set[str]) -> None:
    """The locals (``names``) and ``self`` attributes (``attrs``) a stable guard reads."""
    if cond.op == "name":
        names.add(cond.name)
    elif cond.op == "selfattr":
        attrs.add(cond.name)
    elif cond.op == "unknown" and is_dotted(cond.name):
        head, _, rest = cond.name.partition(".")
        if head == "self":
            attrs.add(rest.partition(".")[0])
        else:
            names.add(head)
    for c in cond.args:
        _cond_inputs(c, names, attrs)

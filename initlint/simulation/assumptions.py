"""What the undecided guards around a piece of work assume of the construction's arguments,
and when two sets of assumptions can never hold in one construction.

An assumption is ``(symbol, test, holds)``: ``q_lora_rank is None`` assumed true is
``("q_lora_rank", "None", True)``, where the symbol names the constructed class's argument
the value came from. The test is "truthy" for a bare ``if x:``, the repr of the constant
compared with for ``==``/``is``, or ``in`` followed by the reprs of a written-out collection
(``mode in ("a", "b")``, see ``members``).
"""

from __future__ import annotations

Assumption = tuple[str, str, bool]

TRUTHY = "truthy"
_IN = "in "
_SEP = "\x1f"  # (cannot occur in a repr)
# Reprs Python compares equal: ``x == 1`` and ``x == True`` test the same value.
_SAME = {"True": "1", "1.0": "1", "False": "0", "0.0": "0"}


def membership(reprs: list[str]) -> str:
    """The test of ``x in (a, b, ...)`` over constants with these reprs."""
    return _IN + _SEP.join(sorted(set(reprs)))


def members(test: str) -> frozenset[str] | None:
    """The values (as normalised reprs) a test compares with; None for "truthy"."""
    if test == TRUTHY:
        return None
    items = test[len(_IN) :].split(_SEP) if test.startswith(_IN) else [test]
    return frozenset(_SAME.get(r, r) for r in items)


def exclusive(a: tuple[Assumption, ...], b: tuple[Assumption, ...]) -> bool:
    """Whether work guarded by ``a`` and work guarded by ``b`` can never both run: one
    assumes the argument is among some values and the other that it is none of them (``x is
    None`` and ``x is not None``; ``mode in ("a", "b")`` and ``mode != "a" and mode !=
    "b"``), or one that it is None and the other that it is truthy."""
    if not a or not b:
        return False
    for sym, test, holds in a:
        for sym2, test2, holds2 in b:
            if sym == sym2 and test == test2 and holds != holds2:
                return True
            if sym == sym2 and {test, test2} == {"None", TRUTHY} and holds and holds2:
                return True  # x is None, and x is truthy
    return _ruled_out(a, b) or _ruled_out(b, a)


def _ruled_out(a: tuple[Assumption, ...], b: tuple[Assumption, ...]) -> bool:
    """``a`` wants an argument among values that ``b`` rules out, every one of them."""
    for sym, test, holds in a:
        wanted = members(test) if holds else None
        if not wanted:
            continue
        ruled: set[str] = set()
        for sym2, test2, holds2 in b:
            if sym2 == sym and not holds2:
                ruled |= members(test2) or set()
        if wanted <= ruled:
            return True
    return False


def other_values(a: tuple[Assumption, ...], b: tuple[Assumption, ...]) -> bool:
    """The two run only when one argument is among two sets of values that share none
    (``mode == "dense"`` and ``mode in ("sparse", "mixed")``: two ``if``s, not an
    ``if``/``else``)."""
    for sym, test, holds in a:
        first = members(test) if holds else None
        if not first:
            continue
        for sym2, test2, holds2 in b:
            second = members(test2) if holds2 and sym2 == sym else None
            if second and not first & second:
                return True
    return False

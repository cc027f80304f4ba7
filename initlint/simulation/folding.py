"""Folding a guard's arithmetic and its tests of two values over known constants, as Python
evaluates them: ``num_blocks - att_layer_num <= 0`` with both parameters at their defaults (6, 6) is
true. Only numbers are folded; anything else (a string's order, a division by zero, a value
not known) stays undecided."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Final

from initlint.facts.model import Cond

# What ``fold`` gives for a test it cannot evaluate.
UNFOLDED: Final = object()

_ARITH: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
ORDERS: dict[str, Callable[[float, float], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def fold(cond: Cond, lookup: Callable[[Cond], object]) -> object:
    """The value of ``cond`` as an operand: a constant, arithmetic of numbers, or what
    ``lookup`` knows of a name (``UNFOLDED`` where nothing is known)."""
    if cond.op == "const":
        return cond.value
    if cond.op == "arith" and len(cond.args) == 2 and isinstance(cond.value, str):
        left, right = fold(cond.args[0], lookup), fold(cond.args[1], lookup)
        apply = _ARITH.get(cond.value)
        if apply is None or not _number(left) or not _number(right):
            return UNFOLDED
        try:
            return apply(left, right)  # type: ignore[arg-type]
        except ArithmeticError:  # a division by zero, an int too large for a float
            return UNFOLDED
    return lookup(cond)


def compare(op: str, left: object, right: object) -> bool | None:
    """How the test ``op`` of two known values comes out: ``is``/``isnot`` (where one is
    None: the identity of two other constants is not guessed), ``eq``/``ne``, and the orders
    of two numbers; None where it is not decided so."""
    if op in ("is", "isnot"):
        if left is not None and right is not None:
            return None
        return (left is right) == (op == "is")
    if op in ("eq", "ne"):
        return (left == right) == (op == "eq")
    test = ORDERS.get(op)
    if test is None or not _number(left) or not _number(right):
        return None
    return test(left, right)  # type: ignore[arg-type]


def _number(value: object) -> bool:
    return isinstance(value, int | float)

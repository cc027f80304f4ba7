"""Cost levels: how much work an expression, a call or a class's construction does
(docs/design.md, "Cost classes").

Every cost is one of three levels: NONE (nothing is built), LIGHT (objects without tensors:
a parameterless module, a sampler, a tensor of a few numbers, a copy of a plain object) and HEAVY
(tensors, parameters or buffers, a module that owns them, I/O and checkpoint loading). A
repeat of HEAVY work is an ``error``, of LIGHT work a ``warning``.
"""

from __future__ import annotations

from collections.abc import Mapping

from initlint.facts.model import BodyError

# Cost levels, ordered: the cost of several pieces of work is the highest of theirs.
# UNKNOWN is what the simulation cannot follow (a callable computed at run time, a name that
# resolves to nothing it can read): at least light work, possibly heavy, never cheap.
NONE, LIGHT, UNKNOWN, HEAVY = 0, 1, 2, 3
COST_NAMES = ("none", "light", "unknown", "heavy")

Costs = Mapping[str, int]
# What pricing returns: a cost level, or the error of a body it had to read that does not
# parse (the pricing, and the simulation that asked, end there; nothing of it is memoised).
Priced = int | BodyError
NO_COSTS: Costs = {}


def highest(a: Priced, b: Priced) -> Priced:
    """The higher of two costs; the error when either is one (``a``'s first)."""
    if isinstance(a, BodyError):
        return a
    if isinstance(b, BodyError):
        return b
    return max(a, b)

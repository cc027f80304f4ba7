"""What a module gives spec objects' fields: ``Holder(..., field=Name, ...)``, a keyword
argument naming a class, anywhere in the text (docs/design.md, "Cost classes": a spec's class).

Megatron-style code builds a submodule from a field of a spec object
(``build_module(submodules.linear_proj, ...)``), and the object is made far away, often in
a function body the fact pass does not parse (``SelfAttentionSubmodules(linear_proj=
RowParallelLinear, ...)`` in a layer-spec function). So this reads the text, not the tree:

- a hit is ``=`` followed by a dotted name whose last part is capitalised (a class, by
  Python's naming convention), not followed by ``(``, ``[``, ``.`` or more of a name (a call,
  a subscript, an attribute of it), right after an identifier (the keyword: not ``==``,
  ``<=``, ``x = Y``);
- the call it is a keyword of is the innermost bracket still open before it, when that is
  a ``(`` right after a dotted name whose last part is capitalised (a constructor);
- a hit after ``#`` on its line is a comment, and skipped.

A string that looks like such a call counts too, and a bracket inside a string can hide
the call: the facts say what a spec's field *may* hold, and are used only as a
"possibly" cost. One regular-expression scan with a literal first character; the rest
runs per hit (about 2 per 1,000 lines of vLLM's layers).
"""

from __future__ import annotations

import re

from initlint.facts.model import FieldValueFacts

# (the constants are left out by the pattern: most hits would be ``=True``/``=False``/``=None``)
_HIT = re.compile(r"=(?!True\b|False\b|None\b)((?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?![\w.(\[])")
_MAX_BACK = 4000  # characters searched back for the call a keyword belongs to
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DOTTED = _WORD | {"."}
_CONSTANTS = frozenset(("True", "False", "None", "NotImplemented", "Ellipsis"))


def field_values(text: str) -> tuple[FieldValueFacts, ...]:
    """Every ``Callee(..., field=Value, ...)`` of ``text`` (``\\n`` line ends) as above."""
    out: list[FieldValueFacts] = []
    line, counted = 1, 0
    for m in _HIT.finditer(text):
        value = m.group(1)
        if value in _CONSTANTS:
            continue
        at = m.start()
        if at == 0 or text[at - 1] not in _WORD:
            continue  # no keyword before the ``=`` (``==``, ``<=``, ``x = Y``)
        start = at - 1
        while start > 0 and text[start - 1] in _WORD:
            start -= 1
        if text[start].isdigit():
            continue
        line_start = text.rfind("\n", 0, start) + 1
        if "#" in text[line_start:start]:
            continue
        opened = _open_paren(text, start)
        if opened is None:
            continue
        head = opened
        while head > 0 and text[head - 1] in _DOTTED:
            head -= 1
        callee = text[head:opened]
        last = callee.rpartition(".")[2]
        if not last or not last[0].isupper():
            continue
        line += text.count("\n", counted, at)
        counted = at
        out.append(FieldValueFacts(callee, text[start:at], value, line))
    return tuple(out)


def _open_paren(text: str, at: int) -> int | None:
    """Where the innermost bracket still open before ``at`` opens, if it is a ``(``."""
    floor = max(0, at - _MAX_BACK)
    closed = 0
    i = at
    while True:
        i = max(text.rfind("(", floor, i), text.rfind("[", floor, i), text.rfind("{", floor, i))
        if i < 0:
            return None
        # brackets closed between this opening and the hit: this one is open when there are
        # fewer closings than openings after it
        between = text[i:at]
        depth = (
            between.count("(")
            + between.count("[")
            + between.count("{")
            - between.count(")")
            - between.count("]")
            - between.count("}")
        )
        if depth > 0:
            return i if text[i] == "(" else None
        closed += 1
        if closed > 64:
            return None

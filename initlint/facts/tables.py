"""Tables of classes or functions written out at module level (``MODELS = {"a": A, "b":
B}``): what ``MODELS[name](...)`` may build. A table is kept only when the module binds its
name once and its text never changes it; a registry that decorators or functions fill is
not written out, and what it holds stays unknown."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable

from initlint.facts.expressions import dotted
from initlint.facts.model import TableFacts

# How a module's text may change a table after binding it: an item stored or deleted, a
# method that adds or removes items, an augmented assignment, a ``global`` rebinding it in
# a function, or a registering decorator or call (``@MODELS.register``). ``{0}``: the
# candidate names, one alternation; the text is searched once for all of them.
_CHANGES = (
    r"\bdel\s+(?P<deleted>{0})\s*\["
    r"|\bglobal\s+[\w\s,]*?\b(?P<rebound>{0})\b"
    r"|\b(?P<changed>{0})(?:\s*\[[^\]\n]*\]\s*[-+|&]?=(?!=)|\s*(?:\|=|\+=)"
    r"|\s*\.\s*(?:update|setdefault|append|extend|insert|pop|popitem|clear|remove|add"
    r"|discard|register\w*|__setitem__|__delitem__)\b)"
)


def table_values(value: ast.expr, partial_of: Callable[[ast.expr], str]) -> tuple[str, ...]:
    """The dotted names a table written out holds: a dict with constant keys, a tuple or a
    list, each item a class or function by name or a ``partial`` of one; () otherwise."""
    items: list[ast.expr]
    if isinstance(value, ast.Dict):
        if not value.keys or any(not isinstance(k, ast.Constant) for k in value.keys):
            return ()
        items = list(value.values)
    elif isinstance(value, ast.Tuple | ast.List):
        items = list(value.elts)
    else:
        return ()
    names = [dotted(item) or partial_of(item) for item in items]
    if not names or not all(names):
        return ()
    return tuple(names)


def unchanged_tables(
    candidates: Iterable[TableFacts], bindings: dict[str, int], text: str | None
) -> tuple[TableFacts, ...]:
    """The candidate tables whose name the module binds once and its text never changes."""
    once = [t for t in candidates if bindings.get(t.name, 0) == 1]
    if not once or text is None:
        return tuple(once)
    names = "|".join(sorted({re.escape(t.name) for t in once}, key=len, reverse=True))
    changed = {next(g for g in m.groups() if g) for m in re.finditer(_CHANGES.format(names), text)}
    return tuple(t for t in once if t.name not in changed)

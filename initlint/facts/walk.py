"""Child nodes of an ``ast`` node, for the fact extractor's walks.

``ast.iter_child_nodes`` also yields each ``ctx`` (Load/Store) and operator node: half of all
the nodes it visits, and none of them matter to the facts. Walking only the fields that can
hold other nodes makes a module's fact pass about a tenth faster."""

from __future__ import annotations

import ast

_NOT_CHILDREN = frozenset({"ctx", "op", "ops"})
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)``, in the same order, without ctx and operator nodes."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = tuple(f for f in node._fields if f not in _NOT_CHILDREN)
        _CHILD_FIELDS[type(node)] = fields
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


# The nodes that open a scope of their own: what their bodies bind is theirs.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of the function's own scope, each before the nodes inside it: a nested
    def's, class's or lambda's node is listed, its body is its own. Read once for the walks
    that need the whole scope (``local_uses.followed_names``,
    ``aliases.part_name_candidates``)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [*fn.body]
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, SCOPES):
            todo.extend(children(node))
    return out

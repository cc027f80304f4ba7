"""A method's parameters whose value the body keeps as it is, reading none of its numbers:
``self.decoder.weight = weight`` after ``weight.size(1)`` sized the layer (a tied weight
handed in). What such a constructor is handed stays the caller's tensor, unread."""

from __future__ import annotations

import ast

from initlint.facts.expressions import dotted
from initlint.facts.reads import SIZE_ATTRS
from initlint.facts.walk import SCOPES, children

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# A call a parameter is handed to whole: (callee as written, place or -1, keyword or "").
Handed = tuple[str, int, str]


def kept_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[Handed, ...]]:
    """The parameters of the method ``fn`` (after ``self``) that its body mentions only as
    the whole value stored on an attribute (``self.w = w``, ``self.fc.weight = w``), for
    what it is (``w.size(0)``, ``w.shape``, ``w.dtype``), in a test against None, or as a
    whole argument of a call (``Head(cfg, w)``), each with those calls: the caller asks
    whether each of them keeps it as it is. Any other mention (an operand, a method called,
    rebound, read in a nested scope or a comprehension) keeps it out, and so does a
    decorator."""
    given = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs][1:]
    names = {a.arg for a in given}
    if fn.decorator_list or not names:
        return {}
    harmless: set[int] = set()  # id() of the ``Name`` nodes mentioned as above
    # each name's mentions as a whole argument of a call: (callee, place, keyword)
    handed: dict[str, list[tuple[str, int, str]]] = {}
    mentioned: set[str] = set()
    spoilt: set[str] = set()
    todo: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in fn.body]
    while todo:  # (a parent comes before its children)
        node, nested = todo.pop()
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Attribute) for t in node.targets):
            harmless.add(id(node.value))
        elif isinstance(node, ast.Attribute) and node.attr in SIZE_ATTRS:
            harmless.add(id(node.value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], ast.Is | ast.IsNot):
                right = node.comparators[0]
                if isinstance(right, ast.Constant) and right.value is None:
                    harmless.add(id(node.left))
        elif isinstance(node, ast.Call) and not nested and dotted(node.func):
            for where, arg in _whole_args(node):
                if isinstance(arg, ast.Name) and arg.id in names:
                    harmless.add(id(arg))
                    handed.setdefault(arg.id, []).append((dotted(node.func), *where))
        elif isinstance(node, ast.Name) and node.id in names:
            mentioned.add(node.id)
            if nested or id(node) not in harmless or not isinstance(node.ctx, ast.Load):
                spoilt.add(node.id)
        inner = nested or isinstance(node, SCOPES + _COMPREHENSIONS)
        todo.extend((child, inner) for child in children(node))
    return {name: tuple(handed.get(name, ())) for name in mentioned - spoilt}


def _whole_args(call: ast.Call) -> list[tuple[tuple[int, str], ast.expr]]:
    """The arguments of ``call`` with where each sits, (place, "") or (-1, keyword); none
    after a ``*args`` (the places are not known then), none for ``**kw``."""
    out: list[tuple[tuple[int, str], ast.expr]] = []
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        out.append(((i, ""), arg))
    out.extend(((-1, k.arg), k.value) for k in call.keywords if k.arg is not None)
    return out

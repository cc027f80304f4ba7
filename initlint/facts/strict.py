"""The ``self`` attributes a statement reads for sure, before anything could set them.

``strict_reads`` walks a statement in evaluation order and collects each ``self.x`` that is
loaded whenever the statement runs (so a missing ``x`` raises AttributeError there), up to
the first call that could set attributes of ``self`` (a method of ``self`` or of an object
it holds, a ``super()`` method). A read that may not happen is not collected:

- a branch of ``a if c else b``, an operand of ``and``/``or`` after the first, a comparison
  of a chain after the first, a comprehension's element (its first iterable is evaluated);
- a lambda's body, an ``assert`` (``python -O`` skips it), a ``del``, an annotation;
- ``getattr``/``hasattr`` (with a default or not): a call ``self`` is passed to ends the walk;
  a statement that passes ``self`` on otherwise is not walked at all (its reads hold ``*``).

The simulation (docs/design.md, "Reads") makes a path raise where one of these names is definitely
unset; everything else about reads stays over-approximated in ``facts.reads``.
"""

from __future__ import annotations

import ast

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def strict_reads(nodes: list[ast.AST], self_name: str) -> frozenset[str]:
    """The attributes of ``self_name`` that ``nodes`` (one statement, or the head of an
    ``if``/loop/``with``/``match``) read for sure; see the module docstring. The caller
    passes only statements that use ``self`` as an attribute receiver, a ``super()``/
    ``getattr``-style argument at most (``facts.reads``: no ``*`` among their reads)."""
    if not self_name:
        return frozenset()
    walker = _Walker(self_name)
    for node in nodes:
        walker.run(node)
        if walker.stopped:
            break
    return frozenset(walker.reads)


def closes_over(body: list[ast.stmt], self_name: str) -> bool:
    """A function or class defined in ``body`` that names ``self_name``: calling it may set
    attributes with no statement of the body showing it."""
    for stmt in body:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if any(isinstance(n, ast.Name) and n.id == self_name for n in ast.walk(sub)):
                    return True
    return False


class _Walker:
    """An evaluation-order walk with an explicit stack (deep expressions stay flat)."""

    def __init__(self, self_name: str) -> None:
        self.me = self_name
        self.reads: set[str] = set()
        self.stopped = False

    def run(self, root: ast.AST) -> None:
        # Items: ("load", node), ("store", node), ("maybe", node): evaluated perhaps, so not
        # collected, but a call in it that could set attributes ends the walk; ("called",
        # node): a call's function and arguments were evaluated, the call runs now.
        stack: list[tuple[str, ast.AST]] = [("load", root)]
        while stack and not self.stopped:
            how, node = stack.pop()
            if how == "maybe":
                if any(isinstance(s, ast.Call) and self._may_set(s) for s in ast.walk(node)):
                    self.stopped = True
                continue
            if how == "called":
                assert isinstance(node, ast.Call)
                if self._may_set(node):
                    self.stopped = True
                continue
            todo = self._store(node) if how == "store" else self._load(node)
            stack.extend(reversed(todo))

    def _may_set(self, call: ast.Call) -> bool:
        """A call that could set an attribute of ``self``: a method of ``self``, of an object
        ``self`` holds, or of ``super()``, or one ``self`` is passed to (``setattr(self,
        "x", v)``, ``getattr(self, "x")``)."""
        if any(isinstance(a, ast.Name) and a.id == self.me for a in call.args):
            return True
        node: ast.AST = call.func
        while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name) and node.func.id == "super":
                    return True
                node = node.func
            else:
                node = node.value
        return isinstance(node, ast.Name) and node.id == self.me

    def _store(self, node: ast.AST) -> list[tuple[str, ast.AST]]:
        """A target: ``self.x = v`` reads nothing; ``self.a.b = v`` and ``self.d[k] = v``
        read ``a`` and ``d``."""
        if isinstance(node, ast.Tuple | ast.List):
            return [("store", e) for e in node.elts]
        if isinstance(node, ast.Starred):
            return [("store", node.value)]
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name):
                return []
            return [("load", node.value)]
        if isinstance(node, ast.Subscript):
            return [("load", node.value), ("load", node.slice)]
        return []

    def _load(self, node: ast.AST) -> list[tuple[str, ast.AST]]:
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.me:
                if isinstance(node.ctx, ast.Load):
                    self.reads.add(node.attr)
                return []
            return [("load", node.value)]
        if isinstance(node, ast.Assign):
            return [("load", node.value), *(("store", t) for t in node.targets)]
        if isinstance(node, ast.AnnAssign):
            return [] if node.value is None else [("load", node.value), ("store", node.target)]
        if isinstance(node, ast.AugAssign):
            return [("store", node.target), ("load", node.value)]
        if isinstance(node, ast.NamedExpr):
            return [("load", node.value)]
        if isinstance(node, ast.Assert | ast.Delete | ast.Lambda):
            return [("maybe", node)]
        if isinstance(node, ast.Call):
            return [
                ("load", node.func),
                *(("load", a) for a in node.args),
                *(("load", k.value) for k in node.keywords),
                ("called", node),
            ]
        if isinstance(node, ast.IfExp):
            return [("load", node.test), ("maybe", node.body), ("maybe", node.orelse)]
        if isinstance(node, ast.BoolOp):
            return [("load", node.values[0]), *(("maybe", v) for v in node.values[1:])]
        if isinstance(node, ast.Compare):
            first = [("load", node.left), ("load", node.comparators[0])]
            return [*first, *(("maybe", c) for c in node.comparators[1:])]
        if isinstance(node, _COMPREHENSIONS):
            gens = node.generators
            return [("load", gens[0].iter), ("maybe", node)]
        if isinstance(node, ast.Dict):
            out: list[tuple[str, ast.AST]] = []
            for k, v in zip(node.keys, node.values, strict=True):
                if k is not None:
                    out.append(("load", k))
                out.append(("load", v))
            return out
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return [("maybe", node)]
        if isinstance(node, ast.expr | ast.stmt | ast.withitem | ast.keyword):
            if isinstance(node, ast.withitem):
                tail = [] if node.optional_vars is None else [("store", node.optional_vars)]
                return [("load", node.context_expr), *tail]
            return [("load", c) for c in ast.iter_child_nodes(node) if _evaluated(c)]
        return []


def _evaluated(node: ast.AST) -> bool:
    return isinstance(node, ast.expr | ast.stmt | ast.withitem | ast.keyword)

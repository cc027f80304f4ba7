"""Functions that do nothing with one of their parameters but give parts of it new values
(``def load_params(layer, weight, bias): layer.weight.data = torch.tensor(...)``): a call of
one hands it an object only to replace those parts, so what the object's construction built
of them is thrown away at the call, as if the replacements were written there."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from initlint.facts.effect_log import names_loaded, without_docstring
from initlint.facts.model import Expr
from initlint.facts.walk import own_nodes
from initlint.records import dataclass


@dataclass(frozen=True)
class PartSet:
    """A part of the parameter given a new value: ``part`` (``weight`` for ``layer.weight``
    and ``layer.weight.data``), whether the function does it on every path (no test around
    it), and whether the new value is ``None`` (the part dropped)."""

    part: str
    every_path: bool
    dropped: bool

    @property
    def value(self) -> Expr:
        """The new value as the caller's effect of the assignment holds it: ``None``, or a
        value that reads nothing of the caller's."""
        return Expr("const") if self.dropped else Expr("other")


def parts_set(fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> tuple[PartSet, ...]:
    """What ``fn`` does to its parameter ``param``, when all it does with it is assign
    parts of it one level down from values that read nothing of it, under tests that read
    nothing of it, with no ``return`` or ``raise`` anywhere (the function runs to its end);
    () otherwise."""
    if isinstance(fn, ast.AsyncFunctionDef) or fn.decorator_list:
        return ()
    if any(
        isinstance(n, ast.Return | ast.Raise | ast.Yield | ast.YieldFrom) for n in own_nodes(fn)
    ):
        return ()
    body = without_docstring(fn.body)
    found: list[PartSet] = []
    for every_path, stmt in _statements(body, True):
        if param not in names_loaded(stmt):
            continue
        part = _part_assigned(stmt, param)
        if part is None:
            return ()
        assert isinstance(stmt, ast.Assign)
        dropped = isinstance(stmt.value, ast.Constant) and stmt.value.value is None
        found.append(PartSet(part, every_path, dropped))
    return tuple(found)


def _statements(body: list[ast.stmt], every_path: bool) -> Iterator[tuple[bool, ast.stmt]]:
    """The statements of ``body``, an ``if``'s own test and arms read through (their
    statements then on some paths only); any other compound statement as one."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield every_path, ast.Expr(stmt.test)
            yield from _statements(stmt.body, False)
            yield from _statements(stmt.orelse, False)
        else:
            yield every_path, stmt


def _part_assigned(stmt: ast.stmt, param: str) -> str | None:
    """``param.part = v`` or ``param.part.data = v``, with ``v`` reading nothing of
    ``param``: ``part``; None for any other statement."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Attribute) and target.attr == "data":
        target = target.value
    if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
        return None
    if target.value.id != param or param in names_loaded(stmt.value):
        return None
    return target.attr

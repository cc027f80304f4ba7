"""Tensors handed to a constructor that keeps them as they are: ``Head(cfg,
self.bert.embeddings.word_embeddings.weight)``, whose ``__init__`` ties the weight into a
layer and reads only its shape, directly or through the constructors it hands it on to.
The numbers of what is handed so are not read. Read from the ``__init__``'s source when
asked (``facts/kept_params.py``): few stores hand a part of a costly held object on."""

from __future__ import annotations

import ast

from initlint.facts.kept_params import Handed, kept_params
from initlint.facts.model import BodyError
from initlint.index.project import ProjectIndex
from initlint.index.records import FunctionInfo, Module
from initlint.simulation.arguments import param_at
from initlint.sources import source_tree

# How many constructors deep a value handed on is followed.
_DEPTH = 4


def keeps_as_is(index: ProjectIndex, module: Module, callee: str, place: int, keyword: str) -> bool:
    """Whether calling ``callee`` (as written in ``module``) keeps the argument at
    ``place`` (or passed as ``keyword``, ``place`` -1) as it is, reading none of its
    numbers: a class of the project or a dependency whose ``__init__`` does so."""
    return _keeps(index, module, (callee, place, keyword), _DEPTH)


def _keeps(index: ProjectIndex, module: Module, call: Handed, depth: int) -> bool:
    callee, place, keyword = call
    target = index.resolve(module, callee)
    if depth == 0 or target is None or target.kind != "class":
        return False
    init = index.constructor(target.name)
    body = init.facts.load() if init is not None else None
    if init is None or body is None or isinstance(body, BodyError):
        return False
    if init.facts.decorators:
        return False  # (its wrapper may read what it is given; the source read has no lines of it)
    param = param_at(body.params[1:], place, keyword)
    kept = _kept(init) if param is not None else None
    if param is None or kept is None or param.name not in kept:
        return False
    return all(_keeps(index, init.module, by, depth - 1) for by in kept[param.name])


def _kept(init: FunctionInfo) -> dict[str, tuple[Handed, ...]] | None:
    fn = def_of(init)
    return kept_params(fn) if fn is not None else None


def def_of(fn: FunctionInfo) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` statement of ``fn``, read from its source (from the ``def`` line: its
    decorators are not part of it); None where it cannot be read."""
    span = fn.facts.span
    tree = source_tree(fn.module.path, span.line, span.end_line)
    node = tree.body[0] if tree is not None and tree.body else None
    return node if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None


def runs_when_called(fn: FunctionInfo) -> bool:
    """Whether calling ``fn`` runs its body: not a generator (a ``yield`` makes the call
    return one, running nothing) nor a coroutine; False where its source cannot be read."""
    node = def_of(fn)
    if not isinstance(node, ast.FunctionDef):
        return False
    inner = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    todo: list[ast.AST] = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom):
            return False
        if not isinstance(n, inner):
            todo.extend(ast.iter_child_nodes(n))
    return True

"""Tensors handed to a constructor that keeps them as they are: ``Head(cfg,
self.bert.embeddings.word_embeddings.weight)``, whose ``__init__`` ties the weight into a
layer and reads only its shape, directly or through the constructors it hands it on to
(``Param.kept``). The numbers of what is handed so are not read."""

from __future__ import annotations

from initlint.facts.model import BodyError, Param
from initlint.index.project import ProjectIndex
from initlint.index.records import Module

# How many constructors deep a value handed on is followed.
_DEPTH = 4


def keeps_as_is(index: ProjectIndex, module: Module, callee: str, place: int, keyword: str) -> bool:
    """Whether calling ``callee`` (as written in ``module``) keeps the argument at
    ``place`` (or passed as ``keyword``, ``place`` -1) as it is, reading none of its
    numbers: a class of the project or a dependency whose ``__init__`` does so."""
    return _keeps(index, module, callee, place, keyword, _DEPTH)


def _keeps(
    index: ProjectIndex, module: Module, callee: str, place: int, keyword: str, depth: int
) -> bool:
    target = index.resolve(module, callee)
    if depth == 0 or target is None or target.kind != "class":
        return False
    mro = index.mro(target.name)
    init = index.lookup_method(mro.classes, "__init__") if mro.ok else None
    body = init.facts.load() if init is not None else None
    if init is None or body is None or isinstance(body, BodyError):
        return False
    param = _bound(body.params[1:], place, keyword)
    return (
        param is not None
        and param.kept
        and all(_keeps(index, init.module, *by, depth - 1) for by in param.kept_by)
    )


def _bound(params: tuple[Param, ...], place: int, keyword: str) -> Param | None:
    """The parameter an argument at ``place`` (or passed as ``keyword``) binds to."""
    if keyword:
        return next((p for p in params if p.name == keyword and p.kind != "posonly"), None)
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    return positional[place] if 0 <= place < len(positional) else None

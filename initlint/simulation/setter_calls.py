"""Calls of a project function that only gives parts of an object it is handed new values
(``load_params(layer, weight, bias)``, ``facts/part_setters.py``): read from the function's
source when a built object is handed to one, few are."""

from __future__ import annotations

from initlint.facts.model import BodyError
from initlint.facts.part_setters import PartSet, parts_set
from initlint.index.records import FunctionInfo
from initlint.simulation.arguments import param_at
from initlint.simulation.handed import def_of


def parts_set_at(fn: FunctionInfo, place: int, keyword: str) -> tuple[PartSet, ...]:
    """The parts ``fn`` gives new values of the argument it is handed at ``place`` (or as
    ``keyword``, ``place`` -1), doing nothing else with it; () for any other function or
    argument (a method: what it does with the object is its own)."""
    if fn.owner is not None or fn.facts.decorators:
        return ()
    body = fn.facts.load()
    if body is None or isinstance(body, BodyError):
        return ()
    param = param_at(body.params, place, keyword)
    if param is None or param.kind in ("vararg", "kwarg"):
        return ()
    node = def_of(fn)
    return parts_set(node, param.name) if node is not None else ()

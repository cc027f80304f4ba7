"""The edits a switch-off or thread fix makes at a call site and a signature: a keyword in
a super call (popped from forwarded ``**kwargs`` first), a parameter added to an
intermediate ``__init__`` and passed on."""

from __future__ import annotations

from initlint.facts.model import Effect, Param
from initlint.fixplan import AddParam, InsertBefore, Op, SetKeyword
from initlint.index.records import FunctionInfo
from initlint.simulation.records import Event


def kwarg_of(fn: FunctionInfo) -> str:
    return next((p.name for p in fn.facts.params if p.kind == "kwarg"), "")


def forwards_kwargs(eff: Effect, kwarg: str) -> bool:
    return bool(kwarg) and any(a.star == 2 and a.text == kwarg for a in eff.args)


def _positional_index(params: tuple[Param, ...], name: str) -> int | None:
    pos = [p for p in params if p.kind in ("pos", "posonly")][1:]  # without self
    for i, p in enumerate(pos):
        if p.name == name:
            return i
    return None


def caller_ops(super_ev: Event, name: str, value: str) -> list[Op] | None:
    """Pass ``name=value`` in C's super call; pop it from forwarded **kwargs first."""
    callee = super_ev.callee
    if callee is None:
        return None
    eff = super_ev.effect
    fn = super_ev.fn
    positional = _positional_index(callee.facts.params, name)
    if positional is not None and any(a.star == 1 for a in eff.args):
        return None  # a forwarded *args may already fill that parameter positionally
    explicit = eff.detail == "explicit"
    ops: list[Op] = [
        SetKeyword(
            fn.module.path,
            eff.span.line,
            eff.span.col,
            name,
            value,
            positional=None if positional is None else positional + (1 if explicit else 0),
        )
    ]
    kwarg = kwarg_of(fn)
    if forwards_kwargs(eff, kwarg):
        span = eff.stmt_span or eff.span
        ops.insert(0, InsertBefore(fn.module.path, span.line, f'{kwarg}.pop("{name}", None)\n'))
    return ops


def add_param(fn: FunctionInfo, name: str, default: str = "True") -> AddParam:
    kwonly = any(p.kind in ("vararg", "kwonly") for p in fn.facts.params)
    return AddParam(fn.module.path, fn.facts.span.line, fn.facts.name, name, kwonly, default)


def thread_ops(ev: Event, name: str, default: str) -> list[Op] | None:
    """Make the intermediate init ``ev.fn`` accept ``name`` (with ``default``, the one of the
    parameter it reaches: constructed alone, it does what it did) and pass it on in its
    super call."""
    fn, eff = ev.fn, ev.effect
    params = {p.name: p for p in fn.facts.params}
    explicit = [a for a in eff.args if a.keyword == name]
    passes = any(a.text == name for a in explicit)
    if name in params and passes:
        return []
    if explicit:
        return None  # it sets the flag itself (e.g. `flag=build`): the caller cannot reach it
    if name in params:
        return None  # a parameter of that name it does not pass on: maybe another meaning
    if forwards_kwargs(eff, kwarg_of(fn)):
        return []  # it travels in **kwargs
    ops: list[Op] = []
    if name not in params:
        ops.append(add_param(fn, name, default))
    ops.append(SetKeyword(fn.module.path, eff.span.line, eff.span.col, name, name))
    return ops

"""Turn a finding into a fix plan: the three strategies of DESIGN §5, in order."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from initlint.facts.model import Effect, Param
from initlint.fix.ops import (
    AddParam,
    DeleteStatement,
    FixPlan,
    InsertBefore,
    Op,
    SetKeyword,
    WrapInIf,
)
from initlint.index.project import FunctionInfo
from initlint.rules.base import Finding
from initlint.simulation.engine import Event, Simulation, Simulator
from initlint.simulation.values import TRUE
from initlint.sources import UnreadableError, read_source


@dataclass
class Planner:
    simulator: Simulator
    flag_name: str = ""

    def plan(self, f: Finding) -> FixPlan | None:
        if f.code not in ("IL001", "IL002", "IL003") or f.event is None or f.first is None:
            return None
        sim = f.sim
        top_super = _top_super(sim)
        s1 = self._switch_off(f, top_super) if f.flag is not None else None
        if s1 is not None and s1.applicability == "safe":
            return s1
        s3 = self._delete_identical(f)
        if s3 is not None:
            return s3
        if s1 is not None:
            return s1
        return self._thread_or_introduce(f, top_super)

    # -- strategy 1 ------------------------------------------------------------------------
    def _switch_off(self, f: Finding, top_super: Event | None) -> FixPlan | None:
        flag = f.flag
        assert flag is not None and f.first is not None
        if top_super is None:
            return None
        resim = self.simulator.simulate(f.sim.cls, inject=(flag.param, flag.off_value))
        if resim is None or _live(resim, f.first) or not _live(resim, f.event):
            return None
        if resim.conflicts > f.sim.conflicts:
            return None  # the flag would reach a call that already sets it: a TypeError
        ops = _caller_ops(top_super, flag.param, flag.off_value)
        if ops is None:
            return None
        switched = [
            e
            for e in resim.events
            if e.shadow
            and e.kind in ("buffer", "assign")
            and any(o.frame == resim.top_frame for o in e.switched_off_by)
        ]
        redone = {
            (e.kind, e.name)
            for e in resim.events
            if not e.shadow and not e.ancestor and e.status == TRUE
        }
        # A mixin's super call reaches different bases in different classes: never safe.
        mixin = f.sim.top_fn is not None and f.sim.top_fn.owner is not f.sim.cls
        safe = not mixin and all(
            (e.kind, e.name) in redone or (e.kind == "assign" and not e.expensive) for e in switched
        )
        msg = f"pass `{flag.param}={flag.off_value}` to super().__init__()"
        return FixPlan("safe" if safe else "unsafe", msg, tuple(ops), 1)

    # -- strategy 2 ------------------------------------------------------------------------
    def _thread_or_introduce(self, f: Finding, top_super: Event | None) -> FixPlan | None:
        assert f.first is not None
        if top_super is None:
            return None
        sim = f.sim
        chain = _super_chain(sim, f.first)
        if not chain:
            return None
        ops: list[Op] = []
        if f.flag is not None:
            name, off = f.flag.param, f.flag.off_value
            target_fn = f.flag.function
            threaded_note = ""
        else:
            if f.code == "IL002" and (f.first.effect.feeds or f.first.effect.feeds_other):
                return None  # the ancestor uses the call's result: guarding it drops state
            site = _work_site(sim, f.first)
            if site is None:
                return None
            target_fn, stmt_effect = site
            name = self.flag_name or _flag_for(f.first)
            off = False
            if any(p.name == name for p in target_fn.facts.params):
                return None
            ops.append(_add_param(target_fn, name))
            attr = f.first.name if f.first.kind in ("buffer", "assign") else ""
            line = _wrap_line(target_fn, stmt_effect, attr)
            ops.append(WrapInIf(target_fn.module.path, line, name, attr))
            threaded_note = f"; add `{name}: bool = True` to {_label(target_fn)}"
        # Thread the flag through every __init__ between C's and the one that owns it.
        names = []
        for ev in chain[1:]:
            if ev.fn.qualname == target_fn.qualname:
                break
            step = _thread_ops(ev, name)
            if step is None:
                return None
            if step:
                names.append(_label(ev.fn).rsplit(".", 1)[0])
            ops.extend(step)
        caller = _caller_ops(top_super, name, off)
        if caller is None:
            return None
        ops.extend(caller)
        msg = f"pass `{name}={off}` to super().__init__(){threaded_note}"
        if names:
            msg += f"; thread `{name}` through {', '.join(names)}"
        return FixPlan("unsafe", msg, tuple(dict.fromkeys(ops)), 2)

    # -- strategy 3 ------------------------------------------------------------------------
    def _delete_identical(self, f: Finding) -> FixPlan | None:
        ev, first = f.event, f.first
        assert ev is not None and first is not None
        if ev.frame != f.sim.top_frame:
            return None
        eff = ev.effect
        if eff.kind == "call" and (eff.feeds or eff.feeds_other):
            return None
        if eff.kind not in ("call", "buffer"):
            return None
        mine = _statement_text(ev)
        theirs = _statement_text(first)
        if mine is None or mine != theirs or not _single_effect_statement(ev):
            return None
        # Equal text is equal work only when it reads no locals or parameters, whose values
        # can differ between the two functions.
        if _reads_locals(ev) or _reads_locals(first):
            return None
        # Deleting the redo must leave the ancestor's value as the final one: nothing between
        # the two may write the same state.
        if _written_between(f.sim, first, ev):
            return None
        span = eff.stmt_span or eff.span
        return FixPlan(
            "safe",
            "delete the repeated statement",
            (DeleteStatement(ev.fn.module.path, span.line),),
            3,
        )


def _key(e: Event) -> tuple[str, int]:
    return e.fn.qualname, e.effect_index


def _live(sim: Simulation, event: Event | None) -> bool:
    if event is None:
        return False
    key = _key(event)
    return any(not e.shadow and _key(e) == key for e in sim.events)


def _top_super(sim: Simulation) -> Event | None:
    for e in sim.events:
        if e.kind == "super_init" and e.frame == sim.top_frame and not e.shadow:
            return e
    return None


def _super_chain(sim: Simulation, first: Event) -> list[Event]:
    """The super_init events from C's init down to the frame that did ``first``."""
    chain = []
    p = first.parent
    while p is not None:
        ev = sim.events[p]
        if ev.kind == "super_init":
            chain.append(ev)
        p = ev.parent
    return list(reversed(chain))


def _work_site(sim: Simulation, first: Event) -> tuple[FunctionInfo, Effect] | None:
    """The __init__ and its statement that (directly or through a helper) did ``first``."""
    ev: Event | None = first
    while ev is not None:
        if ev.fn.facts.name == "__init__":
            return ev.fn, ev.effect
        ev = sim.events[ev.parent] if ev.parent is not None else None
    return None


def _wrap_line(fn: FunctionInfo, eff: Effect, attr: str) -> int:
    """Wrap the whole top-level `with` when it exists only to do this work (e.g. open+load)."""
    span = eff.stmt_span or eff.span
    if not eff.top_with:
        return span.line
    same = [e for e in fn.facts.effects if e.top_line == eff.top_line]
    only_this = all(
        e.kind == "local"
        or (e.kind in ("assign", "buffer") and e.name == attr)
        or (e.kind == "call" and e.feeds)
        for e in same
    )
    return eff.top_line if only_this and attr else span.line


def _flag_for(first: Event) -> str:
    base = first.name.lstrip("_") if first.kind in ("buffer", "assign") else first.name.lstrip("_")
    base = re.sub(r"\W", "_", base) or "setup"
    return f"init_{base}"


def _label(fn: FunctionInfo) -> str:
    parts = fn.qualname.split(".")
    return ".".join(parts[-2:])


def _kwarg(fn: FunctionInfo) -> str:
    return next((p.name for p in fn.facts.params if p.kind == "kwarg"), "")


def _forwards_kwargs(eff: Effect, kwarg: str) -> bool:
    return bool(kwarg) and any(a.star == 2 and a.text == kwarg for a in eff.args)


def _positional_index(params: tuple[Param, ...], name: str) -> int | None:
    pos = [p for p in params if p.kind in ("pos", "posonly")][1:]  # without self
    for i, p in enumerate(pos):
        if p.name == name:
            return i
    return None


def _caller_ops(super_ev: Event, name: str, value: bool) -> list[Op] | None:
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
            repr(value),
            positional=None if positional is None else positional + (1 if explicit else 0),
        )
    ]
    kwarg = _kwarg(fn)
    if _forwards_kwargs(eff, kwarg):
        span = eff.stmt_span or eff.span
        ops.insert(0, InsertBefore(fn.module.path, span.line, f'{kwarg}.pop("{name}", None)\n'))
    return ops


def _add_param(fn: FunctionInfo, name: str) -> AddParam:
    kwonly = any(p.kind in ("vararg", "kwonly") for p in fn.facts.params)
    return AddParam(fn.module.path, fn.facts.span.line, fn.facts.name, name, kwonly)


def _thread_ops(ev: Event, name: str) -> list[Op] | None:
    """Make the intermediate init ``ev.fn`` accept ``name`` and pass it on in its super call."""
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
    if _forwards_kwargs(eff, _kwarg(fn)):
        return []  # it travels in **kwargs
    ops: list[Op] = []
    if name not in params:
        ops.append(_add_param(fn, name))
    ops.append(SetKeyword(fn.module.path, eff.span.line, eff.span.col, name, name))
    return ops


def _statement_source(ev: Event) -> str | None:
    span = ev.effect.stmt_span or ev.effect.span
    try:
        src = read_source(ev.fn.module.path)
    except UnreadableError:
        return None
    lines = src.text.splitlines()
    chunk = textwrap.dedent("\n".join(lines[span.line - 1 : span.end_line]))
    try:
        ast.parse(chunk)
    except SyntaxError:
        return None
    return chunk


def _statement_text(ev: Event) -> str | None:
    chunk = _statement_source(ev)
    return None if chunk is None else ast.dump(ast.parse(chunk))


def _writes(sim: Simulation, ev: Event) -> set[str]:
    """Names of buffers/attributes written by ``ev`` or by the frames it called."""
    if ev.kind in ("buffer", "assign"):
        return {ev.name}
    inside: set[int] = {ev.index}
    names: set[str] = set()
    for e in sim.events[ev.index + 1 :]:
        if e.parent in inside:
            inside.add(e.index)
            if e.kind in ("buffer", "assign"):
                names.add(e.name)
    return names


def _written_between(sim: Simulation, first: Event, ev: Event) -> bool:
    names = _writes(sim, first) | _writes(sim, ev)
    skip = {first.index, ev.index}
    for e in sim.events[first.index + 1 : ev.index]:
        if e.shadow or e.index in skip or e.kind not in ("buffer", "assign"):
            continue
        if e.name in names and not _descends(sim, e, first):
            return True
    return False


def _descends(sim: Simulation, e: Event, root: Event) -> bool:
    p = e.parent
    while p is not None:
        if p == root.index:
            return True
        p = sim.events[p].parent
    return False


def _reads_locals(ev: Event) -> bool:
    text = _statement_source(ev)
    if text is None:
        return True
    facts = ev.fn.facts
    local = {p.name for p in facts.params[1:]} | {
        e.name for e in facts.effects if e.kind == "local"
    }
    loaded = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    return bool(loaded & local)


def _single_effect_statement(ev: Event) -> bool:
    """The statement is a bare expression statement holding just this effect."""
    eff = ev.effect
    span = eff.stmt_span
    return (
        span is not None
        and (span.line, span.col) == (eff.span.line, eff.span.col)
        and ((span.end_line, span.end_col) == (eff.span.end_line, eff.span.end_col))
    )

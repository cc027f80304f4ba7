"""IL005's fix: delete a build that the same construction replaces, unread, on every path.

The rule has shown that a later store replaces the value on every path on which it is built
and that nothing reads it in between; what is left to check here is that the statement does
nothing but that store, so that deleting it changes no state (docs/design.md, "Fixes"); and
what leaving a build out moves in the registration order, which the flag fixes ask too."""

from __future__ import annotations

import ast
from pathlib import Path

from initlint.fixplan import DeleteStatement, FixPlan
from initlint.rules.base import RepeatFinding
from initlint.simulation.levels import NONE
from initlint.simulation.reads import statement_events
from initlint.simulation.records import Event, Simulation
from initlint.sources import UnreadableError, read_source

_REGISTER = ("register_buffer", "register_parameter")


def delete_discarded(f: RepeatFinding) -> FixPlan | str:
    """The plan deleting ``f.first``'s statement, or why there is none."""
    first, sim = f.first, f.sim
    if first.frame != sim.top_frame:
        # A helper's build: other callers of the helper may keep it.
        helper = first.fn.qualname.rsplit(".", 1)[-1]
        return f"the build is in {helper}(), which other code may call"
    events = statement_events(sim, first)
    touches = [e.effect for e in events if e.kind == "touch"]
    # Other work in the statement, another attribute written, or ``self`` handed to the code
    # that builds the value (``Foo(self)``, "*"): effects that deleting it would lose.
    writes = {n for t in touches for n in t.writes} - {first.name}
    handed = any("*" in t.reads for t in touches)
    if writes or handed or any(e is not first and e.kind != "touch" for e in events):
        return "the statement that builds it does more than store it"
    if first.kind == "buffer" and f.event.kind != "buffer":
        # (a store into a registered name updates the registration; without it, the
        # store leaves a plain attribute: no buffer in ``state_dict()``, none moved by
        # ``.to()``; a store of new numbers, ``self.w.data = t``, finds nothing to set)
        what = first.effect.detail or "buffer"
        return f"the later store needs the registered {what} there"
    between = sim.events[first.index + 1 : f.event.index]
    if any(e.kind == "touch" and not e.shadow and first.name in e.effect.reads for e in between):
        # (what the value is, its dtype or device, or whether it is None: read before the
        # store, it must be there)
        return "a statement reads the attribute (what it is) before it is replaced"
    if any(first.name in e.passed_on for e in between):
        # (handing the part to a method reads nothing of it, but names it: without the
        # build that statement finds no attribute to hand)
        return "a statement hands the build to a method before it is replaced"
    span = first.effect.stmt_span or first.effect.span
    if not _only_stores(first.fn.module.path, span.line, span.end_line, first.name):
        return "the statement that builds it does more than store it"
    # The value is registered where the replacing store runs, not where it was built: if
    # other modules or tensors are registered in between, they come first now, and with
    # them ``parameters()``'s order, which optimizer state saved by position depends on.
    moved = moved_past(sim, first, f.event)
    if moved:
        return FixPlan(
            "unsafe",
            f"delete the discarded build ({moved})",
            (DeleteStatement(first.fn.module.path, span.line),),
            4,
        )
    return FixPlan(
        "safe",
        "delete the discarded build",
        (DeleteStatement(first.fn.module.path, span.line),),
        4,
    )


def moved_past(
    sim: Simulation, first: Event, later: Event, also_moved: frozenset[int] = frozenset()
) -> str:
    """What a fix that leaves out ``first`` (so that ``later``'s store registers the value)
    moves it past, worded for the fix's message; "" when nothing. A module's children and
    tensors keep the order they were first registered in, and ``state_dict()`` and
    ``parameters()`` follow it (optimizer state saved by position depends on it): a store of
    another costly value in between, not itself left out (``also_moved``), then comes first."""
    if first.cost == NONE:
        return ""
    between = [
        e.name
        for e in sim.events
        if first.index < e.index < later.index
        and e.kind in ("assign", "buffer")
        and e.name != first.name
        and e.cost > NONE
        and not e.shadow
        and e.index not in also_moved
    ]
    if not between:
        return ""
    names = ", ".join(f"`self.{n}`" for n in dict.fromkeys(between))
    return (
        f"`self.{first.name}` then comes after {names} in the registration order: "
        "state_dict() and parameters() are ordered by it"
    )


def _only_stores(path: Path, line: int, end_line: int, name: str) -> bool:
    """The statement on ``line``..``end_line`` is one plain store of ``self.<name>``:
    ``self.x = v``, ``self.x: T = v`` or ``self.register_buffer("x", v...)``, and binds
    no local (no walrus)."""
    try:
        src = read_source(path)
    except UnreadableError:
        return False
    chunk = "\n".join(src.text.splitlines()[line - 1 : end_line])
    try:
        tree = ast.parse(chunk.strip())
    except SyntaxError:
        return False
    if len(tree.body) != 1 or any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree)):
        return False
    stmt = tree.body[0]
    match stmt:
        case ast.Assign(targets=[target]) | ast.AnnAssign(target=target, value=ast.expr()):
            return _self_attr(target) == name
        case ast.Expr(value=ast.Call(func=ast.Attribute(attr=attr) as func, args=[key, *_])):
            return (
                attr in _REGISTER
                and _is_self(func.value)
                and isinstance(key, ast.Constant)
                and key.value == name
            )
    return False


def _self_attr(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and _is_self(node.value):
        return node.attr
    return None


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"

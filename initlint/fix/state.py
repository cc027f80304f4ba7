"""Whether switching off some ancestor work keeps the object's state (docs/design.md, "What a
fix may change"), and the condition to pass when C redoes that work only under a condition.

The work switched off is a set of events of C's simulation. It keeps the state when:

- everything it writes, C rebuilds after its super call (a buffer as a buffer, an attribute as
  an attribute), under no condition or under one condition of C's own ``__init__`` that can be
  computed before the super call (then the flag passed is ``not <cond>``);
- nothing reads what it built between the switched-off write and C's rebuild (a later
  statement of the ancestor chain, a method either calls, or C itself before the rebuild).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from initlint.facts.reads import EVERYTHING
from initlint.index.records import FunctionInfo
from initlint.records import dataclass
from initlint.rules.shapes import function_tree
from initlint.simulation.reads import writes
from initlint.simulation.records import Event, Simulation
from initlint.simulation.values import TRUE

# Calls a condition may make and still be computed before the super call.
_PURE_CALLS = frozenset({"isinstance", "len", "getattr", "hasattr", "bool", "int", "str"})


_COMPOUND = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


@dataclass(frozen=True)
class Kept:
    """The switched-off work keeps the state; ``cond`` is C's condition for its redo (source
    text), or "" when C redoes it unconditionally."""

    cond: str = ""


def label(fn: FunctionInfo) -> str:
    parts = fn.qualname.split(".")
    return ".".join(parts[-2:])


def keeps_state(sim: Simulation, switched: Sequence[Event], top_super: Event) -> Kept | str:
    """Kept, or the reason (for "no fix: ...") why switching off ``switched`` loses state."""
    cls = sim.cls.qualname.rsplit(".", 1)[-1]
    live = [e for e in switched if not e.shadow]
    names = writes(live)
    if EVERYTHING in names:
        reader = next(e for e in live if e.kind == "touch" and EVERYTHING in e.effect.writes)
        return f"{label(reader.fn)} passes `self` on while doing the work"
    kinds: dict[str, str] = {}
    first_write: dict[str, int] = {}
    for e in live:
        if e.kind in ("buffer", "assign"):
            kinds.setdefault(e.name, e.kind)
        if e.kind in ("buffer", "assign") or (e.kind == "touch" and e.effect.writes):
            for n in {e.name} if e.kind != "touch" else e.effect.writes:
                first_write.setdefault(n, e.index)
    end = _subtree_end(sim, top_super)
    rebuilt: dict[str, Event] = {}
    for e in sim.events[end + 1 :]:
        if e.shadow or e.ancestor or e.kind not in ("buffer", "assign"):
            continue
        rebuilt.setdefault(e.name, e)
    guards: set[tuple[object, ...]] = set()
    cond_event: Event | None = None
    for n in sorted(names):
        redo = rebuilt.get(n)
        if redo is None or (n in kinds and kinds[n] != redo.kind):
            where = next((e for e in live if n == e.name or n in e.effect.writes), live[0])
            what = "registers" if kinds.get(n) == "buffer" else "sets"
            return (
                f"switching it off also drops `self.{n}` ({label(where.fn)} {what} it), "
                f"which {cls} does not redo"
            )
        if redo.status != TRUE:
            top = _top_statement(sim, redo)
            if top is None or top.status == TRUE or not top.effect.guard:
                return f"{cls} redoes `self.{n}` only under a condition inside {label(redo.fn)}"
            if top is redo and redone_on_every_arm(redo, n):
                continue  # each arm of C's ``if`` chain redoes it, or raises: always redone
            guards.add(top.effect.guard)
            cond_event = top
    if len(guards) > 1:
        return f"{cls} redoes the work under different conditions"
    switched_ids = {e.index for e in switched}
    for n in sorted(names):
        lo, hi = first_write.get(n, end), rebuilt[n].index
        for e in sim.events[lo + 1 : hi]:
            if e.shadow or e.index in switched_ids or e.kind != "touch":
                continue
            if n in e.effect.reads or EVERYTHING in e.effect.reads:
                how = "passes `self` on" if n not in e.effect.reads else f"reads `self.{n}`"
                when = "before it is rebuilt" if not e.ancestor else "after it is built"
                return f"{label(e.fn)} {how} {when} (line {e.effect.span.line})"
    if cond_event is None:
        return Kept()
    cond = condition_text(cond_event, top_super)
    if isinstance(cond, str) and cond.startswith("!"):
        return cond[1:]
    return Kept(cond)


def redone_on_every_arm(ev: Event, name: str) -> bool:
    """Whether the ``if`` chain of C's ``__init__`` that holds ``ev``'s statement stores
    ``self.<name>`` in every arm or raises there, ``else`` included: whichever arm runs, the
    value is replaced (``if kind == "a": self.x = A() elif ...: ... else: raise``)."""
    func = function_tree(ev.fn)
    if func is None:
        return False
    line = ev.effect.span.line - ev.fn.facts.span.line + 1
    chain = next(
        (
            s
            for s in func.body
            if isinstance(s, ast.If) and s.lineno <= line <= (s.end_lineno or s.lineno)
        ),
        None,
    )
    while isinstance(chain, ast.If):
        if not _stores_or_raises(chain.body, name):
            return False
        rest = chain.orelse
        if len(rest) == 1 and isinstance(rest[0], ast.If):
            chain = rest[0]
            continue
        return bool(rest) and _stores_or_raises(rest, name)
    return False


def _stores_or_raises(body: Sequence[ast.stmt], name: str) -> bool:
    """An arm that stores ``self.<name>`` at its top level, reading it nowhere before (the
    store's value included: the ancestor's value must not be needed), or that ends in a
    ``raise``."""
    if body and isinstance(body[-1], ast.Raise):
        return True
    for stmt in body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        stored = any(_is_self_attr(t, name) for t in targets)
        value = stmt.value if stored and isinstance(stmt, ast.Assign | ast.AnnAssign) else stmt
        if value is not None and any(
            isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and _is_self_attr(n, name)
            for n in ast.walk(value)
        ):
            return False  # the arm reads the ancestor's value before replacing it
        if stored:
            return True
    return False


def _is_self_attr(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _subtree_end(sim: Simulation, ev: Event) -> int:
    inside = {ev.index}
    last = ev.index
    for e in sim.events[ev.index + 1 :]:
        if e.parent not in inside:
            break
        inside.add(e.index)
        last = e.index
    return last


def _top_statement(sim: Simulation, ev: Event) -> Event | None:
    """The event of C's own ``__init__`` frame that led to ``ev`` (``ev`` itself when it is
    one)."""
    cur: Event | None = ev
    while cur is not None and cur.frame != sim.top_frame:
        cur = sim.events[cur.parent] if cur.parent is not None else None
    return cur


def condition_text(ev: Event, top_super: Event) -> str:
    """The source of the conjunction of ``if`` tests around ``ev``'s statement in C's
    ``__init__``; "!<reason>" when it cannot be computed before the super call."""
    fn = ev.fn
    func = function_tree(fn)
    if func is None:
        return "!the condition cannot be read"
    line = ev.effect.span.line - fn.facts.span.line + 1
    tests = _enclosing_tests(func.body, line)
    if tests is None or not tests:
        return "!the condition is not a plain `if` around the redo"
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    if func.args.args or func.args.posonlyargs:
        params.discard((func.args.posonlyargs or func.args.args)[0].arg)
    stored = {
        n.id for n in ast.walk(func) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    for test in tests:
        for node in ast.walk(test):
            if isinstance(node, ast.Name) and node.id not in params | _PURE_CALLS:
                return (
                    f"!the condition `{ast.unparse(test)}` reads `{node.id}`, which is not "
                    "known before super().__init__()"
                )
            if isinstance(node, ast.Name) and node.id in stored:
                return (
                    f"!the condition `{ast.unparse(test)}` reads `{node.id}`, which "
                    f"{label(fn)} reassigns"
                )
            if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS
            ):
                return f"!the condition `{ast.unparse(test)}` makes a call"
            if isinstance(node, ast.NamedExpr | ast.Lambda | ast.Await):
                return f"!the condition `{ast.unparse(test)}` cannot be moved"
    del top_super
    parts = [ast.unparse(t) for t in tests]
    return parts[0] if len(parts) == 1 else " and ".join(f"({p})" for p in parts)


def _enclosing_tests(body: Sequence[ast.stmt], line: int) -> list[ast.expr] | None:
    """The tests of the ``if`` statements whose *body* holds the statement on ``line``;
    None when it sits in an ``else``, a loop, a ``try`` or a ``with``."""
    for stmt in body:
        end = stmt.end_lineno or stmt.lineno
        if not stmt.lineno <= line <= end:
            continue
        if isinstance(stmt, ast.If):
            if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in stmt.body):
                inner = _enclosing_tests(stmt.body, line)
                return None if inner is None else [stmt.test, *inner]
            return None  # in the test itself, or in the else branch
        if isinstance(stmt, _COMPOUND):
            return None
        return []
    return None


def flag_value(cond: str, off_value: bool) -> str:
    """The value to pass for a flag whose ``off_value`` switches the work off, so that the
    work runs exactly when ``cond`` (C's condition for its redo) is false. ``not <x>`` is
    not negated twice: the value is then ``x`` itself when it is a comparison (a bool),
    else ``bool(x)``."""
    if not cond:
        return repr(off_value)
    try:
        tree = ast.parse(cond, mode="eval").body
    except SyntaxError:
        tree = None
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        inner_text = ast.unparse(tree.operand)
        as_bool = inner_text if _is_bool(tree.operand) else f"bool({inner_text})"
        return as_bool if not off_value else f"not {_paren(tree.operand, inner_text)}"
    single = isinstance(tree, ast.Name | ast.Attribute)
    inner = cond if single else f"({cond})"
    return f"not {inner}" if not off_value else f"bool({cond})"


def _is_bool(node: ast.expr) -> bool:
    """``node`` evaluates to a bool: a comparison, ``not``, or ``and``/``or`` of those."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_bool(v) for v in node.values)
    return False


def _paren(node: ast.expr, text: str) -> str:
    return text if isinstance(node, ast.Name | ast.Attribute) else f"({text})"

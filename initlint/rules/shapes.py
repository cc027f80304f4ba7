"""Where two events sit in the code of the frame they share: what IL005 needs of the control
flow that the facts do not keep (a bare ``return`` of an ``__init__``, the arms of a
``match``, an ``except`` handler, an ``assert`` that two conditions never hold together),
read from the function's source once per simulation."""

from __future__ import annotations

import ast
import textwrap
from typing import Literal

from initlint.facts.model import Span
from initlint.index.records import FunctionInfo
from initlint.records import dataclass
from initlint.simulation.records import Event, Simulation
from initlint.sources import UnreadableError, read_source

# A statement's place: the blocks around it, outermost first, each as (line of the compound
# statement, which block of it: "if.body", "if.orelse", "match.2", "try.body", ...).
Path = tuple[tuple[int, str], ...]
# How the later of two events relates to the earlier one, in the frame they share:
Relation = Literal[
    "",  # nothing between them ends the frame, and both may run
    "exclusive",  # other arms of one ``if``/``match`` (not in a loop): never both
    "fallback",  # the later sits in an ``except`` of the ``try`` whose body holds the first
    "maybe",  # a ``return`` between them may end the frame first (under a guard of its own)
    "always",  # a ``return`` between them ends the frame whenever the first ran
]
_ARMS = ("if.", "match.")
_LOOPS = ("for.", "while.")


@dataclass(frozen=True)
class Assertion:
    """``assert not (a and b)`` at ``line``: past it, the tests ``apart`` (their source texts)
    never all hold, on the paths through ``path``; ``names`` are what the tests read."""

    line: int
    path: Path
    apart: frozenset[str]
    names: frozenset[str]


@dataclass(frozen=True)
class Shape:
    """A function's statements by line: the path of blocks around each, its returns, the
    test of each ``if``, its assertions and where it binds each name or attribute."""

    blocks: dict[int, Path]
    returns: tuple[tuple[int, Path], ...]
    tests: dict[int, str]
    assertions: tuple[Assertion, ...]
    writes: tuple[tuple[int, str], ...]
    # the lines of the ``try`` statements one of whose handlers may let the function go on
    # after it (it ends in no ``return`` or ``raise``)
    caught: frozenset[int] = frozenset()
    # each ``continue`` and ``break``: its line and the path of blocks around it
    jumps: tuple[tuple[int, Path], ...] = ()

    def path(self, line: int) -> Path:
        return self.blocks.get(line, ())

    def holding(self, path: Path) -> set[str]:
        """The tests that hold on a path: those of the ``if`` bodies it enters."""
        return {self.tests[line] for line, field in path if field == "if.body"}


def relation(sim: Simulation, first: Event, later: Event) -> Relation:
    """How ``later`` relates to ``first`` in the innermost frame they share (the top frame
    at worst): each is represented there by itself or by the call it runs under."""
    pair = _anchors(sim, first, later)
    if pair is None:
        return ""
    a, b = pair
    shape = shape_of(sim, a.fn)
    if shape is None:
        return "maybe"  # (the source cannot be read again: assume the worst)
    a_span, b_line, mine, theirs = _positions(shape, a, b)
    arms = _split(mine, theirs)
    if arms is not None:
        return arms
    if _asserted_apart(shape, a_span.line, b_line, mine, theirs):
        return "exclusive"
    verdict: Relation = ""
    for line, block in shape.returns:
        # (from the first's own statement on: ``return self._build()`` ends the frame too)
        if a_span.line <= line < b_line:
            if mine[: len(block)] == block and not _may_raise_first(shape, a_span, line, block):
                return "always"
            verdict = "maybe"
    return verdict or _returns_inside(sim, later, b)


def turn_ends_between(sim: Simulation, first: Event, later: Event) -> bool:
    """Whether, in the frame the two share, a ``continue`` or ``break`` after ``first``
    and before ``later`` ends the turn of the loop whenever ``first`` ran (``if ratio == 2:
    <first>; continue`` then ``<later>``): the two never run in one turn."""
    pair = _anchors(sim, first, later)
    if pair is None:
        return False
    a, b = pair
    shape = shape_of(sim, a.fn)
    if shape is None:
        return False
    a_span, b_line, mine, theirs = _positions(shape, a, b)
    for line, block in shape.jumps:
        loop = next(
            (i for i in range(len(block) - 1, -1, -1) if block[i][1].startswith(_LOOPS)), -1
        )
        if loop < 0 or theirs[: loop + 1] != block[: loop + 1]:
            continue  # (not a jump of a loop that holds the later store too)
        if a_span.end_line < line < b_line and mine[: len(block)] == block:
            return True
    return False


def _positions(shape: Shape, a: Event, b: Event) -> tuple[Span, int, Path, Path]:
    """The span of ``a``'s statement, the line of ``b``'s, and the paths of blocks around
    each."""
    a_span = a.effect.stmt_span or a.effect.span
    b_line = (b.effect.stmt_span or b.effect.span).line
    return a_span, b_line, shape.path(a_span.line), shape.path(b_line)


def _may_raise_first(shape: Shape, first: Span, line: int, block: Path) -> bool:
    """Whether the ``return`` at ``line`` (in ``block``) may be skipped after the first's
    statement: a statement between them in the body of a ``try`` holding both may raise,
    and a handler of it that lets the function go on then runs what follows the ``try``
    (``self.x = torch.load(a)``, ``self.y = torch.load(b)``, ``return``, ``except:
    pass``, then ``self.x = build()``)."""
    tries = {at for at, field in block if field == "try.body" and at in shape.caught}
    return bool(tries) and any(
        first.end_line < between < line and any((at, "try.body") in path for at in tries)
        for between, path in shape.blocks.items()
    )


def _returns_inside(sim: Simulation, later: Event, anchor: Event) -> Relation:
    """Whether a function ``later`` runs in, below the shared frame, may return before it
    ("maybe"): ``self._split()`` whose ``if self.section == "test": return`` comes before the store
    (that path keeps the first value)."""
    y = later
    while y is not anchor and y.parent is not None:
        shape = shape_of(sim, y.fn)
        if shape is None:
            return "maybe"
        y_line = (y.effect.stmt_span or y.effect.span).line
        here = shape.path(y_line)
        for line, block in shape.returns:
            if line < y_line and _split(block, here) != "exclusive":
                return "maybe"
        y = sim.events[y.parent]
    return ""


def _split(mine: Path, theirs: Path) -> Relation | None:
    """Where the two paths part: in two arms of one ``if``/``match`` outside any loop
    (exclusive), or from a ``try`` body into its handler (a fallback)."""
    for (line, field), (line2, field2) in zip(mine, theirs, strict=False):
        if line != line2:
            return None
        if field == field2:
            if field.startswith(_LOOPS):
                return None  # another iteration may take the other arm
            continue
        if field.startswith(_ARMS) and field2.startswith(field.split(".")[0] + "."):
            return "exclusive"
        if field == "try.body" and field2 == "try.handlers":
            return "fallback"
        return None
    return None


def _asserted_apart(shape: Shape, a_line: int, b_line: int, mine: Path, theirs: Path) -> bool:
    """An assertion before both says that the tests of the blocks around them never all
    hold, and nothing it reads is bound again before the later one: they never both run."""
    held = shape.holding(mine) | shape.holding(theirs)
    for fact in shape.assertions:
        if fact.line >= a_line or not fact.apart <= held:
            continue
        if mine[: len(fact.path)] != fact.path or theirs[: len(fact.path)] != fact.path:
            continue  # (the assertion does not run on every path to both)
        if any(fact.line < line < b_line and name in fact.names for line, name in shape.writes):
            continue
        return True
    return False


def _anchors(sim: Simulation, first: Event, later: Event) -> tuple[Event, Event] | None:
    """The events standing for ``first`` and ``later`` in the innermost frame they share."""
    chain: dict[int, Event] = {}
    x: Event | None = first
    while x is not None:
        chain.setdefault(x.frame, x)
        x = sim.events[x.parent] if x.parent is not None else None
    y: Event | None = later
    while y is not None:
        if y.frame in chain:
            return chain[y.frame], y
        y = sim.events[y.parent] if y.parent is not None else None
    return None


def shape_of(sim: Simulation, fn: FunctionInfo) -> Shape | None:
    """``fn``'s shape, read once per simulation (None: its source cannot be read again)."""
    memo = sim.memo.setdefault("shapes", {})
    assert isinstance(memo, dict)
    if fn.qualname not in memo:
        memo[fn.qualname] = _read(fn)
    got = memo[fn.qualname]
    return got if isinstance(got, Shape) else None


def function_tree(fn: FunctionInfo) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The parsed source of ``fn``, its first line at line 1; None when not readable."""
    span = fn.facts.span
    try:
        text = read_source(fn.module.path).text
    except UnreadableError:
        return None
    lines = text.splitlines()[span.line - 1 : span.end_line]
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
    except SyntaxError:
        return None
    func = tree.body[0] if tree.body else None
    return func if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _read(fn: FunctionInfo) -> Shape | None:
    func = function_tree(fn)
    if func is None:
        return None
    walker = _Walker(fn.facts.span.line - 1)
    walker.walk(func.body, ())
    return Shape(
        walker.blocks,
        tuple(walker.returns),
        walker.tests,
        tuple(walker.assertions),
        tuple(walker.writes),
        frozenset(walker.caught),
        tuple(walker.jumps),
    )


class _Walker:
    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.blocks: dict[int, Path] = {}
        self.returns: list[tuple[int, Path]] = []
        self.tests: dict[int, str] = {}
        self.assertions: list[Assertion] = []
        self.writes: list[tuple[int, str]] = []
        self.caught: set[int] = set()
        self.jumps: list[tuple[int, Path]] = []

    def walk(self, stmts: list[ast.stmt], path: Path) -> None:
        for st in stmts:
            line = st.lineno + self.offset
            self.blocks.setdefault(line, path)
            if isinstance(st, ast.Return):
                self.returns.append((line, path))
            elif isinstance(st, ast.Continue | ast.Break):
                self.jumps.append((line, path))
            elif isinstance(st, ast.If) and (test := _text(st.test)):
                self.tests[line] = test
            elif isinstance(st, ast.Try | ast.TryStar) and any(
                not h.body or not isinstance(h.body[-1], ast.Return | ast.Raise)
                for h in st.handlers
            ):
                self.caught.add(line)
            elif isinstance(st, ast.Assert):
                apart = [_text(part) for part in _never_together(st.test)]
                names = _read_names(st.test)
                if len(apart) > 1 and all(apart) and names is not None:
                    self.assertions.append(Assertion(line, path, frozenset(apart), names))
            for node in ast.walk(st) if not _blocks(st) else _own_targets(st):
                if isinstance(node, ast.Name | ast.Attribute) and isinstance(
                    node.ctx, ast.Store | ast.Del
                ):
                    self.writes.append((line, _text(node) or "?"))
            for field, body in _blocks(st):
                self.walk(body, (*path, (line, field)))


def _own_targets(st: ast.stmt) -> list[ast.AST]:
    """What a compound statement binds itself (a loop's target, a ``with``'s names)."""
    if isinstance(st, ast.For | ast.AsyncFor):
        return list(ast.walk(st.target))
    if isinstance(st, ast.With | ast.AsyncWith):
        return [n for item in st.items if item.optional_vars for n in ast.walk(item.optional_vars)]
    return []


def _never_together(test: ast.expr) -> list[ast.expr]:
    """The parts an asserted test says never all hold: ``not (a and b)``, ``not a or not
    b``; [] for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.BoolOp) and isinstance(inner.op, ast.And):
            return list(inner.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [v.operand for v in test.values if isinstance(v, ast.UnaryOp)]
        if len(parts) == len(test.values) and all(
            isinstance(v.op, ast.Not) for v in test.values if isinstance(v, ast.UnaryOp)
        ):
            return parts
    return []


def _read_names(test: ast.expr) -> frozenset[str] | None:
    """The names and attribute chains a test reads (``self._mode``, ``dim``); None when one
    is too deep to write out."""
    names = [_text(n) for n in ast.walk(test) if isinstance(n, ast.Name | ast.Attribute)]
    return frozenset(n for n in names if n) if all(names) else None


def _text(node: ast.AST) -> str:
    """``node``'s source text; "" when it nests too deeply to write out."""
    try:
        return ast.unparse(node)
    except (RecursionError, ValueError):
        return ""


def _blocks(st: ast.stmt) -> list[tuple[str, list[ast.stmt]]]:
    """The blocks of a compound statement, named by its kind and their role (none for a
    nested function or class: its returns are its own)."""
    match st:
        case ast.If():
            return [("if.body", st.body), ("if.orelse", st.orelse)]
        case ast.Match():
            return [(f"match.{i}", case.body) for i, case in enumerate(st.cases)]
        case ast.For() | ast.AsyncFor() | ast.While():
            return [("for.body", st.body), ("for.orelse", st.orelse)]
        case ast.Try() | ast.TryStar():
            return [
                ("try.body", st.body),
                *(("try.handlers", h.body) for h in st.handlers),
                ("try.orelse", st.orelse),
                ("try.finalbody", st.finalbody),
            ]
        case ast.With() | ast.AsyncWith():
            return [("with.body", st.body)]
    return []

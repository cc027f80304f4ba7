"""The effects of one function body as a reader finds them (``EffectLog``): the reader's
state (the statement it is in, the locals that carry a call's result, the ``try`` it is
inside), the one way an effect is recorded (``add``), and the calls on ``self``, on
``super()`` and the ``**kwargs`` pops inside an expression. ``FunctionReader``
(``facts/function_reader.py``) walks the statements on top of it."""

from __future__ import annotations

import ast

from initlint.facts.expressions import (
    OTHER,
    copied_params,
    dotted,
    expr_text,
    read_params,
    span_of,
    spread_params,
    to_expr,
)
from initlint.facts.model import Arg, Cond, Effect, EffectKind, Expr, ItemTest, Span
from initlint.facts.reads import (
    EVERYTHING,
    changed_in_place,
    handed_names,
    handed_reads,
    name_uses,
    self_access,
    shallow_reads,
)
from initlint.facts.strict import strict_reads
from initlint.facts.walk import children


def is_name(node: ast.AST, name: str) -> bool:
    """``node`` is the name ``name`` (the function's ``self``, or its ``**kwargs``)."""
    return isinstance(node, ast.Name) and node.id == name


_LEAVES = (ast.Name, ast.Constant)  # no children, and not calls: most nodes of a value


def _walk_exprs(node: ast.AST) -> list[ast.AST]:
    """Post-order walk (inner calls first), not entering lambdas, comprehensions' scopes ok.
    Names and constants below ``node`` are left out: what reads this looks for calls."""
    # A pre-order walk taking the children right to left, reversed: the post-order, with
    # the children left to right, and one stack entry per node.
    order: list[ast.AST] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        order.append(cur)
        if type(cur) is ast.Lambda:
            continue
        for child in children(cur):
            if not isinstance(child, _LEAVES):
                stack.append(child)
    order.reverse()
    return order


def names_loaded(node: ast.AST) -> set[str]:
    """Names read anywhere in ``node`` (lambdas included, as ast.walk goes)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ast.Name):
            if isinstance(cur.ctx, ast.Load):
                out.add(cur.id)
            continue
        if not isinstance(cur, ast.Constant):
            stack.extend(children(cur))
    return out


class EffectLog:
    """The effects of one function body, in the order they are read."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> None:
        self.fn = fn
        params = read_params(fn.args, annotated=is_method and fn.name == "__init__")
        if is_method and fn.name == "__init__":
            params = copied_params(fn, params)
        elif _returns_only(fn):
            # (``_get_clones(module, n)``, ``self._clones(layer, n)``: a function or method
            # whose body returns copies of it)
            params = copied_params(fn, params, method=is_method)
        if not is_method:
            params = spread_params(fn, params)
        self.params = params
        self.self_name = ""
        if is_method and params and params[0].kind in ("posonly", "pos"):
            self.self_name = params[0].name
        self.kwarg = next((p.name for p in params if p.kind == "kwarg"), "")
        self.effects: list[Effect] = []
        # the locals it builds by a call, the parameters it may be lent an object in
        # (``local_uses.followed_names``)
        self.built: frozenset[str] = frozenset()
        # the names that may stand for a part of the object (``aliases.part_name_candidates``)
        self.part_names: frozenset[str] = frozenset()
        self.stmt_index = 0
        self.loops: tuple[int, ...] = ()  # (``Effect.loops``)
        self.loops_read = 0
        self.top = (0, False)
        self.stmt_span: Span | None = None
        # local name -> indices of call effects whose result it (transitively) carries
        self.taint: dict[str, set[int]] = {}
        self.feeds: dict[int, list[int]] = {}
        self.feeds_other: set[int] = set()
        # > 0 inside a try statement or a with body (Effect.protected)
        self.protect = 0
        # a nested def naming self may set attributes unseen: no read is strict from there
        self.strict = bool(self.self_name)

    def finish(self) -> tuple[Effect, ...]:
        """The effects, each call's with what its result feeds."""
        out = []
        feeds, feeds_other = self.feeds, self.feeds_other
        for idx, eff in enumerate(self.effects):
            if eff.kind == "call" and (idx in feeds or idx in feeds_other):  # else as made
                eff = Effect(
                    kind=eff.kind,
                    span=eff.span,
                    guard=eff.guard,
                    name=eff.name,
                    detail=eff.detail,
                    target=eff.target,
                    args=eff.args,
                    value=eff.value,
                    feeds=tuple(self.feeds.get(idx, ())),
                    feeds_other=idx in self.feeds_other,
                    stmt=eff.stmt,
                    stmt_span=eff.stmt_span,
                    top_line=eff.top_line,
                    top_with=eff.top_with,
                    protected=eff.protected,
                )
            out.append(eff)
        return tuple(out)

    def touch(
        self, nodes: list[ast.AST], guard: tuple[Cond, ...], stmt: ast.stmt, skip: ast.AST | None
    ) -> None:
        """A ``touch`` effect for the ``self`` attributes ``nodes`` read and write."""
        reads, writes = self_access(nodes, self.self_name, skip=skip)
        names = name_uses(nodes, self.part_names) if self.part_names else None
        if reads or writes or names:
            strict: frozenset[str] = frozenset()
            # (no reads: nothing to be strict about; self passed on: nothing known)
            if self.strict and reads and EVERYTHING not in reads:
                strict = strict_reads(nodes, self.self_name) & reads
            tested, sized = shallow_reads(nodes, self.self_name, _precondition(stmt))
            tested, sized = tested & reads, sized & reads
            self.add(
                "touch",
                stmt,
                guard,
                reads=reads,
                writes=writes,
                strict=strict,
                tested=tested,
                sized=sized,
                changed=changed_in_place(stmt, self.self_name) & reads,
                handed=handed_reads(nodes, self.self_name) & reads,
                names=names or frozenset(),
                passes=handed_names(nodes, names, self.self_name) if names else frozenset(),
                decides=_decides(stmt, nodes),
            )

    def self_attr(self, node: ast.AST) -> str:
        """``x`` for ``self.x``, else ""."""
        if (
            isinstance(node, ast.Attribute)
            and self.self_name
            and is_name(node.value, self.self_name)
        ):
            return node.attr
        return ""

    def kwargs_key(self, node: ast.AST) -> str | None:
        """``k`` for ``kwargs["k"]`` (the function's ``**kwargs``), else None."""
        if (
            isinstance(node, ast.Subscript)
            and self.kwarg
            and is_name(node.value, self.kwarg)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return node.slice.value
        return None

    def call_args(self, call: ast.Call, skip_first: bool = False) -> tuple[Arg, ...]:
        """A call's arguments; ``skip_first`` leaves out the ``self`` an explicit
        ``Base.__init__(self, ...)`` passes (anything else there: one ``<not self>``)."""
        out: list[Arg] = []
        positional = list(call.args)
        if skip_first:
            if not positional or not (self.self_name and is_name(positional[0], self.self_name)):
                return (Arg(OTHER, "<not self>", star=-1),)
            positional = positional[1:]
        for a in positional:
            if isinstance(a, ast.Starred):
                out.append(Arg(to_expr(a.value), expr_text(a.value), star=1, span=span_of(a)))
            else:
                out.append(Arg(to_expr(a), expr_text(a), span=span_of(a)))
        for kw in call.keywords:
            if kw.arg is None:
                out.append(Arg(to_expr(kw.value), expr_text(kw.value), star=2, span=span_of(kw)))
            else:
                out.append(
                    Arg(to_expr(kw.value), expr_text(kw.value), keyword=kw.arg, span=span_of(kw))
                )
        return tuple(out)

    def _super_start(self, recv: ast.expr) -> str | None:
        """For a receiver ``super()``: ""; for ``super(X, self)``: ``X`` as written; else
        None."""
        if not (
            isinstance(recv, ast.Call)
            and isinstance(recv.func, ast.Name)
            and recv.func.id == "super"
        ):
            return None
        if not recv.args:
            return ""
        if len(recv.args) == 2 and self.self_name and is_name(recv.args[1], self.self_name):
            return dotted(recv.args[0]) or None
        return None

    def calls_in(self, node: ast.AST, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        """Record self-method calls and kwargs pops inside an expression, inner first."""
        if not self.self_name and not self.kwarg:
            return
        for sub in _walk_exprs(node):
            if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Attribute):
                continue
            recv = sub.func.value
            if self.self_name and is_name(recv, self.self_name):
                if sub.func.attr in ("register_buffer", "register_parameter"):
                    continue
                self.add(
                    "call",
                    stmt,
                    guard,
                    name=sub.func.attr,
                    detail="self",
                    args=self.call_args(sub),
                    node=sub,
                )
            elif sub.func.attr != "__init__" and (start := self._super_start(recv)) is not None:
                # ``super().method()``; ``super(X, self).method()``: the method after X
                self.add(
                    "call",
                    stmt,
                    guard,
                    name=sub.func.attr,
                    detail="super2" if start else "super",
                    target=start,
                    args=self.call_args(sub),
                    node=sub,
                )
            elif (
                self.self_name
                and sub.func.attr != "__init__"
                and sub.args
                and is_name(sub.args[0], self.self_name)
                and (through := dotted(recv))
                and through.partition(".")[0] not in (self.self_name, self.kwarg or "")
            ):
                # ``Base.method(self, ...)``: that class's method runs on this object
                self.add(
                    "call",
                    stmt,
                    guard,
                    name=sub.func.attr,
                    detail="explicit",
                    target=through,
                    args=self.call_args(sub, skip_first=True),
                    node=sub,
                )
            elif (
                self.kwarg
                and is_name(recv, self.kwarg)
                and sub.func.attr == "pop"
                and sub.args
                and isinstance(sub.args[0], ast.Constant)
                and isinstance(sub.args[0].value, str)
            ):
                self.add("pop", stmt, guard, name=sub.args[0].value, node=sub)

    def use(self, node: ast.AST, consumer: int | None) -> None:
        """A statement that is not a tracked local assignment uses tainted locals."""
        if not self.taint:
            return
        for name in names_loaded(node):
            for origin in self.taint.get(name, ()):
                if consumer is None:
                    self.feeds_other.add(origin)
                else:
                    self.feeds.setdefault(origin, []).append(consumer)

    def add(
        self,
        kind: EffectKind,
        stmt: ast.stmt,
        guard: tuple[Cond, ...],
        *,
        name: str = "",
        detail: str = "",
        target: str = "",
        args: tuple[Arg, ...] = (),
        value: Expr | None = None,
        node: ast.AST | None = None,
        reads: frozenset[str] = frozenset(),
        writes: frozenset[str] = frozenset(),
        strict: frozenset[str] = frozenset(),
        tested: frozenset[str] = frozenset(),
        sized: frozenset[str] = frozenset(),
        changed: frozenset[str] = frozenset(),
        handed: frozenset[str] = frozenset(),
        names: frozenset[str] = frozenset(),
        passes: frozenset[str] = frozenset(),
        fan: bool = False,
        tests: tuple[ItemTest, ...] = (),
        decides: bool = False,
    ) -> int:
        """Record one effect of the statement ``stmt`` (at ``node`` within it); its index."""
        self.effects.append(
            Effect(
                kind=kind,
                span=span_of(node if node is not None else stmt),
                guard=guard,
                name=name,
                detail=detail,
                target=target,
                args=args,
                value=value,
                stmt=self.stmt_index,
                stmt_span=span_of(stmt),
                top_line=self.top[0],
                top_with=self.top[1],
                reads=reads,
                writes=writes,
                strict=strict,
                tested=tested,
                sized=sized,
                changed=changed,
                handed=handed,
                names=names,
                passes=passes,
                protected=self.protect > 0,
                fan=fan,
                tests=tests,
                loops=self.loops,
                decides=decides,
            )
        )
        return len(self.effects) - 1


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    """A function's statements, its docstring aside."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def _returns_only(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn``'s body, its docstring aside, is one ``return`` of a value."""
    body = without_docstring(fn.body)
    return len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None


def _precondition(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` only checks: an ``assert``, or an ``if`` with no ``else`` whose body
    only raises (the construction goes on only where its test fails)."""
    if isinstance(stmt, ast.Assert):
        return True
    return (
        isinstance(stmt, ast.If)
        and not stmt.orelse
        and all(isinstance(s, ast.Raise) for s in stmt.body)
    )


def _decides(stmt: ast.stmt, nodes: list[ast.AST]) -> bool:
    """Whether ``nodes`` are the test that decides the path at ``stmt``: an ``if``'s or a
    ``while``'s test, an ``assert``, a ``match`` subject (not a loop's iterable, whose items
    a run goes through whatever they are)."""
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, ast.If | ast.While):
        return nodes[:1] == [stmt.test]
    return isinstance(stmt, ast.Match) and nodes[:1] == [stmt.subject]

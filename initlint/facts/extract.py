"""Extract ModuleFacts from source with the stdlib ``ast`` parser (the cheap fact pass)."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence
from dataclasses import replace

from initlint.facts.field_values import field_values
from initlint.facts.model import (
    AliasFacts,
    Arg,
    Body,
    BodyError,
    ClassFacts,
    Cond,
    CondOp,
    Const,
    Effect,
    EffectKind,
    Expr,
    ExprKind,
    FieldValueFacts,
    FunctionFacts,
    ImportFacts,
    ModuleFacts,
    Param,
    ParamKind,
    SourceText,
    Span,
    register_body_reader,
)
from initlint.facts.reads import EVERYTHING, self_access
from initlint.facts.skeleton import skeleton
from initlint.facts.strict import closes_over, strict_reads
from initlint.facts.walk import children
from initlint.sources import UnreadableError, decode

# Deeper expressions are summarised as "other"; keeps hostile input from exhausting the stack.
MAX_EXPR_DEPTH = 40
OTHER = Expr("other")
UNKNOWN_COND = Cond("unknown")
LOOP_COND = Cond("unknown", name="loop")
# Methods that put a value into a container held in a self attribute (a "mutate" effect).
MUTATORS = frozenset("append extend insert add update setdefault add_module".split())
# Methods that change the object a local name holds in place (an "objattr" effect on the
# name: ``rope_scaling.update(...)`` makes a later call with ``rope_scaling`` another one).
IN_PLACE = MUTATORS | frozenset("pop popitem clear remove discard __setitem__".split())


def extract_facts(source: bytes | str) -> ModuleFacts:
    """Parse ``source`` and return its facts, or facts carrying the syntax error."""
    _SHARED.clear()
    text = _source_text(source)
    shape = skeleton(text.lines_text()) if text is not None else None
    if shape is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(shape[0])
            return _ModuleReader(text, shape[1]).read(tree)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _SHARED.clear()  # the whole text decides: a real error, or a cut to distrust
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except SyntaxError as exc:
        return ModuleFacts(
            error=exc.msg or "invalid syntax", error_line=exc.lineno or 1, error_col=exc.offset or 1
        )
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return ModuleFacts(error=str(exc) or type(exc).__name__, error_line=1, error_col=1)
    return _ModuleReader(text).read(tree)


def read_self_calls(facts: ModuleFacts) -> None:
    """Read now the bodies of the methods each class's ``__init__`` calls on ``self`` (the
    workers of the fact pass do this, so that the check that follows in the main process
    does not parse them one by one). Equal to reading them on first use; a body that does
    not parse stays unread, to be reported when the check reaches it."""
    for cls in facts.classes:
        called = {
            e.name
            for m in cls.methods
            if m.name == "__init__" and not m.is_lazy
            for e in m.effects
            if e.kind == "call" and e.detail == "self"
        }
        for m in cls.methods:
            if m.name in called:
                m.read_for_cache()


def _source_text(source: bytes | str) -> SourceText | None:
    if isinstance(source, str):
        return SourceText(source)
    try:
        return SourceText(decode(source)[0])
    except UnreadableError:
        return None  # ast.parse read it anyway: read every body now


def read_body(source: SourceText, span: Span, is_method: bool) -> Body | BodyError:
    """Parameters and effects of the function whose ``def`` spans ``span`` in ``source``,
    or, when the body does not parse, the whole text's syntax error as a value.

    Parses only the function's own lines, padded so that every line and column is what the
    whole-file parse reports: blank lines before it, and ``if 1:`` for an indented ``def``.
    """
    _SHARED.clear()
    lines = source.lines()
    if span.col == 0:
        pad = "\n" * (span.line - 1)
    else:  # an indented def never sits on line 1
        pad = "\n" * (span.line - 2) + "if 1:\n"
    node: ast.AST | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(pad + "\n".join(lines[span.line - 1 : span.end_line]) + "\n")
        node = tree.body[0]
        if span.col != 0:
            assert isinstance(node, ast.If)
            node = node.body[0]
    except SyntaxError:
        pass
    if node is None or not _same_def(node, span):
        # A syntax error in the body (the skeleton did not parse it), or a cut the skeleton
        # got wrong: the whole text decides.
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                whole = ast.parse(source.text)
        except SyntaxError as exc:
            msg = exc.msg or "invalid syntax"
            return BodyError(source, msg, exc.lineno or 1, exc.offset or 1)
        found = [n for n in ast.walk(whole) if _same_def(n, span)]
        if not found:
            raise ValueError(f"function body at line {span.line} does not match its facts")
        node = found[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    reader = _FunctionReader(node, is_method)
    return Body(reader.params, reader.read())


def _same_def(node: ast.AST, span: Span) -> bool:
    """The ``def`` at ``span``'s start and end line (the end column of a skeleton's function
    is not known: only its lines)."""
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
        node.lineno,
        node.col_offset,
        node.end_lineno,
    ) == (span.line, span.col, span.end_line)


# Equal spans and expressions of one file share one object: a quarter fewer objects to
# pickle, and to rebuild when a warm run loads the cache. Cleared for every file read.
_SHARED: dict[tuple[object, ...], Span | Expr] = {}


def _span(node: ast.AST) -> Span:
    try:  # statements and expressions: every parsed one has its position
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        end_line, end_col = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    except AttributeError:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
    key = (line, col, end_line or line, col if end_col is None else end_col)
    span = _SHARED.get(key)
    if span is None:
        span = _SHARED[key] = Span(*key)
    assert isinstance(span, Span)
    return span


def _expr(
    kind: ExprKind,
    name: str = "",
    attr: str = "",
    value: Const = None,
    receiver: Expr | None = None,
    children: tuple[Expr, ...] = (),
    keywords: tuple[str, ...] = (),
) -> Expr:
    """``Expr(...)``, shared with an equal one made earlier for the same file. Parts are
    shared already, so they are keyed by identity; a value by its type too (1 vs True)."""
    key = (
        kind,
        name,
        attr,
        type(value),
        repr(value) if isinstance(value, float) else value,
        id(receiver),
        keywords,
        *map(id, children),
    )
    expr = _SHARED.get(key)
    if expr is None:
        expr = _SHARED[key] = Expr(kind, name, attr, value, receiver, children, keywords)
    assert isinstance(expr, Expr)
    return expr


def _root_name(node: ast.AST) -> str:
    """``x`` for ``x``, ``x.a``, ``x[k]``, ``x.a[k]``...; "" when the chain starts elsewhere."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ""."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (RecursionError, ValueError):
        return "<expr>"


_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Div: "/",
    ast.Mod: "%",
    ast.Pow: "**",
}


def to_expr(node: ast.AST, depth: int = 0) -> Expr:
    """Convert an expression to the small Expr tree used by the cost model."""
    if depth > MAX_EXPR_DEPTH:
        return OTHER
    d = depth + 1
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool | int | float | str | bytes) or value is None:
            return _expr("const", value=value)
        return _expr("const")
    if isinstance(node, ast.Name):
        return _expr("name", name=node.id)
    if isinstance(node, ast.Attribute):
        return _expr("attr", name=dotted(node), attr=node.attr, receiver=to_expr(node.value, d))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
    ):
        return _expr(
            "op", name="bool", attr=_text(node.args[0])[:80], children=(to_expr(node.args[0], d),)
        )
    if isinstance(node, ast.Call):
        func = node.func
        args = [to_expr(a.value if isinstance(a, ast.Starred) else a, d) for a in node.args]
        args += [to_expr(k.value, d) for k in node.keywords]
        # ``value``: how many of the children are positional (the rest are keyword values),
        # so the cost model can read a tensor factory's sizes.
        npos = len(node.args) if node.keywords else None
        # the keyword names of the children after the positional ones (``**kw`` as ""):
        # what ``bias=False`` switches off; a leading "*" marks a starred positional.
        kws = tuple(k.arg or "" for k in node.keywords)
        if any(isinstance(a, ast.Starred) for a in node.args):
            kws = ("*", *kws)
        if isinstance(func, ast.Attribute):
            return _expr(
                "call",
                name=dotted(func),
                attr=func.attr,
                value=npos,
                receiver=to_expr(func.value, d),
                children=tuple(args),
                keywords=kws,
            )
        return _expr("call", name=dotted(func), value=npos, children=tuple(args), keywords=kws)
    if isinstance(node, ast.Subscript):
        return _expr("subscript", receiver=to_expr(node.value, d))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        # ``not <test>``: the test's text rides along (a flag passed as ``not <cond>``).
        return _expr(
            "op", name="not", attr=_text(node.operand)[:80], children=(to_expr(node.operand, d),)
        )
    if isinstance(node, ast.BinOp):
        # the operator rides along: a size ``out // groups`` with ``out`` 0 is 0
        op = _BINOPS.get(type(node.op), "")
        return _expr("op", name=op, children=(to_expr(node.left, d), to_expr(node.right, d)))
    if isinstance(node, ast.Compare):
        # a test: its value is a bool, whatever its operands hold
        kids = [to_expr(c, d) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        return _expr("op", name="test", children=tuple(kids))
    if isinstance(node, ast.UnaryOp | ast.BoolOp | ast.IfExp):
        kids = [to_expr(c, d) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        return _expr("op", children=tuple(kids))
    if isinstance(node, ast.Tuple | ast.List):
        # a shape: ``torch.empty((out, in))``; a starred part is an op ``*`` around its value
        # (any number of items: ``[0, *rest]`` is no two-element list)
        kids = [
            _expr("op", name="*", children=(to_expr(c.value, d),))
            if isinstance(c, ast.Starred)
            else to_expr(c, d)
            for c in node.elts
        ]
        return _expr("op", name="tuple", children=tuple(kids))
    if isinstance(node, ast.Set | ast.Dict | ast.JoinedStr):
        kids = [to_expr(c, d) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        return _expr("op", children=tuple(kids))
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        parts: list[ast.expr] = [g.iter for g in node.generators]
        parts += [cond for g in node.generators for cond in g.ifs]
        parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return _expr("op", children=tuple(to_expr(c, d) for c in parts))
    if isinstance(node, ast.Await | ast.NamedExpr):
        return to_expr(node.value, d)
    if isinstance(node, ast.Lambda):
        # what a call of it evaluates: a lambda handed to a function is there to be called
        return _expr("op", name="lambda", children=(to_expr(node.body, d),))
    if isinstance(node, ast.Starred):
        return to_expr(node.value, d)
    return OTHER


def to_cond(node: ast.AST, depth: int = 0) -> Cond:
    if depth > MAX_EXPR_DEPTH:
        return UNKNOWN_COND
    d = depth + 1
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool | int | float | str) or v is None:
            return Cond("const", value=v)
        return UNKNOWN_COND
    if isinstance(node, ast.Name):
        return Cond("name", name=node.id)
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    ):
        return Cond("selfattr", name=node.attr)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return Cond("not", (to_cond(node.operand, d),))
    # ``name`` holds the source text of a compound test: the simulation keys the conditions it
    # cannot decide by it, to tell two branches of one condition apart (``flag=not <cond>``).
    if isinstance(node, ast.BoolOp):
        op: CondOp = "and" if isinstance(node.op, ast.And) else "or"
        return Cond(op, tuple(to_cond(v, d) for v in node.values), name=_text(node)[:80])
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        ops: dict[type[ast.cmpop], CondOp] = {
            ast.Is: "is",
            ast.IsNot: "isnot",
            ast.Eq: "eq",
            ast.NotEq: "ne",
        }
        name = ops.get(type(node.ops[0]))
        if name:
            return Cond(
                name,
                (to_cond(node.left, d), to_cond(node.comparators[0], d)),
                name=_text(node)[:80],
            )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "hasattr"
        and len(node.args) == 2
        and not node.keywords
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "self"
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return Cond("hasattr", name=node.args[1].value)
    return Cond("unknown", name=_text(node)[:80])


def _is_self(node: ast.AST, self_name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == self_name


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    return dotted(node) or "<dynamic>"


def _params(args: ast.arguments, annotated: bool = False) -> tuple[Param, ...]:
    """The parameters; their annotations only when ``annotated`` (an ``__init__``'s: the
    simulation reads the constructed class's, ``Param.annotation``)."""
    out: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    for i, (a, default) in enumerate(zip(positional, defaults, strict=True)):
        kind: ParamKind = "posonly" if i < len(args.posonlyargs) else "pos"
        out.append(_param(a, kind, default, annotated))
    if args.vararg:
        out.append(Param(args.vararg.arg, "vararg"))
    for a, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append(_param(a, "kwonly", kw_default, annotated))
    if args.kwarg:
        out.append(Param(args.kwarg.arg, "kwarg"))
    return tuple(out)


def _param(arg: ast.arg, kind: ParamKind, default: ast.expr | None, annotated: bool) -> Param:
    note = arg.annotation
    annotation = _annotated(note) if annotated and note is not None else ()
    if default is None:
        return Param(arg.arg, kind, annotation=annotation)
    return Param(arg.arg, kind, to_expr(default), True, annotation)


def _annotated(node: ast.expr) -> tuple[str, ...]:
    """The classes an annotation names: ``Subs``, ``m.Subs``, and the members of
    ``Optional[...]``, ``Union[...]`` and ``A | B``; () for anything else. A name whose last
    part is not capitalised (``int``, ``torch.dtype``) is no class by Python's convention."""
    if isinstance(node, ast.Name):
        return (node.id,) if node.id[:1].isupper() else ()
    if isinstance(node, ast.Attribute):
        name = dotted(node)
        return (name,) if name and name.rpartition(".")[2][:1].isupper() else ()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _annotated(node.left) + _annotated(node.right)
    if isinstance(node, ast.Subscript) and dotted(node.value).rpartition(".")[2] in (
        "Optional",
        "Union",
    ):
        inner = node.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return tuple(n for item in items for n in _annotated(item))
    return ()


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


def _names_loaded(node: ast.AST) -> set[str]:
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


class _FunctionReader:
    """Turns one function body into its ordered effects."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> None:
        self.fn = fn
        params = _params(fn.args, annotated=is_method and fn.name == "__init__")
        self.params = params
        self.self_name = ""
        if is_method and params and params[0].kind in ("posonly", "pos"):
            self.self_name = params[0].name
        self.kwarg = next((p.name for p in params if p.kind == "kwarg"), "")
        self.effects: list[Effect] = []
        self.stmt_index = 0
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

    def read(self) -> tuple[Effect, ...]:
        for i, stmt in enumerate(self.fn.body):
            self.stmt_index = i
            self.top = (stmt.lineno, isinstance(stmt, ast.With | ast.AsyncWith))
            self._stmt(stmt, ())
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

    # -- statements --------------------------------------------------------------------
    def _block(self, body: Sequence[ast.stmt], guard: tuple[Cond, ...]) -> None:
        for stmt in body:
            self._stmt(stmt, guard)

    def _touch(
        self, nodes: list[ast.AST], guard: tuple[Cond, ...], stmt: ast.stmt, skip: ast.AST | None
    ) -> None:
        """A ``touch`` effect for the ``self`` attributes ``nodes`` read and write."""
        reads, writes = self_access(nodes, self.self_name, skip=skip)
        if reads or writes:
            strict: frozenset[str] = frozenset()
            # (no reads: nothing to be strict about; self passed on: nothing known)
            if self.strict and reads and EVERYTHING not in reads:
                strict = strict_reads(nodes, self.self_name) & reads
            self._add("touch", stmt, guard, reads=reads, writes=writes, strict=strict)

    def _stmt(self, stmt: ast.stmt, guard: tuple[Cond, ...]) -> None:
        if isinstance(stmt, ast.If):
            self._touch([stmt.test], guard, stmt, None)
            self._calls_in(stmt.test, guard, stmt)
            cond = to_cond(stmt.test)
            self._block(stmt.body, (*guard, cond))
            if stmt.orelse:
                self._block(stmt.orelse, (*guard, Cond("not", (cond,))))
            return
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            head = stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test
            heads: list[ast.AST] = [head]
            if isinstance(stmt, ast.For | ast.AsyncFor):
                heads.append(stmt.target)
            self._touch(heads, guard, stmt, None)
            self._calls_in(head, guard, stmt)
            if isinstance(stmt, ast.For | ast.AsyncFor):
                self._loop_target(stmt.target, head, (*guard, LOOP_COND), stmt)
            self._block(stmt.body, (*guard, LOOP_COND))
            self._block(stmt.orelse, (*guard, LOOP_COND))
            return
        if isinstance(stmt, ast.With | ast.AsyncWith):
            self.stmt_span = _span(stmt)
            self._touch(list(stmt.items), guard, stmt, None)
            for item in stmt.items:
                if isinstance(item.optional_vars, ast.Name):
                    self._assign([item.optional_vars], item.context_expr, guard, stmt)
                else:
                    self._calls_in(item.context_expr, guard, stmt)
            self.protect += 1  # its context manager may swallow an exception
            self._block(stmt.body, guard)
            self.protect -= 1
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.protect += 1
            self._block(stmt.body, guard)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self._block(handler.body, (*guard, UNKNOWN_COND))
            self._block(stmt.orelse, guard)  # type: ignore[attr-defined]
            self.protect -= 1
            self._block(stmt.finalbody, guard)  # type: ignore[attr-defined]
            return
        if isinstance(stmt, ast.Match):
            self._touch([stmt.subject], guard, stmt, None)
            self._calls_in(stmt.subject, guard, stmt)
            for case in stmt.cases:
                self._block(case.body, (*guard, UNKNOWN_COND))
            return
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if self.strict and closes_over([stmt], self.self_name):
                self.strict = False  # calling it may set attributes: no read is strict now,
                for i, e in enumerate(self.effects):  # nor earlier in its statement (a loop)
                    if e.stmt == self.stmt_index and e.strict:
                        self.effects[i] = replace(e, strict=frozenset())
            return
        self.stmt_span = _span(stmt)
        skip = stmt.value if isinstance(stmt, ast.Expr) else None
        self._touch([stmt], guard, stmt, skip)
        if isinstance(stmt, ast.Expr):
            self._expr_stmt(stmt.value, guard, stmt)
        elif isinstance(stmt, ast.Assign):
            self._assign(stmt.targets, stmt.value, guard, stmt)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign([stmt.target], stmt.value, guard, stmt)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self._calls_in(stmt.value, guard, stmt)
                self._use(stmt.value, None)
                self._add("return", stmt, guard, value=to_expr(stmt.value))
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                key = self._kwargs_key(target)
                if key is not None:
                    self._add("pop", stmt, guard, name=key)
                elif attr := self._self_attr(target):
                    # ``del self.x``: x exists here (or this raises), so whatever built it ran
                    self._add("delete", stmt, guard, name=attr)
        else:
            if isinstance(stmt, ast.AugAssign):
                root = _root_name(stmt.target)
                if root and root != self.self_name:  # n *= 2, scaling["factor"] += 1
                    self._add("objattr", stmt, guard, name=root)
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self._calls_in(child, guard, stmt)
                    self._use(child, None)

    def _loop_target(
        self, target: ast.expr, head: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt
    ) -> None:
        """``for row in frame:``: each name the loop binds holds a part of ``frame``, and
        carries what building ``frame`` cost (work done into a local counts for the method)."""
        value = to_expr(head)
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self._add("local", stmt, guard, name=node.id, value=value)

    def _self_attr(self, node: ast.AST) -> str:
        """``x`` for ``self.x``, else ""."""
        if (
            isinstance(node, ast.Attribute)
            and self.self_name
            and _is_self(node.value, self.self_name)
        ):
            return node.attr
        return ""

    def _mutation(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """``self.x.append(v)`` and its kin fill the container ``self.x`` with ``v``;
        ``self.add_module("x", v)`` and ``setattr(self, "x", v)`` assign attribute ``x``."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            attr = self._self_attr(func.value)
            if attr and call.args:
                self._calls_in(call, guard, stmt)
                value = call.args[-1] if func.attr in ("insert", "add_module") else call.args[0]
                idx = self._add("mutate", stmt, guard, name=attr, value=to_expr(value), node=call)
                self._use(call, idx)
                return True
        named = None
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "add_module"
            and self.self_name
            and _is_self(func.value, self.self_name)
        ):
            named = call.args
        elif (
            isinstance(func, ast.Name)
            and func.id == "setattr"
            and call.args
            and self.self_name
            and _is_self(call.args[0], self.self_name)
        ):
            named = call.args[1:]
        if named is None or len(named) != 2:
            return False
        key = named[0]
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return False
        self._calls_in(call, guard, stmt)
        idx = self._add("assign", stmt, guard, name=key.value, value=to_expr(named[1]), node=call)
        self._use(call, idx)
        return True

    def _field_store(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """``setattr(cfg, "x", v)`` and ``object.__setattr__(cfg, "x", v)`` with a literal
        name, on a local or an argument (not ``self``): the same field store as ``cfg.x = v``
        (an ``objattr`` effect), the usual way to write a frozen config's copy."""
        func = call.func
        if isinstance(func, ast.Name) and func.id == "setattr":
            pass
        elif not (
            isinstance(func, ast.Attribute)
            and func.attr == "__setattr__"
            and isinstance(func.value, ast.Name)
            and func.value.id == "object"
        ):
            return False
        if len(call.args) != 3 or call.keywords:
            return False
        obj, key, value = call.args
        path = dotted(obj)
        if (
            not path
            or path.partition(".")[0] == self.self_name
            or not isinstance(key, ast.Constant)
            or not isinstance(key.value, str)
            or not key.value.isidentifier()
        ):
            return False
        self._calls_in(call, guard, stmt)
        self._add("objattr", stmt, guard, name=f"{path}.{key.value}", value=to_expr(value))
        self._use(call, None)
        return True

    def _kwargs_key(self, node: ast.AST) -> str | None:
        if (
            isinstance(node, ast.Subscript)
            and self.kwarg
            and _is_self(node.value, self.kwarg)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return node.slice.value
        return None

    def _expr_stmt(self, value: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        if isinstance(value, ast.Call):
            handled = (
                self._special_call(value, guard, stmt)
                or self._mutation(value, guard, stmt)
                or self._field_store(value, guard, stmt)
            )
            if handled:
                return
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr == "__init__":
                holder = self._self_attr(func.value)
                if holder:  # self.a.__init__(...): the object self.a holds is set up again
                    self._calls_in(value, guard, stmt)
                    vexpr = to_expr(value)
                    self._add("nested", stmt, guard, name=holder, detail="__init__", value=vexpr)
                    self._use(value, None)
                    return
            if isinstance(func, ast.Attribute) and func.attr in IN_PLACE:
                root = _root_name(func.value)
                if root and root != self.self_name:
                    # Changed in place; a container filled (``layers.append(Block())``)
                    # carries what went into it, so the name costs what it holds.
                    filled = func.attr in MUTATORS and isinstance(func.value, ast.Name)
                    fill = to_expr(value) if filled else None
                    self._add("objattr", stmt, guard, name=root, value=fill)
        self._calls_in(value, guard, stmt)
        self._use(value, None)

    def _special_call(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """register_buffer / register_parameter / super-init. Returns True when consumed."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        if (
            func.attr in ("register_buffer", "register_parameter")
            and self.self_name
            and _is_self(func.value, self.self_name)
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        ):
            first_call = len(self.effects)
            for arg in call.args[1:]:
                self._calls_in(arg, guard, stmt)
            for kw in call.keywords:
                self._calls_in(kw.value, guard, stmt)
            inline = [
                i
                for i in range(first_call, len(self.effects))
                if self.effects[i].kind == "call" and self.effects[i].detail == "self"
            ]
            value = call.args[1] if len(call.args) > 1 else None
            if value is None:
                value = next((k.value for k in call.keywords if k.arg in ("tensor", "param")), None)
            detail = "buffer" if func.attr == "register_buffer" else "parameter"
            idx = self._add(
                "buffer",
                stmt,
                guard,
                name=call.args[0].value,
                detail=detail,
                value=to_expr(value) if value is not None else Expr("const"),
                node=call,
            )
            self._use(call, idx)
            for origin in inline:
                self.feeds.setdefault(origin, []).append(idx)
            return True
        if func.attr == "__init__":
            form, target = self._super_form(func.value)
            if form:
                args = self._args(call, skip_first=(form == "explicit"))
                for arg in call.args:
                    self._calls_in(arg, guard, stmt)
                for kw in call.keywords:
                    self._calls_in(kw.value, guard, stmt)
                self._add(
                    "super_init", stmt, guard, detail=form, target=target, args=args, node=call
                )
                self._use(call, None)
                return True
        return False

    def _super_form(self, node: ast.expr) -> tuple[str, str]:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
        ):
            if not node.args:
                return "super", ""
            if len(node.args) == 2 and self.self_name and _is_self(node.args[1], self.self_name):
                return "super2", dotted(node.args[0])
            return "", ""
        name = dotted(node)
        if name and name != self.self_name and not name.startswith(f"{self.self_name}."):
            return "explicit", name
        return "", ""

    def _args(self, call: ast.Call, skip_first: bool = False) -> tuple[Arg, ...]:
        out: list[Arg] = []
        positional = list(call.args)
        if skip_first:
            if not positional or not (self.self_name and _is_self(positional[0], self.self_name)):
                return (Arg(OTHER, "<not self>", star=-1),)
            positional = positional[1:]
        for a in positional:
            if isinstance(a, ast.Starred):
                out.append(Arg(to_expr(a.value), _text(a.value), star=1, span=_span(a)))
            else:
                out.append(Arg(to_expr(a), _text(a), span=_span(a)))
        for kw in call.keywords:
            if kw.arg is None:
                out.append(Arg(to_expr(kw.value), _text(kw.value), star=2, span=_span(kw)))
            else:
                out.append(Arg(to_expr(kw.value), _text(kw.value), keyword=kw.arg, span=_span(kw)))
        return tuple(out)

    def _assign(
        self, targets: Sequence[ast.expr], value: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt
    ) -> None:
        first_call = len(self.effects)
        self._calls_in(value, guard, stmt)
        call_ids = {
            i
            for i in range(first_call, len(self.effects))
            if self.effects[i].kind == "call" and self.effects[i].detail == "self"
        }
        flat: list[ast.expr] = []
        for t in targets:
            if isinstance(t, ast.Tuple | ast.List):
                flat.extend(e.value if isinstance(e, ast.Starred) else e for e in t.elts)
            else:
                flat.append(t)
        vexpr = to_expr(value)
        carried = set(call_ids)
        if self.taint:  # (no local carries a call's result yet: nothing to look for)
            for name in _names_loaded(value):
                carried |= self.taint.get(name, set())
        for target in flat:
            if (
                isinstance(target, ast.Attribute)
                and self.self_name
                and _is_self(target.value, self.self_name)
            ):
                is_param = (
                    isinstance(value, ast.Call)
                    and dotted(value.func).rsplit(".", 1)[-1] == "Parameter"
                )
                if is_param:
                    idx = self._add(
                        "buffer", stmt, guard, name=target.attr, detail="parameter", value=vexpr
                    )
                else:
                    idx = self._add("assign", stmt, guard, name=target.attr, value=vexpr)
                for origin in carried:
                    self.feeds.setdefault(origin, []).append(idx)
            elif isinstance(target, ast.Name):
                self._add("local", stmt, guard, name=target.id, value=vexpr)
                if carried:
                    self.taint[target.id] = set(carried)
                else:  # (as good as an empty set, and keeps ``taint`` empty while it can)
                    self.taint.pop(target.id, None)
            else:
                key = self._kwargs_key(target)
                if key is not None:
                    self._add(
                        "pop", stmt, guard, name=key
                    )  # overwritten: the caller's value is gone
                elif (
                    isinstance(target, ast.Attribute)
                    and (path := dotted(target))
                    and path.partition(".")[0] not in (self.self_name, "")
                ):
                    # config.n_experts = None: a field of a local or argument object
                    self._add("objattr", stmt, guard, name=path, value=vexpr)
                elif isinstance(target, ast.Attribute) and self._self_attr(target.value):
                    # self.a.b = v: a part of the object self.a holds is replaced by v
                    holder = self._self_attr(target.value)
                    self._add("nested", stmt, guard, name=holder, detail=target.attr, value=vexpr)
                elif (
                    isinstance(target, ast.Subscript)
                    and (root := _root_name(target.value))
                    and root != self.self_name
                ):
                    # rope_scaling["type"] = "yarn": the object the name holds is changed
                    self._add("objattr", stmt, guard, name=root)
                elif isinstance(target, ast.Subscript) and self._self_attr(target.value):
                    # self.x[k] = v: the container self.x is filled with v
                    name = self._self_attr(target.value)
                    idx = self._add("mutate", stmt, guard, name=name, value=vexpr)
                    for origin in carried:
                        self.feeds.setdefault(origin, []).append(idx)
                    continue
                for origin in carried:
                    self.feeds_other.add(origin)

    def _calls_in(self, node: ast.AST, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        """Record self-method calls and kwargs pops inside an expression, inner first."""
        if not self.self_name and not self.kwarg:
            return
        for sub in _walk_exprs(node):
            if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Attribute):
                continue
            recv = sub.func.value
            if self.self_name and _is_self(recv, self.self_name):
                if sub.func.attr in ("register_buffer", "register_parameter"):
                    continue
                self._add(
                    "call",
                    stmt,
                    guard,
                    name=sub.func.attr,
                    detail="self",
                    args=self._args(sub),
                    node=sub,
                )
            elif (
                isinstance(recv, ast.Call)
                and isinstance(recv.func, ast.Name)
                and recv.func.id == "super"
                and not recv.args
                and sub.func.attr != "__init__"
            ):
                self._add(
                    "call",
                    stmt,
                    guard,
                    name=sub.func.attr,
                    detail="super",
                    args=self._args(sub),
                    node=sub,
                )
            elif (
                self.kwarg
                and _is_self(recv, self.kwarg)
                and sub.func.attr == "pop"
                and sub.args
                and isinstance(sub.args[0], ast.Constant)
                and isinstance(sub.args[0].value, str)
            ):
                self._add("pop", stmt, guard, name=sub.args[0].value, node=sub)

    def _use(self, node: ast.AST, consumer: int | None) -> None:
        """A statement that is not a tracked local assignment uses tainted locals."""
        if not self.taint:
            return
        for name in _names_loaded(node):
            for origin in self.taint.get(name, ()):
                if consumer is None:
                    self.feeds_other.add(origin)
                else:
                    self.feeds.setdefault(origin, []).append(consumer)

    def _add(
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
    ) -> int:
        self.effects.append(
            Effect(
                kind=kind,
                span=_span(node if node is not None else stmt),
                guard=guard,
                name=name,
                detail=detail,
                target=target,
                args=args,
                value=value,
                stmt=self.stmt_index,
                stmt_span=_span(stmt),
                top_line=self.top[0],
                top_with=self.top[1],
                reads=reads,
                writes=writes,
                strict=strict,
                protected=self.protect > 0,
            )
        )
        return len(self.effects) - 1


class _ModuleReader:
    def __init__(
        self, source: SourceText | None, ends: dict[int, tuple[int, int]] | None = None
    ) -> None:
        self.source = source
        # def line -> (its pass line, last body line), for bodies the skeleton blanked
        self.ends = ends or {}
        self.imports: list[ImportFacts] = []
        self.classes: list[ClassFacts] = []
        self.functions: list[FunctionFacts] = []
        self.names: set[str] = set()
        self.aliases: list[AliasFacts] = []
        self.field_defaults: list[FieldValueFacts] = []  # class-body defaults (_class_default)

    def read(self, tree: ast.Module) -> ModuleFacts:
        self._body(tree.body, top=True)
        return ModuleFacts(
            imports=tuple(self.imports),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            names=frozenset(self.names),
            aliases=tuple(self.aliases),
            field_values=(
                *self.field_defaults,
                *(() if self.source is None else field_values(self.source.lines_text())),
            ),
        )

    def _body(self, body: Sequence[ast.stmt], top: bool) -> None:
        # Iterative over nested blocks (if/try at module level) to bind conditional imports;
        # each statement carries whether it sits in an ``except`` handler (a fallback binding).
        stack: list[tuple[ast.stmt, bool]] = [(s, False) for s in reversed(body)]
        while stack:
            stmt, fallback = stack.pop()
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports.append(
                            ImportFacts(
                                alias.asname, alias.name, line=stmt.lineno, fallback=fallback
                            )
                        )
                    else:
                        top_name = alias.name.split(".", 1)[0]
                        self.imports.append(
                            ImportFacts(
                                top_name,
                                alias.name,
                                bind_top=True,
                                line=stmt.lineno,
                                fallback=fallback,
                            )
                        )
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    local = alias.asname or alias.name
                    self.imports.append(
                        ImportFacts(
                            local,
                            stmt.module or "",
                            alias.name,
                            stmt.level,
                            line=stmt.lineno,
                            fallback=fallback,
                        )
                    )
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt, "")
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(self._function(stmt, stmt.name, is_method=False))
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if (
                    isinstance(stmt.value, ast.Name)
                    and stmt.value.id == "object"
                    and all(isinstance(t, ast.Name) for t in targets)
                ):
                    # `_Base = object` (the runtime half of `if TYPE_CHECKING: _Base = X`):
                    # a mixin based on it is based on object, and its cooperative super()
                    # reaches the next class of the concrete class's MRO.
                    for t in targets:
                        assert isinstance(t, ast.Name)
                        self.imports.append(
                            ImportFacts(t.id, "builtins", "object", line=stmt.lineno)
                        )
                elif len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value:
                    # `_Base = LlamaDecoderLayer`: the name is bound to that class from here on
                    target = dotted(stmt.value)
                    if target and target != targets[0].id:
                        self.aliases.append(AliasFacts(targets[0].id, target, stmt.lineno))
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.names.add(n.id)
            elif isinstance(stmt, ast.If) and (typed := _type_checking(stmt.test)) is not None:
                # `if TYPE_CHECKING:`: only the type checker reads one branch; what it binds
                # does not exist at run time and must not hide what the other branch (or the
                # code around it) binds: the base a class really has.
                branch = stmt.orelse if typed else stmt.body
                stack.extend((s, fallback) for s in reversed(branch))
            elif isinstance(stmt, ast.If | ast.Try) or type(stmt).__name__ == "TryStar":
                blocks: list[tuple[list[ast.stmt], bool]] = [
                    (stmt.body, fallback),  # type: ignore[attr-defined]
                    (stmt.orelse, fallback),  # type: ignore[attr-defined]
                ]
                if not isinstance(stmt, ast.If):
                    blocks += [(h.body, True) for h in stmt.handlers]  # type: ignore[attr-defined]
                    blocks.append((stmt.finalbody, fallback))  # type: ignore[attr-defined]
                for block, in_handler in reversed(blocks):
                    stack.extend((s, in_handler) for s in reversed(block))

    def _function(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, is_method: bool
    ) -> FunctionFacts:
        span = _span(fn)
        blanked = self.ends.get(fn.lineno)
        if blanked is not None:
            pass_line, end = blanked
            if not (
                len(fn.body) == 1
                and isinstance(fn.body[0], ast.Pass)
                and fn.end_lineno == fn.body[0].lineno == pass_line
            ):
                raise ValueError("skeleton cut disagrees with the parse")  # whole text then
            assert self.source is not None
            last = self.source.lines()[end - 1]
            span = Span(span.line, span.col, end, len(last.rstrip().encode("utf-8")))
        decorators = tuple(_decorator_name(d) for d in fn.decorator_list)
        if self.source is not None and not (is_method and fn.name == "__init__"):
            # Read on first use: most functions are never reached from a constructor.
            return FunctionFacts(
                fn.name,
                qualname,
                None,
                None,
                span,
                decorators,
                source=self.source,
                is_method=is_method,
            )
        reader = _FunctionReader(fn, is_method)
        return FunctionFacts(
            name=fn.name,
            qualname=qualname,
            params=reader.params,
            effects=reader.read(),
            span=span,
            decorators=decorators,
        )

    def _class(self, node: ast.ClassDef, prefix: str) -> None:
        # Nested classes are walked with an explicit stack: no recursion on depth.
        stack: list[tuple[ast.ClassDef, str]] = [(node, prefix)]
        while stack:
            cls, pre = stack.pop()
            qual = f"{pre}{cls.name}"
            methods: list[FunctionFacts] = []
            attrs: list[str] = []
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.append(self._function(stmt, f"{qual}.{stmt.name}", is_method=True))
                elif isinstance(stmt, ast.ClassDef):
                    stack.append((stmt, f"{qual}."))
                    attrs.append(stmt.name)
                else:
                    attrs.extend(_bound_names(stmt))
                    default = _class_default(stmt)
                    if default is not None:  # ``proj: type = Linear``: a field's default class
                        self.field_defaults.append(FieldValueFacts(qual, *default, stmt.lineno))
            dynamic = any(isinstance(b, ast.Starred) for b in cls.bases) or any(
                k.arg is None for k in cls.keywords
            )
            bases = tuple(to_expr(b) for b in cls.bases if not isinstance(b, ast.Starred))
            self.classes.append(
                ClassFacts(
                    name=cls.name,
                    qualname=qual,
                    span=Span(cls.lineno, cls.col_offset, cls.lineno, cls.col_offset),
                    bases=bases,
                    methods=tuple(methods),
                    decorators=tuple(_decorator_name(d) for d in cls.decorator_list),
                    dynamic_bases=dynamic,
                    attrs=tuple(attrs),
                )
            )


def _type_checking(test: ast.expr) -> bool | None:
    """True for ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``), whose body only the type
    checker reads; False for ``if not TYPE_CHECKING:``, whose ``else`` only it reads; None for
    any other test."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    name = (
        inner.id
        if isinstance(inner, ast.Name)
        else inner.attr
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
        else ""
    )
    if name != "TYPE_CHECKING":
        return None
    return not negated


def _class_default(stmt: ast.stmt) -> tuple[str, str] | None:
    """``name: T = Value`` or ``name = Value`` in a class body, the value a dotted name whose
    last part is capitalised (a class, as ``facts/field_values.py`` reads keywords): the
    name and the value, as written."""
    target: ast.expr
    value: ast.expr | None
    if isinstance(stmt, ast.AnnAssign):
        target, value = stmt.target, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
    else:
        return None
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Name | ast.Attribute):
        return None
    written = dotted(value)
    if not written or not written.rpartition(".")[2][:1].isupper():
        return None
    return target.id, written


def _bound_names(stmt: ast.stmt) -> list[str]:
    """The names a class-body statement other than a def binds. ``x: int`` without a value
    binds nothing; anything compound (if/for/with/try/...) counts every name stored in it."""
    if isinstance(stmt, ast.AnnAssign):
        if stmt.value is None or not isinstance(stmt.target, ast.Name):
            return []
        return [stmt.target.id]
    if isinstance(stmt, ast.Expr | ast.Pass):
        return []
    names: list[str] = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.append(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            names.extend((a.asname or a.name).partition(".")[0] for a in n.names)
    return names


register_body_reader(read_body)

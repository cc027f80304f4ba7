"""Expressions, tests and parameters as the facts hold them: an ``ast`` node becomes a
``Span``, an ``Expr`` (``to_expr``), a ``Cond`` (``to_cond``) or a def's ``Param``s
(``read_params``). Equal spans and expressions of one file are one shared object."""

from __future__ import annotations

import ast
from dataclasses import replace

from initlint.facts.model import Cond, CondOp, Const, Expr, ExprKind, Param, ParamKind, Span

# Deeper expressions are summarised as "other"; keeps hostile input from exhausting the stack.
MAX_EXPR_DEPTH = 40
# Longer written-out collections in an ``in`` test stay one undecided condition.
_MAX_MEMBERS = 16
OTHER = Expr("other")
UNKNOWN_COND = Cond("unknown")

# Equal spans and expressions of one file share one object: a quarter fewer objects to
# pickle, and to rebuild when a warm run loads the cache. Cleared for every file read.
_SHARED: dict[tuple[object, ...], Span | Expr] = {}


def clear_shared() -> None:
    """Forget the spans and expressions shared so far: a new file (or body) is read."""
    _SHARED.clear()


def span_of(node: ast.AST) -> Span:
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
    callee: Expr | None = None,
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
        id(callee),
        *map(id, children),
    )
    expr = _SHARED.get(key)
    if expr is None:
        expr = _SHARED[key] = Expr(kind, name, attr, value, receiver, children, keywords, callee)
    assert isinstance(expr, Expr)
    return expr


def root_name(node: ast.AST) -> str:
    """``x`` for ``x``, ``x.a``, ``x[k]``, ``x.a[k]``...; "" when the chain starts elsewhere."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, else "". A literal key read from a namespace's
    ``__dict__`` (``zoo.__dict__["resnet50"]``) is the attribute it names, as Python finds
    it."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif (key := _dict_key(node)) and isinstance(node, ast.Subscript):
            parts.append(key)
            owner = node.value
            assert isinstance(owner, ast.Attribute)  # (_dict_key)
            node = owner.value
        else:
            break
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _dict_key(node: ast.AST) -> str:
    """The key of ``<x>.__dict__["<key>"]`` read; "" for anything else."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return ""
    owner, key = node.value, node.slice
    if not (isinstance(owner, ast.Attribute) and owner.attr == "__dict__"):
        return ""
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
        return key.value
    return ""


def expr_text(node: ast.AST) -> str:
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
        return _expr("const", name=type(value).__name__)  # ``...``, ``1j``: not None
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
            "op",
            name="bool",
            attr=expr_text(node.args[0])[:80],
            children=(to_expr(node.args[0], d),),
        )
    if isinstance(node, ast.Call):
        return _call_expr(node, d)
    if isinstance(node, ast.Subscript):
        # a slice of written-out bounds keeps them (``blocks[:-2]``: ``attr`` "None:-2"),
        # to tell which items of a container a store keeps
        bounds = _slice_bounds(node.slice)
        if bounds is not None:
            return _expr("subscript", name="slice", attr=bounds, receiver=to_expr(node.value, d))
        # a written-out index keeps it (``blocks[1]``: which item of a table is picked)
        index = node.slice
        axes = _added_axes(index)
        if axes:  # (``t[:, None]``: a view with a dimension more, ``attr`` ":,N")
            return _expr("subscript", name="newaxis", attr=axes, receiver=to_expr(node.value, d))
        if isinstance(index, ast.Constant) and type(index.value) is int:
            return _expr("subscript", value=index.value, receiver=to_expr(node.value, d))
        return _expr("subscript", receiver=to_expr(node.value, d))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        # ``not <test>``: the test's text rides along (a flag passed as ``not <cond>``).
        return _expr(
            "op",
            name="not",
            attr=expr_text(node.operand)[:80],
            children=(to_expr(node.operand, d),),
        )
    if isinstance(node, ast.BinOp):
        # the operator rides along: a size ``out // groups`` with ``out`` 0 is 0
        op = _BINOPS.get(type(node.op), "")
        return _expr("op", name=op, children=(to_expr(node.left, d), to_expr(node.right, d)))
    if isinstance(node, ast.Compare):
        # a test: its value is a bool, whatever its operands hold; one comparison keeps its
        # operator (``attr``: ``gt`` for ``n > 0``), to decide it where the operands are known
        kids = [to_expr(c, d) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        op = _COMPARES.get(type(node.ops[0]), "") if len(node.ops) == 1 else ""
        return _expr("op", name="test", attr=op, children=tuple(kids))
    if isinstance(node, ast.IfExp):
        # ``A if cond else B``: the test, then the two values it picks from
        picks = (node.test, node.body, node.orelse)
        return _expr("op", name="if", children=tuple(to_expr(c, d) for c in picks))
    if isinstance(node, ast.BoolOp):
        # (``attr``: ``and`` / ``or``, to decide it where the operands are known)
        kids = [to_expr(c, d) for c in node.values]
        return _expr(
            "op", attr="and" if isinstance(node.op, ast.And) else "or", children=tuple(kids)
        )
    if isinstance(node, ast.UnaryOp):
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
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp) and _plain_loop(node):
        # ``[Wrap(x) for x in self.skips]``: the loop's name rides along, then what it
        # walks and what each item becomes
        loop = node.generators[0]
        assert isinstance(loop.target, ast.Name)  # (_plain_loop)
        walked = (to_expr(loop.iter, d), *_own_names(node, [node.elt], d))
        return _expr("op", name="comp", attr=loop.target.id, children=walked)
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        # (the first loop's iterable is evaluated outside: the loops' names are not bound)
        parts: list[ast.expr] = [g.iter for g in node.generators[1:]]
        parts += [cond for g in node.generators for cond in g.ifs]
        parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        first = to_expr(node.generators[0].iter, d)
        return _expr("op", children=(first, *_own_names(node, parts, d)))
    if isinstance(node, ast.Await | ast.NamedExpr):
        return to_expr(node.value, d)
    if isinstance(node, ast.Lambda):
        # what a call of it evaluates: a lambda handed to a function is there to be called
        return _expr("op", name="lambda", children=_own_names(node, [node.body], d))
    if isinstance(node, ast.Starred):
        return to_expr(node.value, d)
    return OTHER


def _own_names(
    node: ast.Lambda | ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
    parts: list[ast.expr],
    depth: int,
) -> tuple[Expr, ...]:
    """``parts`` of a lambda or comprehension, with the names it binds itself written as
    OTHER in the tests of their conditional expressions (``Linear() if use else None for
    use in flags``): the function's constant of that name does not decide them."""
    out = tuple(to_expr(p, depth) for p in parts)
    if not any(isinstance(n, ast.IfExp) for p in parts for n in ast.walk(p)):
        return out
    if isinstance(node, ast.Lambda):
        a = node.args
        given = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
        names = frozenset(p.arg for p in given)
    else:
        names = frozenset(
            n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)
        )
    return tuple(_untested(e, names) for e in out)


def _untested(e: Expr, names: frozenset[str]) -> Expr:
    kids = tuple(_untested(c, names) for c in e.children)
    if e.kind == "op" and e.name == "if" and len(kids) == 3:
        kids = (_unnamed(kids[0], names), kids[1], kids[2])
    return _rebuilt(e, kids, None if e.receiver is None else _untested(e.receiver, names))


def _unnamed(e: Expr, names: frozenset[str]) -> Expr:
    if e.kind == "name" and e.name in names:
        return OTHER
    kids = tuple(_unnamed(c, names) for c in e.children)
    return _rebuilt(e, kids, None if e.receiver is None else _unnamed(e.receiver, names))


def _rebuilt(e: Expr, kids: tuple[Expr, ...], recv: Expr | None) -> Expr:
    """``e`` with the parts given (``e`` itself where they are its own)."""
    if recv is e.receiver and all(a is b for a, b in zip(kids, e.children, strict=True)):
        return e
    return _expr(e.kind, e.name, e.attr, e.value, recv, kids, e.keywords, e.callee)


def slice_bounds(e: Expr) -> tuple[int | None, int | None]:
    """The bounds a slice ``Expr`` (``subscript`` named "slice") keeps in its ``attr``
    (``_slice_bounds``): ``[:-2]`` -> (None, -2)."""
    lo, _, hi = e.attr.partition(":")
    return (None if lo == "None" else int(lo)), (None if hi == "None" else int(hi))


def _added_axes(index: ast.expr) -> str:
    """The items of an index that gives a tensor new dimensions (``[:, None]``: ":,N";
    ``[None, ...]``: "N,..."), written as ``:`` for a whole slice, ``N`` for ``None`` and
    ``...``; "" for an index with no ``None``, or with any other item (an integer, a bound,
    a tensor: it picks)."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    out: list[str] = []
    for i in items:
        if isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None:
            out.append(":")
        elif isinstance(i, ast.Constant) and i.value is None:
            out.append("N")
        elif isinstance(i, ast.Constant) and i.value is ...:
            out.append("...")
        else:
            return ""
    return ",".join(out) if "N" in out else ""


def _slice_bounds(node: ast.expr) -> str | None:
    """``lo:hi`` of a slice whose bounds are integers written out or left out (``[:-2]``:
    "None:-2"); None for an index, a step, or a bound computed at run time."""
    if not isinstance(node, ast.Slice) or node.step is not None:
        return None
    out: list[str] = []
    for bound in (node.lower, node.upper):
        if bound is None:
            out.append("None")
            continue
        sign = 1
        if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
            sign, bound = -1, bound.operand
        if not isinstance(bound, ast.Constant) or type(bound.value) is not int:
            return None
        out.append(str(sign * bound.value))
    return ":".join(out)


def _call_expr(node: ast.Call, depth: int) -> Expr:
    """A call: its arguments' values as children (at ``depth``), its callee's name and
    receiver."""
    func = node.func
    args = [to_expr(a.value if isinstance(a, ast.Starred) else a, depth) for a in node.args]
    args += [to_expr(k.value, depth) for k in node.keywords]
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
            receiver=to_expr(func.value, depth),
            children=tuple(args),
            keywords=kws,
        )
    name = dotted(func)
    # (``MODELS[arch](d)``: the value called, to find what it may hold)
    callee = None if name else to_expr(func, depth)
    return _expr("call", name=name, value=npos, children=tuple(args), keywords=kws, callee=callee)


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
        return Cond(op, tuple(to_cond(v, d) for v in node.values), name=expr_text(node)[:80])
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        name = _COMPARES.get(type(node.ops[0]))
        if name:
            return Cond(
                name,
                (to_cond(node.left, d), to_cond(node.comparators[0], d)),
                name=expr_text(node)[:80],
            )
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        member = _membership(node, d)
        if member is not None:
            return member
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_OPS:
        # ``num_blocks - att_layer_num``: folded where both operands are known numbers (no
        # text: an undecided test is keyed by the comparison around it)
        sides = (to_cond(node.left, d), to_cond(node.right, d))
        return Cond("arith", sides, value=_ARITH_OPS[type(node.op)])
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
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and not node.keywords
        and isinstance(node.args[0], ast.Name)
    ):
        classes = expr_text(node.args[1])[:80]
        tested = (Cond("name", name=node.args[0].id),)
        return Cond("isinstance", tested, value=classes, name=expr_text(node)[:80])
    return Cond("unknown", name=expr_text(node)[:80])


# The comparisons guards decide and a value's test keeps (``to_cond``, ``to_expr``).
_COMPARES: dict[type[ast.cmpop], CondOp] = {
    ast.Is: "is",
    ast.IsNot: "isnot",
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
}

# The arithmetic a guard's operands may be computed with (``simulation/folding.py``).
_ARITH_OPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}


def test_of(cond: Cond) -> tuple[Cond, bool]:
    """The test a guard condition makes, and whether the condition holds when the test comes
    out true (``not x``: the test ``x``, holding when it is false)."""
    holds = True
    while cond.op == "not" and cond.args:
        cond, holds = cond.args[0], not holds
    return cond, holds


def _membership(node: ast.Compare, depth: int) -> Cond | None:
    """``x in (a, b)`` over written-out constants is ``x == a or x == b`` (``not in``: ``x !=
    a and x != b``), as Python evaluates it for plain values: the guards then decide it, and
    tell ``mode in ("a", "b")`` and ``mode == "c"`` apart as two arms that never both run."""
    test = node.ops[0]
    items = node.comparators[0]
    if not isinstance(test, ast.In | ast.NotIn) or not isinstance(
        items, ast.List | ast.Tuple | ast.Set
    ):
        return None
    if not items.elts or len(items.elts) > _MAX_MEMBERS:
        return None
    if not all(isinstance(e, ast.Constant) for e in items.elts):
        return None
    cmp: ast.cmpop = ast.Eq() if isinstance(test, ast.In) else ast.NotEq()
    joined: CondOp = "or" if isinstance(test, ast.In) else "and"
    parts = tuple(to_cond(ast.Compare(node.left, [cmp], [e]), depth) for e in items.elts)
    if any(p.op not in ("eq", "ne") or p.args[1].op != "const" for p in parts):
        return None
    return Cond(joined, parts, name=expr_text(node)[:80])


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    return dotted(node) or "<dynamic>"


def read_params(args: ast.arguments, annotated: bool = False) -> tuple[Param, ...]:
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


def _plain_loop(node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> bool:
    """One ``for name in ...`` and no ``if``."""
    if len(node.generators) != 1:
        return False
    loop = node.generators[0]
    return isinstance(loop.target, ast.Name) and not loop.ifs and not loop.is_async


def copied_params(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, params: tuple[Param, ...], method: bool = True
) -> tuple[Param, ...]:
    """``params`` (after ``self``, for a ``method``) with ``copied_by`` set on each that
    ``fn``'s body mentions only as the first positional argument of calls of one plainly
    named callee (``deepcopy(module)``, ``_get_clones(layer, n)``), besides reads of what
    it is (``isinstance(layer, T)``, ``layer.norm_first``, ``layer.attn.batch_first``) and of
    its attributes (``nn.LayerNorm(layer.size)``: ``copy_reads``, parts it may keep).
    Any other mention (stored, passed on, rebound, a method of it called, read by a nested
    function, ``locals()``) keeps the parameter out, and so does any mention in a nested
    scope (a closure keeps the object to copy later), and a decorator (it may keep the
    arguments itself)."""
    if fn.decorator_list:
        return params
    names = {p.name for p in params[1 if method else 0 :]}
    if not names:
        return params
    callee: dict[str, str] = {}
    spoilt: set[str] = set()
    copies: set[int] = set()  # the ``Name`` nodes that are a copy call's argument, or read
    reads: dict[str, set[str]] = {}  # the attributes read of each, outside tests
    # (node, in a nested scope, in a test: ``if layer.norm_first:``)
    todo: list[tuple[ast.AST, bool, bool]] = [(stmt, False, False) for stmt in fn.body]
    while todo:  # (a parent comes before its children)
        node, nested, tested = todo.pop()
        if isinstance(node, ast.Call) and not nested:
            if _reflective(node.func):
                spoilt.update(names)
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Name) and arg.id in names:
                name = dotted(node.func)
                if name == "isinstance":
                    copies.add(id(arg))
                elif name:
                    copies.add(id(arg))
                    if callee.setdefault(arg.id, name) != name:
                        spoilt.add(arg.id)
            if isinstance(node.func, ast.Attribute):  # (``layer.forward(x)``: its method)
                root = node.func.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in names:
                    spoilt.add(root.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
            and not nested
        ):
            if isinstance(node.ctx, ast.Load):
                copies.add(id(node.value))  # (what it is: ``if layer.norm_first:``)
                if not tested:  # (``layer.size``: a field, or a part it may keep)
                    reads.setdefault(node.value.id, set()).add(node.attr)
        elif isinstance(node, ast.Name) and node.id in names and id(node) not in copies:
            spoilt.add(node.id)
        inner = nested or isinstance(node, _SCOPES)
        test = getattr(node, "test", None) if isinstance(node, _TESTED) else None
        todo.extend((child, inner, tested or child is test) for child in ast.iter_child_nodes(node))
    return tuple(
        replace(p, copied_by=callee[p.name], copy_reads=tuple(sorted(reads.get(p.name, ()))))
        if p.name in callee and p.name not in spoilt
        else p
        for p in params
    )


def spread_params(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, params: tuple[Param, ...]
) -> tuple[Param, ...]:
    """``params`` with ``spread_only`` set on the ``*args`` and ``**kwargs`` that ``fn``'s
    body mentions only spread into calls (``Net(*args, **kwargs)``) or read
    (``kwargs.get("n")``, ``"n" in kwargs``): any other mention (stored, passed as a value,
    changed, ``kwargs["n"] = 1``, read by a nested scope) keeps the pack out."""
    packs = {p.name for p in params if p.kind in ("vararg", "kwarg")}
    if not packs or fn.decorator_list:
        return params
    fine: set[int] = set()  # the ``Name`` nodes that are a spread or a read
    spoilt: set[str] = set()
    todo: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in fn.body]
    while todo:  # (a parent comes before its children)
        node, nested = todo.pop()
        if isinstance(node, ast.Starred | ast.keyword) and isinstance(node.value, ast.Name):
            if not isinstance(node, ast.keyword) or node.arg is None:
                fine.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            recv = node.func.value
            if isinstance(recv, ast.Name) and node.func.attr in ("get", "keys", "items"):
                fine.add(id(recv))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            right = node.comparators[0]
            if isinstance(node.ops[0], ast.In | ast.NotIn) and isinstance(right, ast.Name):
                fine.add(id(right))
        elif isinstance(node, ast.Name) and node.id in packs:
            if nested or id(node) not in fine or not isinstance(node.ctx, ast.Load):
                spoilt.add(node.id)
        inner = nested or isinstance(node, _SCOPES)
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return tuple(
        replace(p, spread_only=True) if p.name in packs and p.name not in spoilt else p
        for p in params
    )


# Statements and expressions whose ``test`` reads values only to decide.
_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)

# Scopes whose body runs later, or whenever it is asked to (a generator's too).
_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.GeneratorExp)


def _reflective(func: ast.expr) -> bool:
    """``locals()``, ``vars()``, ``eval(...)``: a call that may read any local by name."""
    return isinstance(func, ast.Name) and func.id in ("locals", "vars", "eval", "exec")


def _param(arg: ast.arg, kind: ParamKind, default: ast.expr | None, annotated: bool) -> Param:
    note = arg.annotation
    annotation = _annotated_classes(note) if annotated and note is not None else ()
    if default is None:
        return Param(arg.arg, kind, annotation=annotation)
    return Param(arg.arg, kind, to_expr(default), True, annotation)


def _annotated_classes(node: ast.expr) -> tuple[str, ...]:
    """The classes an annotation names: ``Subs``, ``m.Subs``, and the members of
    ``Optional[...]``, ``Union[...]`` and ``A | B``; () for anything else. A name whose last
    part is not capitalised (``int``, ``torch.dtype``) is no class by Python's convention."""
    if isinstance(node, ast.Name):
        return (node.id,) if node.id[:1].isupper() else ()
    if isinstance(node, ast.Attribute):
        name = dotted(node)
        return (name,) if name and name.rpartition(".")[2][:1].isupper() else ()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _annotated_classes(node.left) + _annotated_classes(node.right)
    if isinstance(node, ast.Subscript) and dotted(node.value).rpartition(".")[2] in (
        "Optional",
        "Union",
    ):
        inner = node.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return tuple(n for item in items for n in _annotated_classes(item))
    return ()

"""The one argument binder and the value keys IL002 compares calls by
(``simulation/binding.py``)."""

from __future__ import annotations

import ast

from initlint.facts.expressions import to_expr
from initlint.facts.model import Expr, Param
from initlint.simulation.binding import (
    DIFFER,
    MAYBE,
    SAME,
    SYM,
    Key,
    bind_args,
    expr_key,
    fits,
    own_defaults,
    same_args,
)


def params(src: str) -> tuple[Param, ...]:
    """The parameters of ``def f(<src>): ...`` as the fact pass records them."""
    fn = ast.parse(f"def f({src}): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    out: list[Param] = []
    pos = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(pos, defaults, strict=True)):
        kind = "posonly" if i < len(a.posonlyargs) else "pos"
        out.append(Param(arg.arg, kind, to_expr(d) if d else None, d is not None))
    if a.vararg:
        out.append(Param(a.vararg.arg, "vararg"))
    for arg, kd in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(Param(arg.arg, "kwonly", to_expr(kd) if kd else None, kd is not None))
    if a.kwarg:
        out.append(Param(a.kwarg.arg, "kwarg"))
    return tuple(out)


def left_out(_: None, p: Param) -> str:
    return f"<{p.name} default>" if p.has_default else f"<{p.name} missing>"


def test_positional_keyword_and_default() -> None:
    values, missing, star, extra, kw, extra_kw = bind_args(
        ["a"], {"c": "C"}, params("x, y=2, *, c, d=4"), left_out, None
    )
    assert values == {"x": "a", "y": "<y default>", "c": "C", "d": "<d default>"}
    assert (missing, star, extra, kw, extra_kw) == (False, "", [], "", {})


def test_packs_take_what_no_named_parameter_takes() -> None:
    values, _, star, extra, kw, extra_kw = bind_args(
        ["a", "b", "c"], {"z": "Z", "y": "Y"}, params("x, y=0, *rest, **more"), left_out, None
    )
    # y is given positionally, so the keyword y goes to **more (a TypeError at runtime)
    assert values == {"x": "a", "y": "b"}
    assert (star, extra, kw, extra_kw) == ("rest", ["c"], "more", {"z": "Z", "y": "Y"})


def test_what_python_refuses_does_not_fit() -> None:
    assert not fits(bind_args(["a", "b"], {}, params("x"), left_out, None))  # surplus positional
    assert not fits(bind_args([], {"q": 1}, params("x=1"), left_out, None))  # unknown keyword
    missing = bind_args([], {}, params("x"), left_out, None)
    assert not fits(missing) and missing[0] == {"x": "<x missing>"}
    # a positional-only parameter is not bound by keyword
    posonly = bind_args([], {"x": "X"}, params("x=1, /, **kw"), left_out, None)
    assert posonly[0] == {"x": "<x default>"} and posonly[5] == {"x": "X"}
    assert fits(bind_args(["a"], {"b": "B"}, params("a, b"), left_out, None))


def key(src: str, names: dict[str, Key | None] | None = None, exact: bool = True) -> Key | None:
    known = names or {}

    def name_key(name: str) -> Key | None:
        return known.get(name, ("g", name))

    expr: Expr = to_expr(ast.parse(src, mode="eval").body)
    return expr_key(expr, name_key, exact=exact)


def test_exact_keys_refuse_what_the_expression_tree_dropped() -> None:
    # a subscript keeps only an index written out as a number, a comparison no operator:
    # x[i] and x[i + 1] would key alike
    assert key("x[i]", exact=False) == key("x[i + 1]", exact=False)
    assert key("x[0]", exact=False) != key("x[1]", exact=False)
    assert key("x[0]") is None and key("a < b") is None and key("-1") is None
    assert key("f(n, size=2 * n)", {"n": ("c", "4")}) == key("f(n, size=2 * n)", {"n": ("c", "4")})
    assert key("f(n)", {"n": ("c", "4")}) != key("f(n)", {"n": ("c", "8")})
    assert key("self.width") == ("a", "width")
    assert key("(a, b)", {"b": None}) is None  # a part not known: the whole is not


def test_same_args_by_value_and_by_the_class_defaults() -> None:
    four, eight, size = ("c", "4"), ("c", "8"), (SYM, "size")
    defaults = own_defaults(params("self, size=4, cfg=None"))
    assert defaults == {"size": ("c", "4"), "cfg": ("c", "None")}
    assert same_args((("n", four),), (("n", four),), defaults) == SAME
    assert same_args((("n", four),), (("n", eight),), defaults) == DIFFER
    assert same_args((("n", four),), (("n", None),), defaults) == DIFFER  # not known
    assert same_args((("n", four),), (("n", size),), defaults) == MAYBE  # size=4 by default
    assert same_args((("n", eight),), (("n", size),), defaults) == DIFFER
    assert same_args((("n", four),), (("n", (SYM, "cfg.n")),), defaults) == DIFFER
    assert same_args(None, (("n", four),), defaults) == DIFFER  # could not be bound

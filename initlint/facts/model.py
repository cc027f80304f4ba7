"""Picklable, frozen records of what one file says about classes, imports and init effects."""

from __future__ import annotations

from dataclasses import dataclass, field

Const = bool | int | float | str | bytes | None


@dataclass(frozen=True)
class Span:
    """1-based lines; 0-based columns in UTF-8 bytes, as the ``ast`` module reports them."""

    line: int
    col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class Expr:
    """A small expression tree, enough for the cost model and for constant flow.

    kind: ``const`` | ``name`` | ``attr`` | ``call`` | ``op`` | ``subscript`` | ``other``.
    For ``call``: ``name`` is the dotted callee when it is a plain dotted path (else ""),
    ``attr`` the method name when the callee is an attribute, ``receiver`` the object the
    method is called on, ``children`` the argument values.
    """

    kind: str
    name: str = ""
    attr: str = ""
    value: Const = None
    receiver: Expr | None = None
    children: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Cond:
    """A guard condition. op: const|name|selfattr|not|and|or|is|isnot|eq|ne|unknown."""

    op: str
    args: tuple[Cond, ...] = ()
    value: Const = None
    name: str = ""


@dataclass(frozen=True)
class Arg:
    """One call argument. ``keyword`` is None for positional; ``star`` is 0, 1 (*x) or 2 (**x)."""

    expr: Expr
    text: str
    keyword: str | None = None
    star: int = 0
    span: Span | None = None


@dataclass(frozen=True)
class Effect:
    """One init-relevant statement, in source order, with its guard (a conjunction).

    kind: ``buffer`` (name, detail buffer|parameter, value) | ``call`` (name = method, detail
    self|super, args) | ``assign`` (name = attribute, value) | ``super_init`` (detail
    super|super2|explicit, target = class expression, args) | ``local`` (name, value) |
    ``pop`` (name = key) | ``return`` (value).
    """

    kind: str
    span: Span
    guard: tuple[Cond, ...] = ()
    name: str = ""
    detail: str = ""
    target: str = ""
    args: tuple[Arg, ...] = ()
    value: Expr | None = None
    # For calls: indices of the effects in the same function that consume the result,
    # and whether the result is also used anywhere else.
    feeds: tuple[int, ...] = ()
    feeds_other: bool = False
    # Index of the enclosing top-level statement of the function body.
    stmt: int = 0
    # Span of the whole statement this effect sits in.
    stmt_span: Span | None = None
    # First line of the enclosing top-level statement of the body, and whether it is a `with`.
    top_line: int = 0
    top_with: bool = False


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # posonly | pos | vararg | kwonly | kwarg
    default: Expr | None = None
    has_default: bool = False


@dataclass(frozen=True)
class FunctionFacts:
    name: str
    qualname: str
    params: tuple[Param, ...]
    effects: tuple[Effect, ...]
    span: Span
    decorators: tuple[str, ...] = ()

    @property
    def is_static(self) -> bool:
        return "staticmethod" in self.decorators

    @property
    def is_classmethod(self) -> bool:
        return "classmethod" in self.decorators


@dataclass(frozen=True)
class ClassFacts:
    name: str
    qualname: str  # dotted within the module, e.g. Outer.Inner
    span: Span
    bases: tuple[Expr, ...]
    methods: tuple[FunctionFacts, ...]
    decorators: tuple[str, ...] = ()
    dynamic_bases: bool = False

    def method(self, name: str) -> FunctionFacts | None:
        found = None
        for m in self.methods:
            if m.name == name:
                found = m  # the last definition wins, as at runtime
        return found


@dataclass(frozen=True)
class ImportFacts:
    """``import a.b as c``: local c, module a.b. ``import a.b``: local a, module a.b, bind_top.

    ``from .x import Y as Z``: local Z, module x, name Y, level 1. Star: name ``*``.
    """

    local: str
    module: str
    name: str | None = None
    level: int = 0
    bind_top: bool = False
    line: int = 0


@dataclass(frozen=True)
class ModuleFacts:
    imports: tuple[ImportFacts, ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    functions: tuple[FunctionFacts, ...] = ()
    # Other top-level names bound by assignment (for re-export lookups).
    names: frozenset[str] = field(default_factory=frozenset)
    error: str | None = None  # a syntax error: "message" ; error_line below
    error_line: int = 0
    error_col: int = 0

"""A call's arguments bound to a function's parameters, and what the bound values are.

**One binder** (``bind_args``), by Python's rules: positional arguments bind by position,
keywords by name, a parameter left out takes what the caller's ``left_out`` gives for it (its
default, valued as that caller needs), the positionals past the named parameters go to
``*args`` and the keywords no parameter takes to ``**kw``. Every reader binds through it and
values the arguments its own way: the simulation as ``Val``s (``engine.bind_call``), the
memoised-factory check as views (``memo.bind_views``), and IL002 as value keys (below).

**Value keys** (``expr_key``): nested tuples of strings that stand for a value by identity, so
two calls made in different frames can be compared by what they pass rather than by the text
of their arguments: ``("c", "4")`` a constant, ``(SYM, "dim")`` the constructed class's own
argument ``dim`` (its value is not known: callers initlint does not see pass it), ``("a",
"x")`` the attribute ``self.x`` (by name: its writes are checked apart), ``("g", name)`` a
global or builtin, and for a call, an operator or an attribute read a tuple of its parts. A
call's key assumes that calling the same function with equal arguments gives an equal value.
None where the value is not known. ``exact=True`` (IL002) also gives None where the
``Expr`` tree dropped a part of the expression (a subscript's index, a comparison's operator,
a comprehension's target): equal keys must then mean equal values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from initlint.facts.model import Expr, Param

T = TypeVar("T")
C = TypeVar("C")

Key = tuple[object, ...]
# ``(SYM, name)``: the constructed class's argument ``name`` (``name`` may be dotted:
# ``config.hidden`` read from its argument ``config``).
SYM = "$arg"
# ``(SYM, (DEFAULTED, key))``: a parameter an open ``**kw`` pack may give, ``key`` its default.
DEFAULTED = "$default"
# The ops an ``Expr`` of kind ``op`` names (``facts.expressions.to_expr``: arithmetic, a tuple or
# list display, a starred item ``*``, ``not``, ``bool()``). Any other op (a comparison,
# ``and``/``or``, a conditional, a unary minus, a set or dict display, a comprehension, an
# f-string) lost what it was.
_EXACT_OPS = frozenset({"+", "-", "*", "/", "//", "%", "**", "tuple", "not", "bool"})


# What ``bind_args`` gives (a plain tuple: it runs for every call the simulation makes):
# ``values``, every parameter but ``*args``/``**kw`` in signature order with the argument
# passed for it or, left out, what ``left_out`` gave; ``missing``, whether a parameter without
# a default was left out (a TypeError at runtime); ``star``/``extra``, the ``*args``
# parameter's name ("" when there is none) and the positionals past the named parameters;
# ``kw``/``extra_kw``, the ``**kw`` parameter's name and the keywords no named parameter
# takes, in call order.
BoundArgs = tuple[dict[str, T], bool, str, list[T], str, dict[str, T]]


def bind_args(
    positional: list[T],
    keywords: dict[str, T],
    params: Sequence[Param],
    left_out: Callable[[C, Param], T],
    context: C,
) -> BoundArgs[T]:
    """Bind ``positional`` and ``keywords`` (in call order) to ``params`` (``self`` already
    dropped where the call is through an object). A named parameter the call leaves out
    gets ``left_out(context, param)``: its default (``Param.has_default``), or the caller's
    stand-in for a missing argument (``context``: what the caller values it in, passed on
    as is: no closure to build per call). A keyword naming a parameter that was already
    given positionally, or a positional-only one, is no match: it goes to ``**kw`` (at
    runtime a TypeError)."""
    values: dict[str, T] = {}
    star = kw = ""
    missing = False
    npos = len(positional)
    i = 0
    took: list[str] = []
    for p in params:
        kind = p.kind
        if kind == "vararg":
            star = p.name
        elif kind == "kwarg":
            kw = p.name
        elif i < npos and kind != "kwonly":
            values[p.name] = positional[i]
            i += 1
        elif kind != "posonly" and p.name in keywords:
            values[p.name] = keywords[p.name]
            took.append(p.name)
        else:
            missing = missing or not p.has_default
            values[p.name] = left_out(context, p)
    extra = positional[i:] if i < npos else []
    extra_kw = keywords  # (none taken: the caller's own dict)
    if took:
        extra_kw = {k: v for k, v in keywords.items() if k not in took}
    return values, missing, star, extra, kw, extra_kw


def fits(bound: BoundArgs[T]) -> bool:
    """Whether Python would accept the call ``bound`` binds: no missing argument, no
    surplus positional without ``*args``, no unknown keyword without ``**kw``."""
    _, missing, star, extra, kw, extra_kw = bound
    return not missing and (bool(star) or not extra) and (bool(kw) or not extra_kw)


def expr_key(
    e: Expr, name_key: Callable[[str], Key | None], me: str = "self", exact: bool = False
) -> Key | None:
    """A value key of ``e``, names looked up by ``name_key``; None when a part is unknown
    (and, ``exact``, when the ``Expr`` dropped a part of the expression). ``self.x`` (``me``
    the name of the object) is keyed by the attribute's name."""
    kind = e.kind
    if kind == "const":
        return ("c", repr(e.value))
    if kind == "name":
        return name_key(e.name)
    recv = e.receiver
    if kind == "attr":
        if recv is not None and recv.kind == "name" and recv.name == me:
            return ("a", e.attr)
        inner = expr_key(recv, name_key, me, exact) if recv is not None else None
        return None if inner is None else (".", inner, e.attr)
    if exact and (
        kind == "subscript"
        or (kind == "op" and e.name not in _EXACT_OPS)
        or (kind == "call" and not e.name and recv is None)  # ``f()()``, ``fs[0]()``
    ):
        return None
    if kind in ("call", "op", "subscript"):
        parts: list[object] = [kind, e.name, e.attr, repr(e.value), e.keywords]
        if recv is not None:
            r = expr_key(recv, name_key, me, exact)
            if r is None:
                return None
            parts.append(r)
        for c in e.children:
            k = expr_key(c, name_key, me, exact)
            if k is None:
                return None
            parts.append(k)
        return tuple(parts)
    return None


def default_key(default: Expr | None) -> Key:
    """The key of what a left-out parameter holds: a constant default by its value, any
    other default by its text (equal for two calls of one function), no default apart."""
    if default is None:
        return ("d",)
    if default.kind == "const":
        return ("c", repr(default.value))
    return ("d", repr(default))


def has_sym(key: Key) -> bool:
    """Whether ``key`` holds an argument of the constructed class (an unknown value)."""
    stack: list[object] = [key]
    while stack:
        cur = stack.pop()
        if isinstance(cur, tuple):
            if cur[:1] == (SYM,):
                return True
            stack.extend(cur)
    return False


SAME, MAYBE, DIFFER = 2, 1, 0
# The parameters of a call as bound in the frame it ran in, each with its value key (None:
# not known); None for a call that could not be bound (``f(*xs)`` of an unknown pack).
ArgKeys = tuple[tuple[str, Key | None], ...] | None


def own_defaults(params: Sequence[Param]) -> dict[str, Key]:
    """The constructed class's own parameters that have a constant default, each with the
    key of that default (``with_defaults``)."""
    return {
        p.name: ("c", repr(p.default.value))
        for p in params
        if p.default is not None and p.default.kind == "const"
    }


def with_defaults(key: Key, defaults: Mapping[str, Key]) -> Key:
    """``key`` with each argument of the constructed class replaced by its own default's
    key, where that is known (``defaults``: its parameters' constant defaults)."""
    if key[:1] == (SYM,):
        name = key[1]
        if isinstance(name, tuple) and name[:1] == (DEFAULTED,):
            return name[1]  # type: ignore[no-any-return]
        return defaults.get(name, key) if isinstance(name, str) else key
    return tuple(with_defaults(k, defaults) if isinstance(k, tuple) else k for k in key)


def same_args(a: ArgKeys, b: ArgKeys, defaults: Mapping[str, Key]) -> int:
    """Whether two calls of one function compute the same thing, parameter by parameter:
    SAME when every value is known and equal; MAYBE when the only differences are equal once
    the constructed class's own arguments take their defaults (``defaults``; a caller may
    pass others); DIFFER when a value differs or is unknown on either side."""
    if a is None or b is None or len(a) != len(b):
        return DIFFER
    verdict = SAME
    for (name_a, ka), (name_b, kb) in zip(a, b, strict=True):
        if name_a != name_b or ka is None or kb is None:
            return DIFFER
        if ka == kb:
            continue
        if not (has_sym(ka) or has_sym(kb)):
            return DIFFER
        if with_defaults(ka, defaults) != with_defaults(kb, defaults):
            return DIFFER
        verdict = MAYBE
    return verdict


def why_different(a: ArgKeys, b: ArgKeys, defaults: Mapping[str, Key]) -> str:
    """What makes two calls' arguments no match (``same_args`` DIFFER), for a reader: the
    first parameter whose value differs or is not known on one side."""
    if a is None or b is None or len(a) != len(b):
        return "the arguments could not be bound (a starred argument of unknown length)"
    for (name, ka), (_, kb) in zip(a, b, strict=True):
        if ka is None or kb is None:
            return f"the value of `{name}` is not known on both sides"
        if ka != kb and with_defaults(ka, defaults) != with_defaults(kb, defaults):
            return f"`{name}` differs"
    return "the arguments are equal"

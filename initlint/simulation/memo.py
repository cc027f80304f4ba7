"""Which object a memoised factory hands back: the arguments of a call, bound to the
factory's parameters (docs/design.md, "Cost classes").

A memoised factory (``get_rope``) returns the object it built before when it is asked
again with equal arguments. Whether two calls are equal is decided per parameter of the
factory, after binding each call's arguments (positional, keyword, or the default of one it
omits), so ``get_rope(d, cfg=None)`` equals ``get_rope(d)`` when ``cfg`` defaults to None.
A call may reach the factory through plain wrappers (``get_rope_wrapper(...)`` returning
``get_rope(...)``): the wrapper's arguments are mapped through its return call, hop by hop
(``MemoRoute.hops``).

The arguments are bound by the one binder (``binding.bind_args``) and each is seen as a
``View``: a value key (``binding.expr_key``) where the argument's value is known by identity
(a constant, the constructed class's argument it came from, a global, or an expression of
such), and its text otherwise. Two views are equal when both keys are known and equal, or,
where either is not known, when their texts are equal. (IL002 is stricter: a value unknown on
either side is no repeat, ``binding.same_args``. Here an unknown that reads the same text
stays "equal": the cached object comes back, no finding.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from initlint.facts.model import Expr, Param
from initlint.index.records import FunctionInfo
from initlint.records import dataclass
from initlint.simulation.binding import (
    DIFFER,
    MAYBE,
    SAME,
    Key,
    bind_args,
    default_key,
    expr_key,
    fits,
    has_sym,
)

# A value key (``binding.expr_key``; None where the value is unknown) and the text it was
# read from.
View = tuple[Key | None, str]
# The factory reached, and its parameters' views (None: the call could not be bound, e.g.
# ``f(*args)``: equal to nothing).
Binding = tuple[str, tuple[tuple[str, View], ...] | None]
ViewOf = Callable[[Expr], View]


@dataclass(frozen=True)
class Hop:
    """A wrapper on the way to a factory: its qualname and parameters, the names its body
    rebinds, and the call in its ``return`` that leads on."""

    owner: str
    params: tuple[Param, ...]
    rebound: frozenset[str]
    call: Expr


@dataclass(frozen=True)
class MemoRoute:
    """One way a call reaches a memoised factory: ``factory`` (its qualname; the dotted
    name of an external callable for an opaque route, whose caching is not known), ``fn``
    and ``params`` the factory and its parameters (None and () when opaque), and ``hops``
    the wrappers on the way (outermost first)."""

    factory: str
    fn: FunctionInfo | None
    params: tuple[Param, ...] = ()
    hops: tuple[Hop, ...] = ()


def bind_views(call: Expr, params: tuple[Param, ...], view_of: ViewOf) -> dict[str, View] | None:
    """``call``'s arguments bound to ``params`` (a module-level function: no ``self``), as
    views (``binding.bind_args``); an omitted parameter takes its default. None when the call
    cannot be bound statically (``*args``/``**kw`` passed, an unknown keyword, a missing
    argument)."""
    kws = call.keywords
    if kws[:1] == ("*",) or "" in kws:
        return None
    npos = call.value if isinstance(call.value, int) else len(call.children)
    positional = [view_of(e) for e in call.children[:npos]]
    keywords = {k: view_of(v) for k, v in zip(kws, call.children[npos:], strict=True)}
    bound = bind_args(positional, keywords, params, _left_out, None)
    if not fits(bound):
        return None
    env, _, star, extra, kw, extra_kw = bound
    if star:
        env[star] = _pack(extra)
    if kw:
        env[kw] = _pack([_named(k, v) for k, v in sorted(extra_kw.items())])
    return env


def _left_out(_: None, p: Param) -> View:
    return default_view(p.default)


def default_view(default: Expr | None) -> View:
    """What an omitted parameter holds: its default (a constant is known by value)."""
    if default is None:
        return default_key(None), "<no default>"
    return default_key(default), repr(default)


def route_binding(route: MemoRoute, call: Expr, view_of: ViewOf) -> Binding:
    """The factory ``route`` reaches from ``call`` and its arguments' views there."""
    cur_call, cur_view = call, view_of
    env: dict[str, View] | None = {}
    for hop in route.hops:
        env = bind_views(cur_call, hop.params, cur_view)
        if env is None:
            return route.factory, None
        cur_view = _wrapper_view(env, hop.rebound, hop.owner)
        cur_call = hop.call
    if route.fn is None:  # an opaque callable: known only by what the last wrapper got
        return route.factory, None if env is None else tuple(sorted(env.items()))
    bound = bind_views(cur_call, route.params, cur_view)
    return route.factory, None if bound is None else tuple(sorted(bound.items()))


def same_views(a: View, b: View) -> int:
    """SAME when both keys are known and equal (or, either unknown, the texts are); when
    known keys differ, MAYBE if either holds an argument of the constructed class (the
    caller may pass the other side's value), else DIFFER."""
    if a[0] is not None and b[0] is not None:
        if a[0] == b[0]:
            return SAME
        return MAYBE if has_sym(a[0]) or has_sym(b[0]) else DIFFER
    return SAME if a[1] == b[1] else DIFFER


def same_binding(a: Binding, b: Binding) -> int:
    """The least outcome over the parameters of two bindings of one factory."""
    if a[0] != b[0] or a[1] is None or b[1] is None:
        return DIFFER
    left, right = dict(a[1]), dict(b[1])
    if left.keys() != right.keys():
        return DIFFER
    return min((same_views(left[k], right[k]) for k in left), default=SAME)


def compare(prev: tuple[Binding, ...], cur: tuple[Binding, ...]) -> str:
    """Whether ``cur`` gets another object than ``prev`` got: "" (the same: every route of
    each side pairs up with an equal one of the other), "maybe" (an equal or possibly equal
    pair exists, but an argument of the constructed class decides, or one side may take
    another route: a wrapper that picks its factory at run time), else "yes"."""
    if not prev or not cur:
        return "yes"
    best_prev = [max((same_binding(p, c) for c in cur), default=DIFFER) for p in prev]
    best_cur = [max((same_binding(p, c) for p in prev), default=DIFFER) for c in cur]
    if min(best_prev) == SAME and min(best_cur) == SAME:
        return ""
    return "maybe" if max(best_cur) > DIFFER else "yes"


def _wrapper_view(env: Mapping[str, View], rebound: frozenset[str], owner: str) -> ViewOf:
    """Views of expressions inside a wrapper: its parameters hold the caller's views; a
    name the wrapper rebinds is not known; any other name is a global of its module."""

    def name_key(name: str) -> Key | None:
        if name in rebound:
            return None
        got = env.get(name)
        if got is not None:
            return got[0]
        return ("g", owner, name)

    def view(e: Expr) -> View:
        if e.kind == "name" and e.name in env and e.name not in rebound:
            return env[e.name]
        texts = [env[n][1] for n in sorted(_names(e)) if n in env]
        return expr_key(e, name_key), "|".join([repr(e), *texts])

    return view


def _names(e: Expr) -> set[str]:
    out: set[str] = set()
    stack = [e]
    while stack:
        cur = stack.pop()
        if cur.kind == "name":
            out.add(cur.name)
        if cur.receiver is not None:
            stack.append(cur.receiver)
        stack.extend(cur.children)
    return out


def _pack(views: list[View]) -> View:
    keys = [v[0] for v in views]
    known: Key | None = None if any(k is None for k in keys) else ("pack", *keys)
    return known, repr([v[1] for v in views])


def _named(name: str, view: View) -> View:
    return (None if view[0] is None else ("kw", name, view[0])), f"{name}={view[1]}"

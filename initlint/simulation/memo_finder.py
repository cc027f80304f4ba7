"""Which module-level functions are memoised factories, and how a call reaches one
(docs/design.md, "Cost classes"): a function decorated with ``functools.cache`` or
``lru_cache``, or one that returns an entry of a module-level dict it fills, directly or
through plain wrappers (``memo.MemoRoute``). A second call with equal arguments builds
nothing."""

from __future__ import annotations

from dataclasses import field

from initlint.facts.model import BodyError, Expr
from initlint.index.project import ProjectIndex
from initlint.index.records import FunctionInfo, Module
from initlint.records import dataclass
from initlint.simulation.memo import Hop, MemoRoute

# Decorators that memoise a function: a second call with equal arguments builds nothing.
MEMOISERS = frozenset(
    "cache lru_cache functools.cache functools.lru_cache cached_function memoize".split()
)
# How many plain wrappers a call may pass through on its way to a memoised factory.
MAX_WRAPPERS = 3


@dataclass
class MemoFinder:
    """The memoised factories of one run, each function decided once (a body that does not
    parse is not memoised: the recursion guard is taken back, the next asker meets it)."""

    index: ProjectIndex
    _memo_fn: dict[str, bool] = field(default_factory=dict)
    _route_memo: dict[str, tuple[MemoRoute, ...]] = field(default_factory=dict)

    def memoised(self, fn: FunctionInfo, depth: int = 0) -> bool | BodyError:
        """A function that returns a cached object for equal arguments: decorated with
        ``functools.cache``/``lru_cache``, or returning an entry of a module-level dict it
        fills (``if key in _CACHE: return _CACHE[key]``), directly or through a local that
        holds the entry (``cached = _CACHE.get(key)``), also when a module-level helper
        looked it up (``cached = _lookup(key); if cached is not None: return cached``)."""
        key = fn.qualname
        found = self._memo_fn.get(key)
        if found is None:
            if any(d in MEMOISERS for d in fn.facts.decorators):
                found = True
            else:
                self._memo_fn[key] = False  # recursion guard
                entry = self._returns_entry(fn, depth)
                if isinstance(entry, BodyError):
                    del self._memo_fn[key]
                    return entry
                found = entry
            self._memo_fn[key] = found
        return found

    def _returns_entry(self, fn: FunctionInfo, depth: int) -> bool | BodyError:
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        local = {p.name for p in body.params}
        effects = body.effects
        local.update(e.name for e in effects if e.kind == "local")
        holding: set[str] = set()  # locals assigned an entry of a module-level dict
        globals_ = fn.module.facts.names
        for eff in effects:
            v = eff.value
            if v is None:
                continue
            if eff.kind == "local":
                entry = _global_entry(v, local, globals_) or self._helper_entry(v, fn, depth)
                if isinstance(entry, BodyError):
                    return entry
                if entry:
                    holding.add(eff.name)
            elif eff.kind == "return" and (
                _global_entry(v, local, globals_) or (v.kind == "name" and v.name in holding)
            ):
                return True
        return False

    def _helper_entry(self, call: Expr, fn: FunctionInfo, depth: int) -> bool | BodyError:
        """``_lookup(key)``: a call of a module-level function that returns a cache entry."""
        if call.kind != "call" or call.receiver is not None or not call.name or depth >= 2:
            return False
        target = self.index.resolve(fn.module, call.name)
        if target is None or target.kind != "function":
            return False
        helper = self.index.function_info(target.name)
        if helper is None or helper.owner is not None:
            return False
        return self.memoised(helper, depth + 1)

    def memo_routes(self, call: Expr | None, module: Module) -> tuple[MemoRoute, ...] | BodyError:
        """How ``call`` reaches a memoised module-level function: directly (``get_rope(...)``)
        or through plain wrappers whose every ``return`` calls one (``get_rope_wrapper(...)``
        returning ``get_rope(...)``, or a local alias that picks among such functions:
        ``f = a if cond else b; return f(...)``). () when it reaches none (or the error of a
        body that deciding it had to read)."""
        if call is None or call.kind != "call" or call.receiver is not None or not call.name:
            return ()
        target = self.index.resolve(module, call.name)
        if target is None or target.kind != "function":
            return ()
        fn = self.index.function_info(target.name)
        if fn is None or fn.owner is not None:
            return ()
        return self._routes(fn, 0)

    def _routes(self, fn: FunctionInfo, depth: int) -> tuple[MemoRoute, ...] | BodyError:
        key = fn.qualname
        found = self._route_memo.get(key)
        if found is not None:
            return found
        self._route_memo[key] = ()  # recursion guard
        memo = self.memoised(fn)
        routes: tuple[MemoRoute, ...] | BodyError = ()
        if isinstance(memo, BodyError):
            routes = memo
        elif memo:
            body = fn.facts.load()
            routes = body if isinstance(body, BodyError) else (MemoRoute(key, fn, body.params),)
        elif depth < MAX_WRAPPERS:
            routes = self._wrapper_routes(fn, depth)
        if isinstance(routes, BodyError):
            del self._route_memo[key]  # taken back: a later pricing meets the error again
            return routes
        self._route_memo[key] = routes
        return routes

    def _wrapper_routes(self, fn: FunctionInfo, depth: int) -> tuple[MemoRoute, ...] | BodyError:
        """The routes of a wrapper: each ``return`` must call a memoised function or another
        such wrapper (an external callable among an alias's choices is an opaque route).
        The shape is checked first, so a function that is no wrapper resolves no name."""
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        aliases: dict[str, list[Expr | None]] = {}
        for e in body.effects:
            if e.kind == "local":
                aliases.setdefault(e.name, []).append(e.value)
        params = {p.name for p in body.params}
        calls: list[tuple[Expr, list[str]]] = []  # each return's call and its callee's names
        for e in body.effects:
            if e.kind != "return":
                continue
            ret = e.value
            if ret is None or ret.kind != "call" or ret.receiver is not None or not ret.name:
                return ()
            if ret.name in params:
                return ()  # a callable passed in
            names = _alias_names(aliases[ret.name]) if ret.name in aliases else [ret.name]
            if not names:
                return ()
            calls.append((ret, names))
        if not calls:
            return ()
        hop_params = body.params
        rebound = frozenset(aliases)
        out: list[MemoRoute] = []
        for ret, names in calls:
            hop = Hop(fn.qualname, hop_params, rebound, ret)
            for name in names:
                target = self.index.resolve(fn.module, name)
                if ret.name in aliases and (
                    target is None or target.kind not in ("function", "external")
                ):
                    continue  # the alias's test (a flag)
                if target is not None and target.kind == "external":
                    out.append(MemoRoute(target.name, None, (), (hop,)))
                    continue
                inner = self.index.function_info(target.name) if target is not None else None
                if inner is None or inner.owner is not None:
                    return ()
                routes = self._routes(inner, depth + 1)
                if isinstance(routes, BodyError) or not routes:
                    return routes
                out += [MemoRoute(r.factory, r.fn, r.params, (hop, *r.hops)) for r in routes]
        if not any(r.fn is not None for r in out):
            return ()
        return tuple(out)


def _alias_names(values: list[Expr | None]) -> list[str]:
    """The names a local alias of a callable may hold: every binding a name, or a choice of
    names (``f = a if cond else b``); [] for anything else (``f = None``, a call)."""
    out: list[str] = []
    for v in values:
        if v is None:
            return []
        if v.kind == "name":
            out.append(v.name)
        elif v.kind == "op" and v.name == "if" and len(v.children) == 3:
            if any(c.kind != "name" for c in v.children[1:]):
                return []
            out += [c.name for c in v.children[1:]]
        else:
            return []
    return out


def _global_entry(v: Expr, local: set[str], globals_: frozenset[str]) -> bool:
    """``CACHE[key]`` or ``CACHE.get(key)`` where ``CACHE`` is neither a parameter nor a
    local (for ``.get``: a name the module binds by assignment, not an import)."""
    recv = v.receiver
    if recv is None or recv.kind != "name" or recv.name in local:
        return False
    if v.kind == "subscript":
        return True
    return v.kind == "call" and v.attr == "get" and recv.name in globals_

"""Values handed to a constructor that keeps only deep copies of them: ``self.x =
Complexified(self.x)``, where ``Complexified.__init__`` stores ``deepcopy(module)`` and
never ``module``. The object ``self.x`` held is copied, then dropped with the store."""

from __future__ import annotations

from initlint.facts.model import BodyError, Expr
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.simulation.arguments import call_args, param_of

# The callee a copying parameter must go through, resolved in its class's module.
_DEEP_COPY = "copy.deepcopy"


def copied_by(index: ProjectIndex, module: Module, value: Expr | None, attr: str, me: str) -> str:
    """The class ``value`` hands ``<me>.<attr>`` to, when every mention of it in ``value``
    is an argument that a constructor keeps only deep copies of (directly, or as the item
    of a comprehension over it: ``[Complexified(x) for x in self.skips]``); "" otherwise."""
    if value is None:
        return ""
    mentions = _mentions(value, me, attr)
    found: list[str] = []
    for call, at in _handed(value, me, attr):
        cls, reads = copying(index, module, call, at)
        if not cls or reads:  # (what the class reads of it may be kept: not followed here)
            return ""
        found.append(cls)
    return found[0] if found and len(found) == mentions else ""


def _mentions(e: Expr, me: str, attr: str) -> int:
    """How often ``e`` reads ``<me>.<attr>``."""
    return sum(x.is_attr_of(me, attr) for x in e.nodes())


def _handed(e: Expr, me: str, attr: str) -> list[tuple[Expr, int]]:
    """The calls in ``e`` that are handed ``<me>.<attr>`` as a whole argument, with where
    it sits among their arguments; and those handed the item of a comprehension over it,
    with where the item's name sits."""
    out: list[tuple[Expr, int]] = []
    stack = [e]
    while stack:
        cur = stack.pop()
        if cur.kind == "call" and cur.receiver is None:
            out.extend((cur, i) for i, c in enumerate(cur.children) if c.is_attr_of(me, attr))
        if cur.kind == "op" and cur.name == "comp" and len(cur.children) == 2:
            walked, item = cur.children
            if walked.is_attr_of(me, attr) and item.kind == "call" and item.receiver is None:
                loop = [
                    i
                    for i, c in enumerate(item.children)
                    if c.kind == "name" and c.name == cur.attr
                ]
                if len(loop) == 1 and name_mentions(item, cur.attr) == 1:
                    out.append((item, loop[0]))
                continue
        if cur.receiver is not None:
            stack.append(cur.receiver)
        stack.extend(cur.children)
    return out


def name_mentions(e: Expr, name: str) -> int:
    """How often ``e`` reads the plain name ``name``."""
    return sum(x.kind == "name" and x.name == name for x in e.nodes())


def copying(
    index: ProjectIndex,
    module: Module,
    call: Expr,
    at: int,
    mro: tuple[str, ...] = (),
    me: str = "",
) -> tuple[str, frozenset[str]]:
    """The name of what ``call`` calls when the parameter its argument number ``at`` binds
    to is one it keeps only deep copies of: a class whose ``__init__`` does so, or a
    function of the project that does (``_get_clones(layer, n)``, ``n`` copies returned),
    or a method of the object (``me``, of the class ``mro``) that does (``self._clones(layer,
    n)``); and the attributes it reads of that object besides (``layer.size``: parts it may
    keep). ("", frozenset()) otherwise."""
    none: tuple[str, frozenset[str]] = ("", frozenset())
    if any(k == "" or k.startswith("*") for k in call.keywords):
        return none
    recv = call.receiver
    if me and mro and recv is not None and recv.kind == "name" and recv.name == me:
        fn = index.lookup_method(mro, call.attr) if call.attr else None
        skip, name = 1, call.attr
    elif call.name:
        target = index.resolve(module, call.name)
        if target is None or target.kind not in ("class", "function"):
            return none
        if target.kind == "class":
            fn = index.constructor(target.name)
        else:
            fn = index.function_info(target.name)
        skip, name = (1 if target.kind == "class" else 0), target.name.rsplit(".", 1)[-1]
    else:
        return none
    body = fn.facts.load() if fn is not None else None
    if fn is None or body is None or isinstance(body, BodyError):
        return none
    args = call_args(call)
    params = body.params[skip:]
    param = param_of(params, args, at) if args is not None else None
    if param is None or not param.copied_by:
        return none
    if not _deep_copier(index, fn.module, param.copied_by):
        return none
    return name, frozenset(param.copy_reads)


def _deep_copier(index: ProjectIndex, module: Module, name: str) -> bool:
    """Whether calling ``name`` (in ``module``) with an object keeps only deep copies of it:
    ``copy.deepcopy``, or a function whose first parameter only that copies
    (``_get_clones(module, n)``, making ``n`` copies)."""
    copier = index.resolve(module, name)
    if copier is None:
        return False
    if copier.name == _DEEP_COPY:
        return True
    fn = index.function_info(copier.name) if copier.kind == "function" else None
    body = fn.facts.load() if fn is not None else None
    if fn is None or body is None or isinstance(body, BodyError) or not body.params:
        return False
    first = body.params[0]
    if not first.copied_by or first.copy_reads:  # (a part it reads may go into its result)
        return False
    inner = index.resolve(fn.module, first.copied_by)
    return inner is not None and inner.name == _DEEP_COPY

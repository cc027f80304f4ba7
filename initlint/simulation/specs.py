"""Builders and the specs they build from (docs/design.md, "Cost classes"; docs/rules.md IL003).

A *builder* is a function that returns a call of the class it is given: of one of its
parameters (``return spec(*args, **kwargs)``), or of a local taken from that parameter or
from a field of it (``module = spec.module`` then ``return module(*args, **kwargs)``,
megatron's ``build_module``). Found by shape, never by name.

A *spec* is the value a build's class comes from when that value is an unknown of the
constructed class's arguments: ``submodules.linear_proj`` given to a builder, called
directly (``submodules.core_attention(...)``), or its ``module`` field called
(``spec.module(...)``). Two builds are of the *same spec* when their spec keys meet: the
same symbolic value (the same argument of the constructed class, read through the same
fields), not changed in place between them (``spec_rewritten``). Then both built the same
class, whatever it is, and the first build was done again.

What a spec costs comes from what the project gives the field
(``ProjectIndex.field_classes``): the heaviest of those classes, possibly (a caller may give
another). A build whose class is unknown is priced only when a build of the same spec
follows it: a field's classes say what a spec *may* hold, and a spec replaced by another
(a different field, a rewritten one) may have held the no-op the project also gives it.
"""

from __future__ import annotations

from collections.abc import Mapping

from initlint.facts.model import Body, Expr
from initlint.records import dataclass

MODULE_FIELD = "module"  # not special: a local taken from ``param.<field>`` records it


@dataclass(frozen=True)
class BuilderShape:
    """How a builder's body builds: the parameter the class comes from (``param``), the
    local holding it (``local``: "" when the return calls the parameter itself), the
    fields of the parameter it may be read from ("" for the parameter itself), the return
    call (``call``), and whether every return and every binding of the local is that."""

    param: str
    local: str
    fields: tuple[str, ...]
    call: Expr
    sure: bool


def builder_shape(body: Body) -> BuilderShape | None:
    """The shape of ``body`` when it is a builder's (see the module doc), else None."""
    returns = [e.value for e in body.effects if e.kind == "return"]
    called = [
        v for v in returns if v is not None and v.kind == "call" and v.receiver is None and v.name
    ]
    if not called:
        return None  # most functions: one pass over the effects, nothing built
    params = {p.name for p in body.params if p.kind not in ("vararg", "kwarg")}
    bindings: dict[str, list[Expr | None]] = {}
    for e in body.effects:
        if e.kind == "local":
            bindings.setdefault(e.name, []).append(e.value)
    for v in called:
        calls = sum(1 for r in called if r.name == v.name)
        if v.name in params and v.name not in bindings:
            return BuilderShape(v.name, "", ("",), v, calls == len(returns))
        derived = _derived(bindings.get(v.name, ()), params)
        if derived is not None:
            param, fields, every = derived
            return BuilderShape(param, v.name, fields, v, every and calls == len(returns))
    return None


def _derived(
    values: list[Expr | None] | tuple[()], params: set[str]
) -> tuple[str, tuple[str, ...], bool] | None:
    """A local's bindings taken from one parameter: (it, the fields read, whether every
    binding is one), or None when none is."""
    param = ""
    fields: list[str] = []
    every = True
    for v in values:
        taken = _taken_from(v, params)
        if taken is None or (param and taken[0] != param):
            every = False
            continue
        param = taken[0]
        if taken[1] not in fields:
            fields.append(taken[1])
    return (param, tuple(fields), every) if param else None


def _taken_from(v: Expr | None, params: set[str]) -> tuple[str, str] | None:
    if v is None:
        return None
    if v.kind == "name" and v.name in params:
        return v.name, ""
    if v.kind == "attr" and v.name.count(".") == 1:
        head, _, rest = v.name.partition(".")
        if head in params:
            return head, rest
    return None


def keys_of(sym: str, fields: tuple[str, ...] = ("",)) -> frozenset[str]:
    """The spec keys of a build from the symbolic value ``sym`` read through ``fields``."""
    if not sym:
        return frozenset()
    return frozenset(f"{sym}.{f}" if f else sym for f in fields)


def direct_keys(sym: str) -> frozenset[str]:
    """The keys of calling the symbolic value ``sym`` itself: ``spec.module(...)`` builds
    the class the spec designates, as a builder given ``spec`` does."""
    if not sym:
        return frozenset()
    return frozenset((sym,))


def spec_rewritten(keys: frozenset[str], writes: Mapping[str, int], since: int) -> bool:
    """Whether the object a key reads, or a part of it, was changed in place after event
    ``since`` (``writes``: symbolic value -> events so far at its latest change)."""
    for key in keys:
        for written, at in writes.items():
            if at > since and (
                key == written or key.startswith(written + ".") or written.startswith(key + ".")
            ):
                return True
    return False


def field_of(key: str) -> tuple[str, str] | None:
    """``submodules.linear_proj`` -> (``submodules``, ``linear_proj``): the argument of the
    constructed class and the field of it a spec key reads; None for another shape."""
    root, dot, rest = key.partition(".")
    if not dot or "." in rest:
        return None
    return root, rest

"""The items of a torch container a project function builds and returns, as its caller's
call builds them: ``_get_clones(Layer, n, d_model=d)``, whose one ``return`` is
``nn.ModuleList([module_class(**kwargs) for _ in range(N)])``, holds ``Layer`` items (any
number), named as the caller names the class, so the caller's module resolves them."""

from __future__ import annotations

from dataclasses import replace

from initlint.facts.model import Body, BodyError, Expr, Param
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.simulation.containers import container_items, torch_container


def factory_items(
    index: ProjectIndex, module: Module, call: Expr | None, own: frozenset[str] = frozenset()
) -> list[tuple[str, Expr]]:
    """The items (each with the name the container holds it under) of the container the
    project function ``call`` runs (a plain function, read in ``module``) returns on every
    path: each item's call of a class the function was handed (a parameter it never
    binds again) renamed to the caller's argument (a name or dotted path, none of ``own``,
    the names the caller's function binds itself), and a call of a class by name kept
    where the function is in the caller's module. [] for anything else: a method, a return
    of anything but one container built in the return, an item of a class given some
    other way, an argument not passed by position or keyword."""
    if call is None or call.kind != "call" or not call.name:
        return []  # (``util.get_clones(...)``: a module's function, resolved as dotted)
    target = index.resolve(module, call.name)
    fn = index.function_info(target.name) if target and target.kind == "function" else None
    body = fn.facts.load() if fn is not None and fn.owner is None else None
    if fn is None or body is None or isinstance(body, BodyError):
        return []
    returned = _one_return(body)
    made = index.resolve(fn.module, returned.name) if returned is not None else None
    if returned is None or made is None or not torch_container(made.name):
        return []
    params = {p.name for p in body.params}
    rebound = {e.name for e in body.effects if e.kind == "local"}
    # (``[module_class(d) for module_class in kinds]``: the loop's own name)
    rebound |= {n.attr for n in returned.nodes() if n.kind == "op" and n.name == "comp"}
    given = _arguments(body.params, call)
    out: list[tuple[str, Expr]] = []
    for key, item in container_items(returned):
        head = item.name.partition(".")[0]
        if head in rebound:
            return []
        if head in params:
            named = _dotted(given.get(head)) if item.name == head else ""
            if not named or named.partition(".")[0] in own:
                return []  # (a class the caller's own name holds: not the module's)
            out.append((key, replace(item, name=named)))
        elif fn.module is module and head not in own:
            out.append((key, item))
        else:
            return []  # (a name of the function's own module: another module's)
    return out


def _one_return(body: Body) -> Expr | None:
    """The call the function's one ``return``, on every path, gives: written there, or
    bound once to a local on every path that nothing else mentions (``layers =
    nn.ModuleList(...)``, ``return layers``); None otherwise."""
    returns = [e for e in body.effects if e.kind == "return"]
    if len(returns) != 1 or returns[0].guard:
        return None
    value = returns[0].value
    if value is not None and value.kind == "name":
        local = value.name
        bound = [e for e in body.effects if e.kind == "local" and e.name == local]
        if len(bound) != 1 or bound[0].guard:
            return None
        ends = returns[0].stmt_span  # (the ``return`` statement's own use of it)
        others = [e for e in body.effects if e is not bound[0] and e.stmt_span != ends]
        if any(
            e.name == local or (e.value is not None and e.value.mentions(local)) for e in others
        ):
            return None  # (``layers.append(...)``: the container changed before it is returned)
        value = bound[0].value
    return value if value is not None and value.kind == "call" and value.name else None


def _arguments(params: tuple[Param, ...], call: Expr) -> dict[str, Expr]:
    """The parameters ``call`` passes a value by position or by keyword, with the value."""
    positional = call.positional()
    out: dict[str, Expr] = {}
    ordered = [p for p in params if p.kind in ("posonly", "pos")]
    if "*" in call.keywords[:1]:
        return out  # (a starred argument: which parameter takes what is not known)
    for p, value in zip(ordered, positional, strict=False):
        out[p.name] = value
    named = call.children[len(positional) :]
    for keyword, value in zip(call.keywords, named, strict=False):
        if keyword:
            out.setdefault(keyword, value)
    return out


def _dotted(value: Expr | None) -> str:
    """``Layer`` or ``layers.Layer`` as written (the dotted path a name or attribute
    carries); "" for any other value."""
    return value.name if value is not None and value.kind in ("name", "attr") else ""

"""The fills a project function makes on the object it builds and returns (``def Linear(i,
o): m = nn.Linear(i, o); nn.init.xavier_uniform_(m.weight); return m``). The object's
construction goes on in that function, so a later fill of those tensors throws these away,
as it would a fill the object's own ``__init__`` made."""

from __future__ import annotations

from initlint.facts.model import BodyError, Effect
from initlint.index.project import ProjectIndex
from initlint.index.records import FunctionInfo
from initlint.simulation.records import Event, built_by
from initlint.simulation.values import TRUE


def returned_fills(index: ProjectIndex, store: Event) -> dict[str, Event]:
    """The tensors (named from the object: ``weight``) of the object ``store`` holds that
    the project function which built it filled whole, last, on every path, and did not read
    after; each with an ``init`` event standing for that fill. Empty where the value is no
    call of such a function (a library's function fills with its own defaults)."""
    value = built_by(store)
    if value is None or value.kind != "call" or not value.name or store.constructs:
        return {}
    target = index.resolve(store.fn.module, value.name)
    if target is None or target.kind != "function":
        return {}
    fn = index.function_info(target.name)
    body = fn.facts.load() if fn is not None else None
    if fn is None or fn.module.is_dependency or body is None or isinstance(body, BodyError):
        return {}
    return {
        part: _fill_event(store, fn, at, eff)
        for part, (at, eff) in _last_fills(list(body.effects)).items()
    }


def _last_fills(effects: list[Effect]) -> dict[str, tuple[int, Effect]]:
    """The parts of the local a function returns (its one ``return``, on every path) that
    its code fills whole last, on every path, with nothing using the local after but other
    fills and the return: each with that fill's number among the effects and the fill."""
    returns = [i for i, e in enumerate(effects) if e.kind == "return"]
    if len(returns) != 1 or effects[returns[0]].guard:
        return {}
    ret = effects[returns[0]]
    if ret.value is None or ret.value.kind != "name":
        return {}
    local = ret.value.name
    filling = {e.stmt for e in effects if e.kind == "init" and e.name == local}
    fills: dict[str, tuple[int, Effect]] = {}
    for at, e in enumerate(effects[: returns[0]]):
        if e.kind == "objattr" and e.name.partition(".")[0] == local:
            # (``m.weight = w``, ``m.weight.data = t``, ``del m.weight``: the fill lost there)
            part = e.name.partition(".")[2].removesuffix(".data")
            for name in [n for n in fills if n == part or n.startswith(part + ".")]:
                del fills[name]
        if e.name != local:
            continue
        if e.kind == "local":
            fills = {}  # (bound anew)
        elif e.kind == "init" and e.target:
            if e.guard:  # (filled again on some paths only: which fill stands is not known)
                fills.pop(e.target, None)
            else:
                fills[e.target] = (at, e)
        elif e.kind == "local_use" and e.stmt not in filling and e.stmt != ret.stmt:
            fills = {}  # (any other use may read what the fills made)
    return fills


def _fill_event(store: Event, fn: FunctionInfo, at: int, eff: Effect) -> Event:
    """An ``init`` event for the function's fill ``eff`` of the part of the object
    ``store`` holds, placed where the store is (the fill runs with it)."""
    return Event(
        store.index,
        "init",
        eff.target,
        fn,
        eff,
        at,
        store.frame,
        TRUE,
        ancestor=False,
        parent=None,
    )

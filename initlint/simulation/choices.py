"""Which classes or functions a value holds, where it is one of several written in the code
(docs/design.md, "Cost classes"): ``conv = nn.ConvTranspose2d if transpose else nn.Conv2d``,
``types = (nn.Conv1d, nn.Conv2d); layer = types[dim - 1]``, or the result of a function every
``return`` of which gives one (``conv = get_conv_layer(dim)``). Calling such a value builds
one of them, so it costs what they cost where they agree (``CostModel``); a value whose
choices are not all known stays unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field

from initlint.facts.model import BodyError, Effect, Expr
from initlint.index.project import ProjectIndex
from initlint.index.records import FunctionInfo, Module
from initlint.records import dataclass
from initlint.simulation.values import Val

# A choice: the module a name was written in, and the dotted name (``Val.ref``).
Choice = tuple[str, str]
# How many function returns deep a value is followed (``get_layer`` returning ``_pick()``).
MAX_DEPTH = 3


@dataclass
class ChoiceFinder:
    """The classes a value may hold, each function's returns read once per run."""

    index: ProjectIndex
    # (by function and depth: deeper, fewer calls are followed, and what one asker found
    # must not depend on which asked first)
    _returns: dict[tuple[str, int], tuple[Choice, ...]] = field(default_factory=dict)
    _constructed: dict[str, tuple[Choice, ...]] = field(default_factory=dict)

    def held(
        self, module: Module, e: Expr | None, held: Mapping[str, Val], depth: int = 0
    ) -> Val | None:
        """What a local bound to ``e`` holds when that is a class or function written in
        the code, one of several, or a tuple of them to pick from (a pack of ``ref``
        items); None for anything else. ``held`` holds what the frame's names hold."""
        if e is None:
            return None
        # (a tuple of them, or a table picked from by its keys, ``{"resnet50": resnet50}``)
        members = e.children if e.kind == "op" and e.name == "tuple" else _keyed_values(e)
        if members:
            items = [self.choices(module, c, held, depth) for c in members]
            if all(items):
                return Val("args", items=tuple(Val("unknown", choices=i) for i in items))
            return None
        found = self.choices(module, e, held, depth)
        if not found:
            return None
        if len(found) == 1:
            return Val("unknown", ref=found[0])
        return Val("unknown", choices=found)

    def choices(
        self, module: Module, e: Expr, held: Mapping[str, Val], depth: int = 0
    ) -> tuple[Choice, ...]:
        """The classes or functions calling ``e`` may run: () when any of them is not
        known (a value computed at run time, a function returning something else)."""
        kind = e.kind
        if kind in ("name", "attr") and e.name:
            head = e.name.partition(".")[0]
            if head in held:
                val = held[head]
                return named(val) if head == e.name else ()
            if head == "self":
                return ()
            target = self.index.resolve_value(module.name, e.name)
            if target is None or target.kind not in ("class", "function", "external"):
                return ()
            return ((module.name, e.name),)
        if kind == "op" and e.name == "if" and len(e.children) == 3:
            return _all(self.choices(module, c, held, depth) for c in e.children[1:])
        if kind == "subscript" and e.receiver is not None:
            index = e.value if isinstance(e.value, int) and not e.name else None
            return self._picked(module, e.receiver, held, depth, index)
        if kind == "call" and e.name and e.receiver is None and depth < MAX_DEPTH:
            target = self.index.resolve(module, e.name)
            if target is None or target.kind != "function":
                return ()
            fn = self.index.function_info(target.name)
            return () if fn is None else self.returned(fn, depth + 1)
        return ()

    def _picked(
        self, module: Module, table: Expr, held: Mapping[str, Val], depth: int, index: int | None
    ) -> tuple[Choice, ...]:
        """What an item of ``table`` may be: a tuple or list of classes, written there, held
        by a local, or a table of them written out at module level; the one ``index`` names
        of a tuple or list, when the index is written out."""
        if table.kind == "op" and table.name == "tuple" and table.children:
            if _within(index, table.children):
                assert index is not None
                return self.choices(module, table.children[index], held, depth)
            return _all(self.choices(module, c, held, depth) for c in table.children)
        values = _dict_values(table)
        if values:  # (``{"resnet18": resnet18, "vit": vit_tiny}[name]``)
            return _all(self.choices(module, c, held, depth) for c in values)
        if table.kind == "name" and table.name in held:
            pack = held[table.name]
            if pack.kind == "args" and _within(index, pack.items):
                assert index is not None
                return named(pack.items[index])
            if pack.kind == "args" and pack.items:
                return _all(named(i) for i in pack.items)
            return ()
        head = table.name.partition(".")[0]
        if table.kind in ("name", "attr") and head not in held and head not in ("", "self"):
            # (``MODELS[arch]``, the table written out at module level, here or imported)
            return self.index.table_items(module.name, table.name)
        return ()

    def returned(self, fn: FunctionInfo, depth: int = 0) -> tuple[Choice, ...]:
        """What every ``return`` of ``fn`` gives, when each gives classes written in the
        code (the locals they name taken at any of their bindings); () otherwise."""
        key = (fn.qualname, depth)
        found = self._returns.get(key)
        if found is not None:
            return found
        self._returns[key] = ()  # recursion guard
        body = fn.facts.load()
        if isinstance(body, BodyError):
            del self._returns[key]
            return ()
        # what each name may hold: the arguments nothing known, each local any of its
        # bindings so far (``merge``), kept up to date as the bindings are read
        here: dict[str, Val] = {p.name: Val("unknown") for p in body.params}
        bindings: dict[str, list[Val | None]] = {}
        out: list[tuple[Choice, ...]] = []
        for eff in body.effects:
            if eff.kind == "local":
                got = bindings.setdefault(eff.name, [])
                got.append(self.held(fn.module, eff.value, here, depth))
                merged = merge(got)
                here[eff.name] = merged if merged is not None else Val("unknown")
            elif eff.kind == "return":
                if eff.value is None:
                    out.append(())
                    break
                out.append(self.choices(fn.module, eff.value, here, depth))
        result = _all(out) if out else ()
        self._returns[key] = result
        return result

    def constructed(self, fn: FunctionInfo) -> tuple[Choice, ...]:
        """What the factory ``fn`` constructs: the classes or builders the call each
        ``return`` gives calls, directly or through a local bound once to it (``net =
        models[name](**kwargs)``, then ``return net``); () when a return gives anything
        else, or what a call runs is not known."""
        found = self._constructed.get(fn.qualname)
        if found is None:
            found = self._constructed[fn.qualname] = self._constructed_by(fn)
        return found

    def _constructed_by(self, fn: FunctionInfo) -> tuple[Choice, ...]:
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return ()
        here: dict[str, Val] = {p.name: Val("unknown") for p in body.params}
        calls: dict[str, Expr | None] = {}
        out: list[tuple[Choice, ...]] = []
        for eff in body.effects:
            if eff.kind == "local":
                held = self.held(fn.module, eff.value, here)
                here[eff.name] = held if held is not None else Val("unknown")
                call = eff.value if eff.value is not None and eff.value.kind == "call" else None
                calls[eff.name] = call if eff.name not in calls else None  # (bound once)
            elif eff.kind == "return":
                value = eff.value
                if value is not None and value.kind == "name":
                    if not _only_returned(body.effects, value.name, eff):
                        return ()  # (changed or handed on before: not the object built)
                    value = calls.get(value.name)
                if value is None or value.kind != "call":
                    return ()
                callee = Expr("name", name=value.name) if value.name else value.callee
                out.append(self.choices(fn.module, callee, here) if callee is not None else ())
        return _all(out) if out else ()


def _only_returned(effects: tuple[Effect, ...], name: str, returned: Effect) -> bool:
    """Whether the function does nothing with the local ``name`` but return it: no part of
    it assigned, no other mention."""
    for e in effects:
        if e.kind == "objattr" and e.name.partition(".")[0] == name:
            return False
        if e.kind == "local_use" and e.name == name and e.stmt_span != returned.stmt_span:
            return False
    return True


def _within(index: int | None, items: tuple[object, ...]) -> bool:
    """Whether ``index`` names one of ``items`` (a tuple written out, or held)."""
    return index is not None and -len(items) <= index < len(items)


def _dict_values(table: Expr) -> tuple[Expr, ...]:
    """The values of a dict written out with constant keys (its expression holds the keys,
    then the values); () for anything else."""
    kids = table.children
    if table.kind != "op" or table.name or not kids or len(kids) % 2:
        return ()
    keys, values = kids[: len(kids) // 2], kids[len(kids) // 2 :]
    return values if all(k.kind == "const" for k in keys) else ()


def _keyed_values(table: Expr) -> tuple[Expr, ...]:
    """The values of a dict written out with string keys; () for anything else."""
    values = _dict_values(table)
    keys = table.children[: len(table.children) // 2]
    return values if all(isinstance(k.value, str) for k in keys) else ()


def named(v: Val) -> tuple[Choice, ...]:
    """The classes or functions ``v`` is given by: its one ``ref``, or its ``choices``."""
    return (v.ref,) if v.ref is not None else v.choices


def _all(parts: Iterable[tuple[Choice, ...]]) -> tuple[Choice, ...]:
    """The union of the choices of each part, () when any part has none."""
    out: list[Choice] = []
    for part in parts:
        if not part:
            return ()
        out.extend(c for c in part if c not in out)
    return tuple(out)


def merge(vals: list[Val | None] | None) -> Val | None:
    """What a local bound several times may hold: any of its bindings' classes (None
    when one of them holds something else, or nothing known)."""
    if not vals or any(v is None for v in vals):
        return None
    if len(vals) == 1:
        return vals[0]
    picks: list[Choice] = []
    for v in vals:
        assert v is not None
        got = named(v)
        if not got:
            return None
        picks.extend(c for c in got if c not in picks)
    return Val("unknown", choices=tuple(picks))

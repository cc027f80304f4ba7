"""Which tensors of the object an initialisation pass fills for sure (``facts/passes.py``):
each tensor the object holds when the pass runs, named as an ``init`` event names it (its
own ``level_embed``, or ``tgt_embed.weight`` of a module it holds), is tried against the
pass's tests; it is covered only when every test is decided and holds. A tensor of unknown
kind or dimensions, or a module of unknown class, is not covered: the pass may skip it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from initlint.facts.model import Effect, Expr, ItemTest
from initlint.facts.passes import TENSOR_WALKS, is_visit
from initlint.records import dataclass
from initlint.simulation.levels import HEAVY, LIGHT, UNKNOWN
from initlint.simulation.records import Event, never_both
from initlint.simulation.torch_knowledge import (
    LEGACY_TENSORS,
    SIZED_FACTORIES,
    TENSOR_LISTS,
    TORCH_BUFFERS,
    light_by_kind,
    positional_values,
    tensor_list,
    torch_dims,
    torch_params,
)

# A strict ``load_state_dict``: not a walk, but it fills every parameter as one does.
LOAD = "load_state_dict"
# Walks that yield only the modules the object holds itself.
_CHILDREN = frozenset({"children", "named_children"})
# The part name of the items of a tensor list (``Tensor.part``): any number of them.
ITEMS = "*"
# Walks that yield the module walked first (``self.modules()`` yields ``self``).
_WITH_ITSELF = frozenset({"modules", "named_modules", "apply"})


@dataclass(frozen=True)
class Tensor:
    """A tensor the object holds: ``name`` as an ``init`` event names it, ``holder`` the
    attribute holding the module it belongs to ("" for the object's own), ``part`` its name
    there; ``kind`` parameter | buffer | "" (not known); ``dims`` None when not known;
    ``classes`` the MRO of the module it belongs to (() when not known); ``cost`` what
    filling it costs; ``store`` the event that made it (or its module). ``tie``: the
    ``nested`` store that made ``holder``'s ``part`` this tensor, another module's
    (``self.head.weight = self.embed.weight``; -1 for a tensor of its own): a walk over
    the modules reaches it through both."""

    name: str
    holder: str
    part: str
    kind: str
    dims: int | None
    classes: tuple[str, ...]
    cost: int
    store: int
    tie: int = -1


def drawn_tensor(name: str, value: Expr) -> str:
    """The tensor a store of ``value`` on ``self.<name>`` makes, as a pass names it: the
    attribute, or the items of a tensor list (``weights.*``)."""
    return f"{name}.{ITEMS}" if tensor_list(value) else name


def held_tensors(
    stores: Iterable[Event],
    own_mro: tuple[str, ...],
    built_class: Callable[[Event], tuple[str, ...]],
    part: str,
) -> list[Tensor]:
    """The tensors the stores (``buffer`` and ``assign`` events, in order) made: the
    object's own registrations, and the parameters of the modules stored, less the parts a
    ``nested`` store replaced since (``self.head.weight = self.embed.weight``). A module of a
    class torch's tables do not describe holds only ``part`` (the one a module walk fills),
    of kind and dimensions not known."""
    out: list[Tensor] = []
    ties: dict[int, Event] = {}  # (the ``nested`` stores that tied a module's part)
    for e in stores:
        if e.shadow:
            continue
        if e.kind == "nested":  # (a part replaced or tied: what it holds now is not known)
            holder, _, part = e.name.rpartition(".")
            replaced = [t for t in out if t.name == e.name and t.tie < 0]
            out = [
                t
                for t in out
                if t.name != e.name
                and (t.holder, t.part) != (holder, part)
                and (t.holder, part) != (holder, "__init__")
            ]
            tied = _tied(e, out, replaced)
            if tied:
                ties[e.index] = e
            out += tied
            continue
        if e.kind == "buffer":
            kind = e.effect.detail if e.effect.detail in ("parameter", "buffer") else ""
            dims = _registered_dims(e)
            out.append(Tensor(e.name, "", e.name, kind, dims, own_mro, e.cost, e.index))
            continue
        if e.kind != "assign":
            continue
        # (a module stored anew after a tie holds its own tensors, not the one tied into
        # the old module; a store on a branch the tie is not on leaves it)
        out = [
            t
            for t in out
            if t.tie < 0 or t.holder.split(".")[0] != e.name or never_both(ties[t.tie], e)
        ]
        classes = built_class(e)
        if not classes:
            continue
        if classes[0].rpartition(".")[2] in TENSOR_LISTS:
            # (``nn.ParameterList([...])``: its items, any number, each a parameter)
            item = f"{e.name}.{ITEMS}"
            out.append(Tensor(item, e.name, ITEMS, "parameter", None, classes, e.cost, e.index))
            continue
        value = e.effect.value
        params = module_params(classes, e.cost, value if value and value.kind == "call" else None)
        if not params and part:
            name = f"{e.name}.{part}"
            out.append(Tensor(name, e.name, part, "", None, classes, UNKNOWN, e.index))
        out += [replace(t, name=f"{e.name}.{t.name}", holder=e.name, store=e.index) for t in params]
    return out


def _tied(e: Event, held: list[Tensor], replaced: list[Tensor]) -> list[Tensor]:
    """The tensor of another module the ``nested`` store ``e`` made a module's part, sure
    (``self.head.weight = self.embed.weight``, the tensor itself, not a copy): that tensor,
    reached as the part of the module it was tied into, as that module's own was."""
    value = e.effect.value
    if value is None or value.kind != "attr" or not value.name.startswith("self."):
        return []
    shared = next((t for t in held if t.name == value.name[5:] and t.tie < 0), None)
    own = next(iter(replaced), None)
    if shared is None or own is None or own.store == shared.store:
        return []
    return [replace(shared, holder=own.holder, part=own.part, classes=own.classes, tie=e.index)]


def module_params(
    classes: tuple[str, ...] | None, cost: int, call: Expr | None = None
) -> list[Tensor]:
    """The tensors torch's tables say a module of MRO ``classes`` holds, named from it
    (``weight``), priced from ``cost``, what building the module costs: a 1-D one light, a
    larger one as the module when that is heavy, or light when the module is light for
    what its sizes hold (``call``, the one that built it: not for its kind, ``light_by_kind``),
    else unknown. [] for a class the tables do not describe."""
    if not classes:
        return []
    # (a dtype given: its numbers' room is not counted, float32's is)
    by_size = (
        cost == LIGHT
        and call is not None
        and "dtype" not in call.keywords
        and not light_by_kind(classes[0].rpartition(".")[2], call)
    )
    out: list[Tensor] = []
    for param in torch_params(classes[0]):
        dims = torch_dims(classes[0], param)
        kind = "buffer" if param in TORCH_BUFFERS else "parameter"
        price = LIGHT if dims == 1 or by_size else cost if cost >= HEAVY else UNKNOWN
        out.append(Tensor(param, "", param, kind, dims, classes, price, -1))
    return out


def _registered_dims(e: Event) -> int | None:
    """The number of dimensions of a tensor registered on the object: external ones from
    torch's tables, else from the factory that made it (``nn.Parameter(torch.zeros(a, b))``:
    2)."""
    if e.external:
        return torch_dims(e.fn.qualname.rpartition(".")[0], e.name)
    value = e.effect.value
    if value is not None and value.kind == "call" and value.attr == "Parameter":
        given = positional_values(value)
        value = given[0] if len(given) == 1 else None
    return factory_dims(value)


def factory_dims(call: Expr | None) -> int | None:
    """``torch.zeros(a, b)``, ``torch.empty((a, b))``, ``torch.Tensor(a, b)``: 2; None for
    any other value, or sizes given otherwise (starred, keywords, a shape held elsewhere)."""
    if call is None or call.kind != "call" or any(k.startswith("*") for k in call.keywords):
        return None
    last = call.name.rpartition(".")[2] or call.attr
    if last not in SIZED_FACTORIES | LEGACY_TENSORS:
        return None
    sizes = positional_values(call)
    sizes = sizes[:1] if last == "full" else sizes  # (then its fill value)
    if len(sizes) == 1 and sizes[0].kind == "op" and sizes[0].name == "tuple":
        if last in LEGACY_TENSORS:
            return None  # (``torch.Tensor((3, 4))``: data, not a shape)
        sizes = sizes[0].children
    if not sizes or any(s.kind == "op" and s.name == "*" for s in sizes):
        return None
    if any(s.kind == "const" and type(s.value) is not int for s in sizes):
        return None  # (``torch.Tensor([1.0, 2.0])``: data, not sizes)
    if len(sizes) == 1 and sizes[0].kind != "const":
        return None  # (one name: a size, or a shape held elsewhere)
    return len(sizes)


def covered(
    fill: Effect,
    walk: str,
    tensors: Sequence[Tensor],
    is_a: Callable[[tuple[str, ...], str], bool | None],
) -> frozenset[tuple[int, str, int]]:
    """The tensors the pass's ``fill`` fills for sure, as (store, name, cost): ``walk`` is
    the torch method walked (``apply`` for a visitor), ``fill.detail`` the attribute walked
    ("" for the object), ``fill.target`` the part of each item filled; ``is_a(classes,
    name)`` whether a module of MRO ``classes`` is an instance of the class named ``name``
    (None: not known)."""
    scope = "" if is_visit(fill.detail) else fill.detail
    out: set[tuple[int, str, int]] = set()
    for t in tensors:
        if _within(t.holder, scope) is None:
            continue  # (not under the module walked)
        if walk == LOAD:  # (every parameter: a strict load fills each, or raises)
            hit = t.kind == "parameter"
        elif walk in TENSOR_WALKS:
            hit = _tensor_item(t, walk, fill, scope)
        else:
            hit = _module_item(t, walk, fill, scope, is_a)
        if hit:
            out.add((t.store, t.name, t.cost))
    return frozenset(out)


def _within(name: str, scope: str) -> str | None:
    """``name`` (from the object) as a walk over the module ``scope`` names it: "" for that
    module itself, None when it is not under it; as it is for a walk over the object."""
    if not scope:
        return name
    if name == scope:
        return ""
    return name[len(scope) + 1 :] if name.startswith(scope + ".") else None


def _tensor_item(t: Tensor, walk: str, fill: Effect, scope: str) -> bool:
    """``for n, p in self.named_parameters(): if p.dim() > 1: init(p)``."""
    if fill.target or t.kind != ("buffer" if "buffers" in walk else "parameter"):
        return False
    name = _within(t.name, scope) or ""
    return all(_holds(test, t, name, None) for test in fill.tests)


def _module_item(
    t: Tensor,
    walk: str,
    fill: Effect,
    scope: str,
    is_a: Callable[[tuple[str, ...], str], bool | None],
) -> bool:
    """``for m in self.modules(): if isinstance(m, nn.Linear): init(m.weight)``: the module
    the tensor belongs to is walked (the object itself only by walks that yield it, a held
    module's only by one over the object or over that module), and filled at its part."""
    if t.part == ITEMS:  # (a tensor list's items: what iterating it yields, filled whole)
        return not fill.target and t.holder == scope and walk in _CHILDREN and not fill.tests
    inside, _, part = fill.target.rpartition(".")
    if part != t.part or not t.classes:
        return False
    module_name = _within(t.holder, scope) or ""
    if scope and walk in _CHILDREN and not _numbered(module_name.split(".")[0]):
        return False  # (a container's items by name: iterated itself, a ``ModuleDict`` yields keys)
    if inside:
        # (``block.mlp.proj.weight``: the item is the module that holds ``mlp.proj``; its
        # tests are of the item, not of the module holding the tensor, but for those that
        # name that module, ``isinstance(block.mlp.proj, nn.Linear)``)
        tests = [t for t in fill.tests if not _holds_inside(t, inside)]
        if any(test.part != inside for test in tests):
            return False
        if not (module_name == inside or module_name.endswith("." + inside)):
            return False
        if not all(_holds(test, t, module_name, is_a) for test in tests):
            return False
        module_name = module_name[: -len(inside)].removesuffix(".")
        if not module_name and walk not in _WITH_ITSELF:
            return False
        return not (walk in _CHILDREN and "." in module_name)
    if t.holder == scope and walk not in _WITH_ITSELF:
        return False  # (``children()`` yields neither the object nor the module walked)
    if walk in _CHILDREN and "." in module_name:
        return False  # (nor what the children hold: ``blocks.0.attn`` of ``self.blocks``)
    return all(_holds(test, t, module_name, is_a) for test in fill.tests)


def _numbered(key: str) -> bool:
    """Whether a container's item key is a number or any item (``*``), as a list's are."""
    return key.isdigit() or key == ITEMS


def _holds_inside(test: ItemTest, inside: str) -> bool:
    """Whether ``test``, of the item itself, holds for every item that has the module
    ``inside`` a fill reaches (``hasattr(block, "mlp")`` or ``block.mlp is not None`` before
    ``init(block.mlp.fc.weight)``): the item holds it, so it has it and it is no None."""
    head = inside.split(".")[0]
    return (
        test.part == ""
        and test.kind in ("present", "hasattr")
        and test.names == (head,)
        and test.truth
    )


def _holds(
    test: ItemTest,
    t: Tensor,
    name: str,
    is_a: Callable[[tuple[str, ...], str], bool | None] | None,
) -> bool:
    """Whether ``test`` is decided for the tensor (or its module) and comes out as the
    pass needs it."""
    result: bool | None = None
    if test.kind in CLASS_TESTS and is_a is not None and t.classes:
        answers = [is_a(tested_classes(test, t.classes), n) for n in test.names]
        result = True if True in answers else None if None in answers else False
    elif test.kind == "dims" and t.dims is not None and is_a is None:
        result = _compare(t.dims, test.op, test.value)
    elif test.kind == "name":
        result = _name_test(name, test)
    elif test.kind == "classname" and is_a is not None and t.classes:
        result = _class_name_test(t.classes[0].rpartition(".")[2], test)
    elif test.kind in ("present", "hasattr") and is_a is not None:
        result = True if test.names == (t.part,) else None
    return result is not None and result == test.truth


# Tests of the class of the module a tensor belongs to.
CLASS_TESTS = frozenset({"isinstance", "type"})


def tested_classes(test: ItemTest, classes: tuple[str, ...]) -> tuple[str, ...]:
    """The classes of a module's MRO ``classes`` that ``test`` asks about: all of them for
    ``isinstance``, the module's own for ``type(m) in {...}``."""
    return classes[:1] if test.kind == "type" else classes


def _compare(dims: int, op: str, value: int) -> bool | None:
    return {
        "gt": dims > value,
        "ge": dims >= value,
        "eq": dims == value,
        "ne": dims != value,
        "lt": dims < value,
        "le": dims <= value,
    }.get(op)


def _name_test(name: str, test: ItemTest) -> bool | None:
    if "*" in name and any(c.isdigit() for n in test.names for c in n):
        return None  # (``blocks.*.fc.weight``: which items a number names is not known)
    if test.op == "in":
        return test.names[0] in name
    if test.op == "endswith":
        return name.endswith(test.names)
    if test.op == "startswith":
        return name.startswith(test.names)
    return None


def _class_name_test(name: str, test: ItemTest) -> bool | None:
    """A test of the module's class name (``"Conv" in type(m).__name__``)."""
    if test.op == "eq":
        return name == test.names[0]
    return _name_test(name, test)

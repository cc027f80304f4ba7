"""The order of the modules an object registers as its children (``net.children()``), read
from its simulated construction: what a slice of them, ``list(net.children())[:-2]``,
keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from initlint.simulation.records import Event
from initlint.simulation.values import TRUE

# Whether a store puts a module on the object: True, False, or None when not known.
ModuleTest = Callable[[Event], bool | None]


def registered_children(events: Sequence[Event], is_module: ModuleTest) -> tuple[str, ...] | None:
    """The names the construction's stores of modules on the object register, in the order
    torch keeps them (a name's first store); None when that order is not known here: a
    store of a module on some paths only, a store that may or may not be a module, a name
    stored twice (a store of another value, or None, changes what it holds)."""
    names: list[str] = []
    for e in events:
        if e.shadow or e.kind != "assign" or "." in e.name:
            continue
        module = is_module(e)
        if module is None or e.name in names:
            return None
        if module:
            if e.status != TRUE:
                return None
            names.append(e.name)
    return tuple(names)


def sliced(names: tuple[str, ...], bounds: tuple[int | None, int | None]) -> set[str]:
    """The names a slice of ``names`` with ``bounds`` keeps."""
    return set(names[slice(*bounds)])

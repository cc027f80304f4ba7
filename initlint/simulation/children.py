"""The order of the modules an object registers as its children (``net.children()``), read
from its simulated construction: what a slice of them, ``list(net.children())[:-2]``,
keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from initlint.facts.expressions import slice_bounds
from initlint.facts.model import Expr
from initlint.records import dataclass
from initlint.simulation.records import Event
from initlint.simulation.values import TRUE

# ``Event.kept`` of a part left out of a slice of its holder's children that replaces the
# holder (``self.net = nn.Sequential(*list(self.net.children())[:-1])``).
CHILDREN_LEFT = "children-left"

# Whether a store puts a module on the object: True, False, or None when not known.
ModuleTest = Callable[[Event], bool | None]


@dataclass(frozen=True)
class Children:
    """The names the construction's stores of modules on the object register, in the order
    torch keeps them (a name's first store); ``complete`` False when they are only the
    first ones, up to a store whose place is not known (on some paths only, of a value that
    may or may not be a module, a child deleted or stored again with what may be no
    module): the ones after it may shift."""

    names: tuple[str, ...]
    complete: bool

    def sliced(self, bounds: tuple[int | None, int | None]) -> set[str] | None:
        """The names a slice with ``bounds`` keeps; None where that depends on the
        children not known (a bound from the end, or past the names known)."""
        start, stop = bounds
        if not self.complete and not (
            (start is None or 0 <= start) and stop is not None and 0 <= stop <= len(self.names)
        ):
            return None
        return set(self.names[start:stop])


def registered_children(events: Sequence[Event], is_module: ModuleTest) -> Children:
    """The children the construction ``events`` registers on the object, as far as their
    order is known. A child stored again keeps its place where a module goes there on
    every path; one deleted, or stored again with what may be no module (``None`` leaves
    its place in ``children()`` empty), leaves the order known only before it."""
    names: list[str] = []
    for e in events:
        if e.shadow or "." in e.name or e.kind not in ("assign", "delete"):
            continue
        module = is_module(e) if e.kind == "assign" else False
        if e.name in names:
            if module and e.status == TRUE:
                continue
            return Children(tuple(names[: names.index(e.name)]), complete=False)
        if module is None or (module and e.status != TRUE):
            return Children(tuple(names), complete=False)
        if module:
            names.append(e.name)
    return Children(tuple(names), complete=True)


def children_slice(value: Expr, me: str, attr: str) -> tuple[int | None, int | None] | None:
    """The bounds of the slice of ``<me>.<attr>``'s children that ``value`` is made of,
    ``nn.Sequential(*list(self.net.children())[:-1])`` for ``attr`` "net", where that slice
    is the only mention of ``<me>.<attr>`` in it; None for any other value."""
    found: tuple[int | None, int | None] | None = None
    mentions = 0
    for node in value.nodes():
        if node.is_attr_of(me, attr):
            mentions += 1
        if node.kind != "subscript" or node.name != "slice" or node.receiver is None:
            continue
        walk = node.receiver
        if walk.kind == "call" and walk.name == "list" and len(walk.children) == 1:
            walk = walk.children[0]
        recv = walk.receiver
        if walk.kind == "call" and walk.attr == "children" and not walk.children and recv:
            if recv.is_attr_of(me, attr):
                found = slice_bounds(node)
    return found if mentions == 1 else None

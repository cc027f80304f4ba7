"""torch's module containers as the code builds them: which calls a ``ModuleList`` or
``Sequential`` holds, and under which names (read by stores, passes and coverage)."""

from __future__ import annotations

from initlint.facts.model import Expr


def torch_container(name: str) -> bool:
    """torch's ``ModuleList`` or ``Sequential``: modules held under their numbers."""
    head, _, last = name.rpartition(".")
    return head.startswith("torch.nn") and last in ("ModuleList", "Sequential")


def container_items(value: Expr) -> list[tuple[str, Expr]]:
    """The calls a container's construction holds, each with the name it holds it under:
    ``nn.Sequential(A(), B())`` or ``nn.ModuleList([A(), B()])``: ``0``, ``1``; one
    comprehension of a call (``nn.ModuleList([Block(d) for _ in range(n)])``, or starred
    into ``nn.Sequential(*[...])``): ``*``, any number. [] for anything else (a list built
    elsewhere, ``*layers``)."""
    starred = value.keywords == ("*",)  # (``nn.Sequential(*[Block(d) for _ in range(n)])``)
    if value.kind != "call" or (value.keywords and not starred) or value.value is not None:
        return []
    given = value.children
    if starred and not (len(given) == 1 and given[0].kind == "op" and given[0].name == "comp"):
        return []
    if len(given) == 1 and given[0].kind == "op" and given[0].name in ("tuple", "comp"):
        if given[0].name == "comp":
            item = given[0].children[1]
            return [("*", item)] if item.kind == "call" and item.name else []
        given = given[0].children
    if not given or not all(g.kind == "call" and g.name for g in given):
        return []
    return [(str(i), g) for i, g in enumerate(given)]

"""torch's module containers as the code builds them: which calls a ``ModuleList`` or
``Sequential`` holds, and under which names (read by stores, passes and coverage)."""

from __future__ import annotations

from initlint.facts.model import Expr


def torch_container(name: str) -> bool:
    """torch's ``ModuleList`` or ``Sequential``, modules held under their numbers, or
    ``ModuleDict``, modules held under their keys."""
    head, _, last = name.rpartition(".")
    return head.startswith("torch.nn") and last in ("ModuleList", "Sequential", "ModuleDict")


def container_items(value: Expr) -> list[tuple[str, Expr]]:
    """The calls a container's construction holds, each with the name it holds it under:
    ``nn.Sequential(A(), B())`` or ``nn.ModuleList([A(), B()])``: ``0``, ``1``; one
    comprehension of a call (``nn.ModuleList([Block(d) for _ in range(n)])``, or starred
    into ``nn.Sequential(*[...])``): ``*``, any number. [] for anything else (a list built
    elsewhere, ``*layers``)."""
    keyed = _keyed_items(value)
    if keyed:
        return keyed
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


def _keyed_items(value: Expr) -> list[tuple[str, Expr]]:
    """``ModuleDict({"wte": A(), "h": B()})`` or ``ModuleDict(dict(wte=A(), h=B()))``, a
    dict written out with string keys and a call for each value: each call under its key;
    [] for anything else (a dict read elsewhere, a key computed, ``**more``)."""
    given = value.children
    if value.kind != "call" or value.keywords or value.value is not None or len(given) != 1:
        return []
    if value.name.rpartition(".")[2] != "ModuleDict":
        return []
    made = given[0]
    if made.kind == "call" and made.name == "dict" and made.value == 0:  # (``dict(h=B())``)
        if not all(k.isidentifier() for k in made.keywords):
            return []  # (``**more``)
        pairs = (*(Expr("const", value=k) for k in made.keywords), *made.children)
    elif made.kind == "op" and not made.name:
        pairs = made.children  # (a dict's keys, then its values)
    else:
        return []
    half = len(pairs) // 2
    keys, values = pairs[:half], pairs[half:]
    if not pairs or len(pairs) % 2:
        return []
    if not all(k.kind == "const" and isinstance(k.value, str) and k.value for k in keys):
        return []
    if not all(v.kind == "call" and v.name for v in values):
        return []
    return [(str(k.value), v) for k, v in zip(keys, values, strict=True)]

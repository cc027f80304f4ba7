"""Names that stand for a part of the object under construction inside the functions its
construction runs: a parameter handed ``self.lm_head`` (``self._tie(self.lm_head, emb)``)
and a local bound to what a method of the object returns when that method returns one of
its parts (``out = self.get_output_embeddings()``). What is stored through such a name is
stored into that part (``out.weight = emb.weight``), as if written ``self.lm_head.weight``."""

from __future__ import annotations

from initlint.facts.model import Body, Expr
from initlint.facts.reads import SIZE_ATTRS
from initlint.simulation.torch_knowledge import CONFIG_ATTRS

# Attributes that describe a part rather than hold one (``self.weight.shape``,
# ``self.fc.in_features``): a name bound to one stands for a value, not a part.
_DESCRIBING = SIZE_ATTRS | CONFIG_ATTRS


def part_named(expr: Expr | None, me: str, parts: dict[str, str]) -> str:
    """The dotted path below the object that ``expr`` names (``lm_head`` for
    ``self.lm_head``, ``model.embed`` for ``m.embed`` when ``m`` stands for ``self.model``);
    "" for anything else."""
    attrs: list[str] = []
    cur = expr
    while cur is not None and cur.kind == "attr" and cur.receiver is not None:
        attrs.append(cur.attr)
        cur = cur.receiver
    if cur is None or cur.kind != "name":
        return ""
    if me and cur.name == me:
        root = ""
    elif cur.name in parts:
        root = parts[cur.name]
    else:
        return ""
    if _DESCRIBING.intersection(attrs):
        return ""
    return ".".join([root, *reversed(attrs)] if root else reversed(attrs))


def returned_part(body: Body) -> str:
    """The part of the object a method returns on every ``return``
    (``return self.lm_head``); "" when it returns anything else on some path, or none."""
    me = body.params[0].name if body.params else ""
    found = ""
    for eff in body.effects:
        if eff.kind != "return":
            continue
        path = part_named(eff.value, me, {})
        if not path or (found and path != found):
            return ""
        found = path
    return found


def overlaps(a: str, b: str) -> bool:
    """Whether one of two dotted paths is the other or lies below it."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")

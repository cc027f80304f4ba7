"""Names that stand for a part of the object under construction inside the functions its
construction runs: a parameter handed ``self.lm_head`` (``self._tie(self.lm_head, emb)``)
and a local bound to what a method of the object returns when that method returns one of
its parts (``out = self.get_output_embeddings()``). What is stored through such a name is
stored into that part (``out.weight = emb.weight``), as if written ``self.lm_head.weight``;
what is read through it is read of the part.

Only the names the facts mark as able to stand for a part are followed
(``facts.aliases.part_name_candidates``). A frame maps each to the parts it may stand for:
one path when it surely stands for that part, several (``""`` for "not a part") when a
binding under an undecided guard left it ambiguous; a store through an ambiguous name is
no store into a part, a read through it reads every part it may stand for."""

from __future__ import annotations

from initlint.facts.model import Body, Expr
from initlint.facts.reads import SIZE_ATTRS
from initlint.simulation.torch_knowledge import CONFIG_ATTRS

# Attributes that describe a part rather than hold one (``self.weight.shape``,
# ``self.fc.in_features``): a name bound to one stands for a value, not a part.
_DESCRIBING = SIZE_ATTRS | CONFIG_ATTRS

# What a frame's names stand for: by name, the dotted paths of the parts it may be ("" for
# a value that is no part).
PartNames = dict[str, frozenset[str]]


def part_named(expr: Expr | None, me: str, parts: PartNames) -> str:
    """The dotted path below the object that ``expr`` surely names (``lm_head`` for
    ``self.lm_head``, ``model.embed`` for ``m.embed`` when ``m`` stands for ``self.model``
    alone); "" for anything else."""
    attrs: list[str] = []
    cur = expr
    while cur is not None and cur.kind == "attr" and cur.receiver is not None:
        attrs.append(cur.attr)
        cur = cur.receiver
    if cur is None or cur.kind != "name":
        return ""
    if me and cur.name == me:
        root = ""
    else:
        root = sure_part(parts, cur.name)
        if not root:
            return ""
    if _DESCRIBING.intersection(attrs):
        return ""
    return ".".join([root, *reversed(attrs)] if root else reversed(attrs))


def sure_part(parts: PartNames, name: str) -> str:
    """The part ``name`` surely stands for; "" when none or when it may be several."""
    paths = parts.get(name, frozenset())
    return next(iter(paths)) if len(paths) == 1 and "" not in paths else ""


def heads(parts: PartNames, names: frozenset[str]) -> frozenset[str]:
    """The attributes of the object that the parts ``names`` may stand for hang from."""
    return frozenset(p.partition(".")[0] for n in names for p in parts.get(n, ()) if p)


def bound(previous: frozenset[str] | None, made: frozenset[str], sure: bool) -> frozenset[str]:
    """What a name stands for after a binding that makes it stand for ``made``: that, when
    the binding surely runs; else either that or what it stood for before (``previous``,
    None for a name unbound before, {""} for one holding a value that is no part)."""
    if sure or previous is None:
        return made
    return previous | made


def ended(paths: frozenset[str], replaced: str) -> frozenset[str]:
    """``paths`` once the object's ``replaced`` is replaced: a name that stood for that
    part or one below it holds the old object, which is no part of the object any more."""
    return frozenset("" if p == replaced or p.startswith(replaced + ".") else p for p in paths)


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

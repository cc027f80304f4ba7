"""A local made of random draws and filled whole before anything reads it (``emb =
nn.Parameter(torch.randn(n, d))``, then ``nn.init.normal_(emb, std=0.02)``): the draws are
thrown away, where ``torch.empty(n, d)`` would hold the place. The same waste as a drawn
attribute filled again (``rules/refills.py``), before the tensor reaches the object."""

from __future__ import annotations

from initlint.facts.model import Body, Effect
from initlint.simulation.torch_knowledge import drawn_value


def drawn_then_filled(body: Body, at: int) -> int | None:
    """For the effect number ``at`` of ``body``, torch's fill of every number of a local
    (an ``init`` effect of detail ``whole``): the number of
    the ``local`` effect that last bound the local to random draws, when the function
    follows the local's uses (it records them) and nothing mentions it in between (its
    fill's own statement aside), on the path of the fill; None otherwise."""
    fill = body.effects[at]
    name = fill.name
    if fill.kind != "init" or fill.detail != "whole" or not name:
        return None
    if not any(_mention(e, name) and e.stmt == fill.stmt for e in body.effects):
        return None  # (uses not followed: one may be anywhere)
    for i in range(at - 1, -1, -1):
        e = body.effects[i]
        if e.kind == "local" and e.name == name:
            ok = e.value is not None and drawn_value(e.value)
            return i if ok and fill.guard[: len(e.guard)] == e.guard else None
        if e.stmt != fill.stmt and (_mention(e, name) or _changed(e, name)):
            return None
    return None


def _mention(e: Effect, name: str) -> bool:
    """A ``local_use`` of ``name``: any mention of a local whose uses are followed."""
    return e.kind == "local_use" and e.name == name


def _changed(e: Effect, name: str) -> bool:
    """``name.x = v``, a fill of it or of a part: its numbers or fields written."""
    if e.kind == "objattr":
        return e.name.partition(".")[0] == name
    return e.kind == "init" and e.detail != "self" and e.name == name  # (whole or in part)

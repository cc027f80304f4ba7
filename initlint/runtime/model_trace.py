"""Result types of ``trace_model`` (a whole-model trace): plain frozen dataclasses, no torch.

A whole-model trace records repeats on *every* object something happened to during the one
construction (each ``nn.Module`` and each project object), keyed by the object's identity, then
groups them by class and site. A repeat whose object sat inside a replaced submodule (the first
of two vision towers, say) is *nested*: it is reported under the repeat that replaced it and not
counted again in any total, since the outer repeat's bytes already hold the whole tower.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from initlint.records import dataclass

from .model import STORAGE_KINDS, Repeat

HEAVY_BYTES = 1024 * 1024  # a repeat that wastes at least this much is heavy; others are light


@dataclass(frozen=True)
class StaticFinding:
    """A finding of ``initlint check`` that may predict a runtime repeat (of a rule that
    declares ``runtime_repeats``: IL001-IL003).

    ``path`` is the file as a normalized absolute path; ``classes`` the qualified names of the
    classes the finding is about (for a mixin, every concrete class)."""

    code: str
    path: str
    line: int
    message: str
    classes: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class ObjectRepeat:
    """One repeat on one object.

    ``object_id`` is the object's ordinal in the trace (in the order objects were first seen);
    ``path`` is where the object sits in the returned model (``""`` for the model itself,
    ``"layers.0.attn"`` for a submodule, None when it is not part of the result: replaced or
    temporary). ``nested_in`` is the index, in ``ModelTrace.repeats``, of the repeat that replaced
    a submodule holding this object; its bytes are then already counted there. ``finding`` is the
    static finding that predicted it, if static findings were linked. ``frames`` are the project
    frames ("file:line", innermost first) on the stack when the work was redone (every
    occurrence after the first); ``mro`` the qualified names of the object's classes;
    ``owners`` the class whose code did each occurrence (two owners: a redo down the init chain,
    the checker's subject; one: a class redoing its own work).
    """

    object_id: int
    class_name: str
    path: str | None
    repeat: Repeat
    nested_in: int | None = None
    finding: StaticFinding | None = None
    frames: tuple[str, ...] = ()
    mro: tuple[str, ...] = field(default=(), repr=False)
    owners: tuple[str | None, ...] = ()  # the class whose code did each occurrence

    @property
    def bytes(self) -> int:
        return self.repeat.bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "object": self.object_id,
            "class": self.class_name,
            "path": self.path,
            **self.repeat.to_json(),
            "nested_in": self.nested_in,
            "finding": None if self.finding is None else self.finding.to_json(),
            "redo_frames": list(self.frames),
            "owners": list(self.owners),
        }


@dataclass(frozen=True)
class RepeatGroup:
    """The repeats of one class with the same kind, name and sites, over all its instances."""

    kind: str
    name: str
    sites: tuple[str, ...]
    objects: int  # instances that repeated it
    nested: int  # of those, how many sat inside a replaced submodule
    wasted_bytes: int  # over the instances that are not nested
    finding: StaticFinding | None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "sites": list(self.sites),
            "objects": self.objects,
            "nested": self.nested,
            "wasted_bytes": self.wasted_bytes,
            "finding": None if self.finding is None else self.finding.to_json(),
        }


@dataclass(frozen=True)
class ClassSummary:
    """One class: its instances, its repeat groups and the bytes it wasted (counted once)."""

    class_name: str
    instances: int  # objects of this class traced (anything happened to them)
    instances_with_repeats: int
    wasted_bytes: int  # not nested; per object the larger of its storage and its call waste
    nested_bytes: int  # waste inside replaced submodules: reported, not counted
    groups: tuple[RepeatGroup, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.class_name,
            "instances": self.instances,
            "instances_with_repeats": self.instances_with_repeats,
            "wasted_bytes": self.wasted_bytes,
            "nested_bytes": self.nested_bytes,
            "groups": [g.to_json() for g in self.groups],
        }


def object_waste(repeats: Iterable[ObjectRepeat]) -> int:
    """One object's waste: the larger of its storage and its call totals (as ``InitTrace``)."""
    storage = calls = 0
    for r in repeats:
        if r.repeat.kind in STORAGE_KINDS:
            storage += r.bytes
        else:
            calls += r.bytes
    return max(storage, calls)


@dataclass(frozen=True)
class ModelTrace:
    """A whole-model trace: every object's repeats, and the classes ranked by wasted bytes.

    ``static`` says whether static findings were linked: "linked", "off", or an error line.
    ``class_counts`` lists every class traced (repeating or not) with its number of objects.
    """

    class_name: str
    seconds: float
    peak_bytes: int | None  # None on the meta device: not measured
    device: str
    objects: int  # objects traced (anything happened to them)
    repeats: tuple[ObjectRepeat, ...]
    classes: tuple[ClassSummary, ...]  # with at least one repeat, most wasted bytes first
    static: str = "off"
    class_counts: tuple[tuple[str, int], ...] = ()  # every traced class: objects, first-seen order

    @property
    def has_repeats(self) -> bool:
        return bool(self.repeats)

    @property
    def wasted_bytes(self) -> int:
        """Total waste, nested waste counted once (under the repeat that replaced it)."""
        return sum(c.wasted_bytes for c in self.classes)

    def top_level(self) -> tuple[ObjectRepeat, ...]:
        """The repeats that are not nested in another one."""
        return tuple(r for r in self.repeats if r.nested_in is None)

    def heavy(self, threshold: int = HEAVY_BYTES) -> tuple[ObjectRepeat, ...]:
        """Top-level repeats wasting at least ``threshold`` bytes."""
        return tuple(r for r in self.top_level() if r.bytes >= threshold)

    def light(self, threshold: int = HEAVY_BYTES) -> tuple[ObjectRepeat, ...]:
        return tuple(r for r in self.top_level() if r.bytes < threshold)

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.class_name,
            "seconds": self.seconds,
            "peak_bytes": self.peak_bytes,
            "device": self.device,
            "objects": self.objects,
            "wasted_bytes": self.wasted_bytes,
            "static": self.static,
            "class_counts": dict(self.class_counts),
            "classes": [c.to_json() for c in self.classes],
            "repeats": [r.to_json() for r in self.repeats],
        }

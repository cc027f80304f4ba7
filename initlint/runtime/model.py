"""Result types of ``trace_init``: plain frozen dataclasses, no torch needed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from initlint.records import dataclass

EventKind = Literal["buffer", "parameter", "attribute", "call"]
EVENT_KINDS: tuple[EventKind, ...] = ("buffer", "parameter", "attribute", "call")
STORAGE_KINDS: frozenset[str] = frozenset({"buffer", "parameter", "attribute"})


@dataclass(frozen=True)
class TraceEvent:
    """One recorded effect on the object under construction.

    ``bytes`` is numel * element_size of the stored tensor; for a call it is the size of the
    tensors the call returned (a tensor, or a tuple/list/dict of tensors), else 0.
    ``site`` is "file:line" of the user frame that performed it; ``owner`` the qualified name
    of the class whose code that frame runs (None for code outside a class). ``wraps`` is true
    for a submodule assigned over the one it wraps (``self.backbone = Wrapper(self.backbone)``):
    the old module survives inside the new one, so the assignment is no rebuild of it.
    """

    kind: EventKind
    name: str
    bytes: int
    site: str
    owner: str | None
    wraps: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "bytes": self.bytes,
            "site": self.site,
            "owner": self.owner,
        }
        if self.wraps:
            data["wraps"] = True
        return data


@dataclass(frozen=True)
class Repeat:
    """A (kind, name) that happened ``count`` > 1 times during one construction.

    ``bytes`` is the wasted size: the bytes of every occurrence except the last one (the last
    one is what survives; for calls, the last result is the one kept). ``sites`` lists every
    occurrence in order, so ``len(sites) == count``.
    """

    kind: EventKind
    name: str
    count: int
    bytes: int
    sites: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "count": self.count,
            "bytes": self.bytes,
            "sites": list(self.sites),
        }


def add_occurrence(group: list[TraceEvent], event: TraceEvent) -> None:
    """Append ``event`` to the occurrences of its (kind, name); an event that wraps the value
    before it takes that occurrence's place, since the old value lives on inside it."""
    if event.wraps and group:
        group[-1] = event
    else:
        group.append(event)


def find_repeats(events: Iterable[TraceEvent]) -> tuple[Repeat, ...]:
    """Group events by (kind, name), in first-occurrence order, and keep those seen twice+."""
    groups: dict[tuple[str, str], list[TraceEvent]] = {}
    for event in events:
        add_occurrence(groups.setdefault((event.kind, event.name), []), event)
    return tuple(
        Repeat(
            kind=group[0].kind,
            name=group[0].name,
            count=len(group),
            bytes=sum(e.bytes for e in group[:-1]),
            sites=tuple(e.site for e in group),
        )
        for group in groups.values()
        if len(group) > 1
    )


@dataclass(frozen=True)
class InitTrace:
    """What one recorded construction did and cost."""

    class_name: str
    seconds: float
    peak_bytes: int | None  # None on the meta device: not measured
    device: str
    events: tuple[TraceEvent, ...]
    repeated: tuple[Repeat, ...]

    @property
    def has_repeats(self) -> bool:
        return bool(self.repeated)

    @property
    def wasted_bytes(self) -> int:
        """Total waste, counted once: the larger of the storage total and the call total.

        A repeated call's result usually *is* the repeated buffer, so the two are not added.
        """
        storage = sum(r.bytes for r in self.repeated if r.kind in STORAGE_KINDS)
        calls = sum(r.bytes for r in self.repeated if r.kind == "call")
        return max(storage, calls)

    def repeated_names(self, kind: EventKind) -> frozenset[str]:
        """Names of the repeated items of one kind, e.g. ``{"cos_sin_cache"}``."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}")
        return frozenset(r.name for r in self.repeated if r.kind == kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.class_name,
            "seconds": self.seconds,
            "peak_bytes": self.peak_bytes,
            "device": self.device,
            "repeated": [r.to_json() for r in self.repeated],
            "events": [e.to_json() for e in self.events],
        }

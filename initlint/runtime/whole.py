"""``trace_model``: a whole-model trace, every object's repeats, grouped by class and site."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence

from initlint.rules.base import runtime_repeats_of

from .model import Repeat, TraceEvent, add_occurrence
from .model_trace import (
    ClassSummary,
    ModelTrace,
    ObjectRepeat,
    RepeatGroup,
    StaticFinding,
    object_waste,
)
from .paths import default_roots
from .recorder import TracedObject
from .static_link import source_files
from .tracer import construct


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _object_repeats(
    obj: TracedObject,
) -> list[tuple[Repeat, tuple[str, ...], tuple[str | None, ...]]]:
    """Repeats of one object, in first-occurrence order, each with its redo frames.

    Storage repeats by (kind, name); calls by (name, arguments): calling one method with other
    arguments (``_init_weights(module)`` for each submodule) is not doing the same work again,
    as IL002 asks for equal arguments too.
    """
    groups: dict[tuple[object, ...], list[TraceEvent]] = {}
    stacks: dict[tuple[object, ...], list[tuple[str, ...]]] = {}
    for event, arguments, _, stack in obj.events:
        key: tuple[object, ...] = (event.kind, event.name)
        if event.kind == "call":
            key += (arguments,)
        group = groups.setdefault(key, [])
        wrapped = event.wraps and bool(group)
        add_occurrence(group, event)
        if wrapped:
            stacks[key][-1] = stack
        else:
            stacks.setdefault(key, []).append(stack)
    found = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        repeat = Repeat(
            kind=group[0].kind,
            name=group[0].name,
            count=len(group),
            bytes=sum(e.bytes for e in group[:-1]),
            sites=tuple(e.site for e in group),
        )
        later = [e.site for e in group[1:]] + [f for st in stacks[key][1:] for f in st]
        frames = tuple(dict.fromkeys(later))
        found.append((repeat, frames, tuple(e.owner for e in group)))
    return found


def _module_type() -> type:
    import torch

    return torch.nn.Module


def _constructed_here(obj: TracedObject) -> bool:
    """A project object counts when its ``__init__`` ran during the call: objects that lived
    before (a lazy module, a registry the code looks things up in) are not the model's."""
    return any(e[0].kind == "call" and e[0].name.endswith(".__init__") for e in obj.events)


def _module_paths(result: object, ident_of: Callable[[object], int | None]) -> dict[int, str]:
    named = getattr(result, "named_modules", None)
    paths: dict[int, str] = {}
    if callable(named):
        try:
            for name, module in named(remove_duplicate=False):
                ident = ident_of(module)
                if ident is not None:
                    paths.setdefault(ident, name)
        except Exception:  # noqa: BLE001 - a module tree that cannot be walked: no paths
            return paths
    else:
        ident = ident_of(result)
        if ident is not None:
            paths[ident] = ""
    return paths


def trace_model(
    factory: Callable[[], object],
    *,
    device: str = "cpu",
    project_roots: Sequence[str | os.PathLike[str]] | None = None,
    static: bool = True,
) -> ModelTrace:
    """Call ``factory()`` once and record repeats on every object constructed during the call.

    Each ``nn.Module`` and each project object something happened to is traced on its own,
    keyed by identity: two decoder layers that each rebuild their rotary cache are two objects
    with one repeat each, grouped under their class and site. Storage repeats are as in
    ``trace_init``; a call repeats only with equal arguments. A repeat inside a submodule that
    was then replaced is nested under the repeat that replaced it and not counted again.

    ``static=True`` runs ``initlint check`` (in this process, without torch) on the source files
    of the classes that repeated something and links each repeat to the finding that predicted
    it; ``static=False`` skips that (``link_findings`` can do it later).
    """
    done = construct(factory, device=device, project_roots=project_roots)
    recorder, result = done.recorder, done.result
    roots = recorder.roots or default_roots(type(result))
    module_type = _module_type()
    objects = []
    for o in recorder.collect_objects(roots):
        if issubclass(o.cls, module_type):
            objects.append(o)
        elif _constructed_here(o):  # a project object: only what its own __init__ did
            o.events = [e for e in o.events if e[2]]
            objects.append(o)
    paths = _module_paths(result, recorder.ident_of)
    classes: dict[int, type] = {o.ident: o.cls for o in objects}

    repeats: list[ObjectRepeat] = []
    index: dict[tuple[int, str, str], int] = {}
    repeating: set[type] = set()
    for obj in objects:
        mro = tuple(qualified(c) for c in obj.cls.__mro__)
        for repeat, frames, owners in _object_repeats(obj):
            index.setdefault((obj.ident, repeat.kind, repeat.name), len(repeats))
            repeats.append(
                ObjectRepeat(
                    obj.ident,
                    qualified(obj.cls),
                    paths.get(obj.ident),
                    repeat,
                    frames=frames,
                    mro=mro,
                    owners=owners,
                )
            )
            repeating.add(obj.cls)

    nested: dict[int, int] = {}  # object ordinal -> index of the repeat that replaced its tree
    for discard in recorder.discards:
        outer = index.get((discard.parent, "attribute", discard.name))
        if outer is None:
            continue
        for member in discard.members:
            nested.setdefault(member, outer)
    repeats = [
        dataclasses.replace(r, nested_in=nested.get(r.object_id))
        if nested.get(r.object_id) is not None
        else r
        for r in repeats
    ]

    instances: dict[str, int] = {}
    for ident in classes:
        name = qualified(classes[ident])
        instances[name] = instances.get(name, 0) + 1
    trace = ModelTrace(
        class_name=qualified(type(result)),
        seconds=done.seconds,
        peak_bytes=done.peak_bytes,
        device=done.device,
        objects=len(objects),
        repeats=tuple(repeats),
        classes=summarize(repeats, instances),
        static="off",
        class_counts=tuple(instances.items()),
    )
    if static and trace.repeats:
        # The traced class's files too: a part of a submodule redone by the outer class
        # (``self.mixer.inp = ...`` in another file than the mixer's) is its finding.
        trace = link_static(trace, source_files([type(result), *repeating], roots))
    return trace


def summarize(
    repeats: Sequence[ObjectRepeat], instances: Mapping[str, int]
) -> tuple[ClassSummary, ...]:
    """Classes with repeats, most wasted bytes first; each object's waste counted once."""
    by_class: dict[str, list[ObjectRepeat]] = {}
    for r in repeats:
        by_class.setdefault(r.class_name, []).append(r)
    summaries = []
    for name, members in by_class.items():
        groups: dict[tuple[str, str, tuple[str, ...]], list[ObjectRepeat]] = {}
        per_object: dict[int, list[ObjectRepeat]] = {}
        for r in members:
            groups.setdefault((r.repeat.kind, r.repeat.name, r.repeat.sites), []).append(r)
            per_object.setdefault(r.object_id, []).append(r)
        wasted = sum(
            object_waste(r for r in rs if r.nested_in is None) for rs in per_object.values()
        )
        inner = sum(
            object_waste(r for r in rs if r.nested_in is not None) for rs in per_object.values()
        )
        summaries.append(
            ClassSummary(
                class_name=name,
                instances=max(instances.get(name, 0), len(per_object)),
                instances_with_repeats=len(per_object),
                wasted_bytes=wasted,
                nested_bytes=inner,
                groups=tuple(_group(kind_name_sites, rs) for kind_name_sites, rs in groups.items()),
            )
        )
    summaries.sort(
        key=lambda c: (-c.wasted_bytes, -c.nested_bytes, -c.instances_with_repeats, c.class_name)
    )
    return tuple(summaries)


def _group(key: tuple[str, str, tuple[str, ...]], members: list[ObjectRepeat]) -> RepeatGroup:
    kind, name, sites = key
    return RepeatGroup(
        kind=kind,
        name=name,
        sites=sites,
        objects=len({r.object_id for r in members}),
        nested=len({r.object_id for r in members if r.nested_in is not None}),
        wasted_bytes=sum(r.bytes for r in members if r.nested_in is None),
        finding=next((r.finding for r in members if r.finding is not None), None),
    )


# ---- linking to static findings ----------------------------------------------------------------


def _short(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _predicts(finding: StaticFinding, repeat: ObjectRepeat) -> bool:
    """The finding points at the statement that redid the work, and is about the item; or it
    is about a class the object is an instance of, and either points at a statement that was
    on the stack when the work was redone, or names the repeated item. (A finding on
    ``self.attn.qkv = ...`` is about the outer class; the repeat is on the attention object.)"""
    kinds = runtime_repeats_of(finding.code)  # the repeats its rule predicts
    if _redone_at(finding, repeat) and repeat.repeat.kind in kinds:
        return True
    classes = {_short(c) for c in finding.classes}
    if classes and not classes & {_short(c) for c in repeat.mro or (repeat.class_name,)}:
        return False
    if finding.where in repeat.frames:
        return True
    name = _short(repeat.repeat.name)
    return repeat.repeat.kind in kinds and (
        f"`{name}`" in finding.message or f"`self.{name}" in finding.message
    )


def _redone_at(finding: StaticFinding, repeat: ObjectRepeat) -> bool:
    """The finding points at the very statement that redid the work (a later occurrence's
    site), naming the repeated item; or at a statement on the stack then, naming the
    attribute that holds the object."""
    name = _short(repeat.repeat.name)
    if finding.where in repeat.repeat.sites[1:] and f".{name}`" in finding.message:
        return True
    # ``self.expert.__init__(...)``: the statement was on the stack, and the finding names
    # the attribute the repeating object sits in
    seat = (repeat.path or "").rpartition(".")[2]
    return bool(seat) and finding.where in repeat.frames and f"`self.{seat}`" in finding.message


def link_findings(
    trace: ModelTrace,
    findings: Iterable[StaticFinding],
    *,
    path_map: Mapping[str, str] | None = None,
) -> ModelTrace:
    """A copy of ``trace`` whose repeats carry the static finding that predicted each, if any.

    ``path_map`` rewrites the findings' path prefixes to the traced files' (for a library
    checked from another copy of its sources than the one imported)."""
    moved = []
    for f in findings:
        for old, new in (path_map or {}).items():
            if f.path.startswith(old):
                f = dataclasses.replace(f, path=new + f.path[len(old) :])
                break
        moved.append(f)
    by_class: dict[str, list[StaticFinding]] = {}
    unscoped: list[StaticFinding] = []
    for f in moved:
        for c in f.classes:
            by_class.setdefault(_short(c), []).append(f)
        if not f.classes:
            unscoped.append(f)
    linked = []
    for r in trace.repeats:
        mro = r.mro or (r.class_name,)
        candidates = [f for c in mro for f in by_class.get(_short(c), ())] + unscoped
        candidates += [f for f in moved if _redone_at(f, r) and f not in candidates]
        # A finding at a redo frame wins over one that only names the item.
        at_frame = [f for f in candidates if f.where in r.frames and _predicts(f, r)]
        named = [f for f in candidates if _predicts(f, r)]
        best = (at_frame or named)[0] if at_frame or named else None
        linked.append(dataclasses.replace(r, finding=best))
    instances = dict(trace.class_counts)
    return dataclasses.replace(
        trace, repeats=tuple(linked), classes=summarize(linked, instances), static="linked"
    )


def link_static(trace: ModelTrace, files: Sequence[str]) -> ModelTrace:
    """Run ``initlint check`` on ``files`` and link its findings to the trace's repeats."""
    from .static_link import static_findings

    try:
        findings = static_findings(files)
    except Exception as exc:  # noqa: BLE001 - linking is extra; the trace stands without it
        return dataclasses.replace(
            trace, static=f"static check failed: {type(exc).__name__}: {exc}"
        )
    return link_findings(trace, findings)

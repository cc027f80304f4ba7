"""Text rendering of an InitTrace for ``initlint trace``."""

from __future__ import annotations

from .model import InitTrace
from .model_trace import ModelTrace, StaticFinding
from .paths import display_path

_UNITS = ("KiB", "MiB", "GiB", "TiB")


def format_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'; below 1 KiB in plain bytes."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in _UNITS:
        value /= 1024
        if value < 1024 or unit == _UNITS[-1]:
            break
    return f"{value:.1f} {unit}"


def verdict(trace: InitTrace) -> str:
    count = len(trace.repeated)
    if not count:
        return "verdict: no repeated work"
    items = "item" if count == 1 else "items"
    return f"verdict: {count} repeated {items}, {format_bytes(trace.wasted_bytes)} wasted"


def format_peak(peak: int | None, device: str) -> str:
    if peak is None:
        return f"peak memory not measured on {device}"
    return f"peak memory {format_bytes(peak)}"


def render_text(trace: InitTrace) -> str:
    lines = [
        f"traced {trace.class_name} on {trace.device}: {trace.seconds:.3f} s, "
        f"{format_peak(trace.peak_bytes, trace.device)}, {len(trace.events)} events"
    ]
    if trace.repeated:
        rows = [("kind", "name", "count", "wasted", "sites")]
        rows += [
            (
                r.kind,
                r.name,
                str(r.count),
                format_bytes(r.bytes),
                ", ".join(display_path(s) for s in r.sites),
            )
            for r in trace.repeated
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        for kind, name, count, wasted, sites in rows:
            lines.append(
                f"  {kind:<{widths[0]}}  {name:<{widths[1]}}  {count:>{widths[2]}}"
                f"  {wasted:>{widths[3]}}  {sites}"
            )
    lines.append(verdict(trace))
    return "\n".join(lines)


def model_verdict(trace: ModelTrace) -> str:
    count = len(trace.repeats)
    if not count:
        return "verdict: no repeated work"
    objects = len({r.object_id for r in trace.repeats})
    nested = sum(1 for r in trace.repeats if r.nested_in is not None)
    repeats = "repeat" if count == 1 else "repeats"
    on = "object" if objects == 1 else "objects"
    inner = f" ({nested} nested, counted once)" if nested else ""
    return (
        f"verdict: {count} {repeats} on {objects} {on}{inner}, "
        f"{format_bytes(trace.wasted_bytes)} wasted"
    )


def _finding_text(finding: StaticFinding | None, linked: bool) -> str:
    if finding is None:
        return "no static finding" if linked else ""
    return f"{finding.code} {display_path(finding.where)}"


def _sites(sites: tuple[str, ...]) -> str:
    """Each distinct site once, in order, with its count when it repeats: "m.py:3 x32"."""
    counts: dict[str, int] = {}
    for site in sites:
        counts[site] = counts.get(site, 0) + 1
    return ", ".join(display_path(s) + (f" x{n}" if n > 1 else "") for s, n in counts.items())


def render_model_text(trace: ModelTrace) -> str:
    """Classes ranked by wasted bytes; under each, its repeats grouped by kind, name and sites."""
    lines = [
        f"traced {trace.class_name} and every module it built, on {trace.device}: "
        f"{trace.seconds:.3f} s, {format_peak(trace.peak_bytes, trace.device)}, "
        f"{trace.objects} objects"
    ]
    linked = trace.static == "linked"
    if trace.static not in ("linked", "off"):
        lines.append(f"  ({trace.static})")
    for summary in trace.classes:
        nested = f", {format_bytes(summary.nested_bytes)} nested" if summary.nested_bytes else ""
        lines.append(
            f"  {summary.class_name}: {format_bytes(summary.wasted_bytes)} wasted{nested}, "
            f"{summary.instances_with_repeats} of {summary.instances} objects repeat"
        )
        for group in summary.groups:
            inner = f" ({group.nested} nested)" if group.nested else ""
            finding = _finding_text(group.finding, linked)
            sites = _sites(group.sites)
            lines.append(
                f"    {group.kind} {group.name} x{len(group.sites)} on {group.objects} "
                f"object{'s' if group.objects != 1 else ''}{inner}: "
                f"{format_bytes(group.wasted_bytes)}  {sites}"
                + (f"  [{finding}]" if finding else "")
            )
    lines.append(model_verdict(trace))
    return "\n".join(lines)

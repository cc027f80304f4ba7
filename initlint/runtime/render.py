"""Text rendering of an InitTrace for ``initlint trace``."""

from __future__ import annotations

from .model import InitTrace
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


def render_text(trace: InitTrace) -> str:
    lines = [
        f"traced {trace.class_name} on {trace.device}: {trace.seconds:.3f} s, "
        f"peak memory {format_bytes(trace.peak_bytes)}, {len(trace.events)} events"
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

"""What identifies a finding to a fix's check, without libcst: JSON and SARIF runs store these
keys with every checked file, and a warm run that has no fix to check never renders one."""

from __future__ import annotations

from initlint.rules.base import Finding, RepeatFinding


def finding_key(f: Finding) -> tuple[str, str, str, str]:
    """What identifies a finding to a fix's check: (class, code, effect kind, effect name)."""
    ev = f.event if isinstance(f, RepeatFinding) else f.first
    return f.sim.cls.qualname, f.code, ev.kind, ev.name

"""Whether a class's code reads an attribute plainly (``self.x``), rather than only
optionally (``getattr(self, "x", None)``, ``hasattr(self, "x")``) or not at all. IL004 uses
it: setup switched off for an attribute nothing reads plainly leaves nothing missing.

Read from the source text of the classes in the MRO (IL004 is rare, so this runs seldom).
"""

from __future__ import annotations

import re

from initlint.index.records import ClassInfo
from initlint.sources import UnreadableError, decode, read_bytes

_LINES: dict[str, list[str]] = {}


def _class_text(info: ClassInfo) -> str:
    key = str(info.module.path)
    lines = _LINES.get(key)
    if lines is None:
        try:
            lines = decode(read_bytes(info.module.path))[0].splitlines()
        except UnreadableError:
            lines = []
        _LINES[key] = lines
    facts = info.facts
    end = max([facts.span.end_line, *(m.span.end_line for m in facts.methods)])
    return "\n".join(lines[facts.span.line - 1 : end])


def no_plain_reads(classes: list[ClassInfo], attr: str) -> bool:
    """True when the classes never read ``self.<attr>`` plainly: only through
    getattr/hasattr, or not at all. Assignments and registrations are not reads."""
    name = re.escape(attr)
    # self.x = ... (an assignment) and self.x: T (an annotation) are not reads
    plain = re.compile(rf"\bself\.{name}\b(?!\s*(?:=(?!=)|:))")
    return not any(plain.search(_class_text(info)) for info in classes)

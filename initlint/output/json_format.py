"""``--format json``: an array of objects with the keys docs/configuration.md lists, and ``no_fix``
(why there is no fix, or null)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from initlint.diagnostics import Diagnostic


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "message": d.fix.message,
            "edits": [
                {
                    "path": e.path,
                    "line": e.line,
                    "column": e.column,
                    "end_line": e.end_line,
                    "end_column": e.end_column,
                    "content": e.content,
                }
                for e in d.fix.edits
            ],
        }
    return {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
        "code": d.code,
        "rule": d.rule,
        "message": d.plain_message(),
        "severity": d.severity,
        "confidence": d.confidence,
        "class": d.class_name,
        "related": [{"path": r.path, "line": r.line, "message": r.message} for r in d.related],
        "fix": fix,
        "no_fix": d.no_fix or None,
    }


def render_json(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    return json.dumps([diagnostic_to_json(d) for d in diagnostics], indent=2) + "\n"

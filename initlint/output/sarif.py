"""``--format sarif``: a SARIF 2.1.0 log with one run, for GitHub code scanning and IDEs.

Every registered rule is listed in ``tool.driver.rules`` (so ``ruleIndex`` is stable); URIs are
relative to the working directory, declared as ``%SRCROOT%`` in ``originalUriBaseIds``. Columns
count code points, and end columns are exclusive, as SARIF's region model has them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from initlint import __version__
from initlint.diagnostics import Diagnostic, Edit
from initlint.output.text import printable
from initlint.rules import REGISTRY, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
DEFAULT_INFORMATION_URI = "https://pypi.org/project/initlint/"


def information_uri() -> str:
    """The project's home page from the installed metadata, else its PyPI page."""
    from importlib import metadata  # ~20 ms to import (email, zipfile): SARIF runs only

    try:
        meta = metadata.metadata("initlint")
    except metadata.PackageNotFoundError:
        return DEFAULT_INFORMATION_URI
    for entry in meta.get_all("Project-URL") or ():
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "repository", "source"):
            return str(url).strip()
    home = meta.get_all("Home-page") or ()
    return next((str(u) for u in home if u and u != "UNKNOWN"), DEFAULT_INFORMATION_URI)


def _rule(rule: Rule) -> dict[str, Any]:
    text = rule.explain()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.docs["What it does"].strip()},
        "help": {"text": text, "markdown": text},
        "defaultConfiguration": {"level": rule.severity},
        "properties": {"fixable": rule.fixable},
    }


def _uri(path: str) -> str:
    """A relative URI reference for ``path``: percent-encoded UTF-8, and a file name's
    undecodable bytes (surrogate escapes from os.fsdecode) percent-encoded as those bytes."""
    posix = Path(path).as_posix()
    try:
        raw = posix.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        raw = posix.encode("utf-8", "surrogatepass")
    from urllib.parse import quote  # only SARIF needs it (~3 ms to import)

    return quote(raw)


def _artifact(path: str) -> dict[str, str]:
    return {"uri": _uri(path), "uriBaseId": SRCROOT}


def _text(text: str) -> dict[str, str]:
    """A message object; its text is valid Unicode even when it names an undecodable path."""
    return {"text": printable(text)}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {
        "startLine": line,
        "startColumn": column,
        "endLine": end_line,
        "endColumn": max(end_column, 1),
    }


def _fix(d: Diagnostic) -> list[dict[str, Any]]:
    if d.fix is None or not d.fix.edits:
        return []
    by_path: dict[str, list[Edit]] = {}
    for e in d.fix.edits:
        by_path.setdefault(e.path, []).append(e)
    changes = [
        {
            "artifactLocation": _artifact(path),
            "replacements": [
                {
                    "deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
                    "insertedContent": {"text": e.content},
                }
                for e in edits
            ],
        }
        for path, edits in by_path.items()
    ]
    description = f"{d.fix.message} ({d.fix.applicability} fix)"
    return [{"description": _text(description), "artifactChanges": changes}]


def _result(d: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": d.severity,
        "message": _text(d.plain_message()),
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(d.path),
                    "region": _region(d.line, d.column, d.end_line, d.end_column),
                }
            }
        ],
        "properties": {"confidence": d.confidence, "classes": list(d.classes)},
    }
    if d.no_fix:
        result["properties"]["noFix"] = d.no_fix
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.related:
        result["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": {
                    "artifactLocation": _artifact(r.path),
                    "region": {"startLine": r.line},
                },
                "message": _text(r.message),
            }
            for i, r in enumerate(d.related, start=1)
        ]
    fixes = _fix(d)
    if fixes:
        result["fixes"] = fixes
    return result


def sarif_log(diagnostics: Sequence[Diagnostic], base: Path | None = None) -> dict[str, Any]:
    """The SARIF log as a dict; ``base`` (default: the working directory) anchors the URIs."""
    rules = list(REGISTRY.values())
    index = {r.code: i for i, r in enumerate(rules)}
    root = (base or Path.cwd()).absolute().as_uri().rstrip("/") + "/"
    run = {
        "tool": {
            "driver": {
                "name": "initlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": information_uri(),
                "rules": [_rule(r) for r in rules],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": root}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index) for d in diagnostics],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    return json.dumps(sarif_log(diagnostics), indent=2) + "\n"

"""The internal rules: files and classes initlint could not analyse (IL900-IL902).

They have no detection over a simulation: the pipeline reports them for a file's outcome
(``pipeline/check.py``: ``Unparsable``, ``Unreadable``, ``Crashed``) and for a class whose
check failed."""

from __future__ import annotations

from initlint.rules.base import Rule, register
from initlint.simulation.engine import MAX_DEPTH, MAX_FRAMES

_NO_FIX = "No automatic fix."


@register
class SyntaxErrorRule(Rule):
    code = "IL900"
    name = "syntax-error"
    severity = "error"
    summary = "A file cannot be parsed; it is skipped and the run goes on."
    docs = {
        "What it does": (
            "Reports a file that Python cannot parse (including Python 2 code): at module or "
            "class level, in a `def` or `class` header, in an `__init__`, or in another "
            "function body that a constructor reaches. The fact pass skips the bodies no "
            "constructor reaches, so a syntax error in, say, a `forward` is left "
            "to your compiler or to ruff."
        ),
        "Why is this bad": "initlint cannot see the classes in it, so bases may go unresolved.",
        "Example": "```python\nclass Broken(:\n    pass\n```",
        "Use instead": "```python\nclass Fixed:\n    pass\n```",
        "Fix safety": _NO_FIX + " The fixer never touches a file with a syntax error.",
    }


@register
class UnreadableFile(Rule):
    code = "IL901"
    name = "unreadable-file"
    severity = "error"
    summary = "A file cannot be read: bad encoding, permissions, or not a regular file."
    docs = {
        "What it does": "Reports a file that cannot be read or decoded.",
        "Why is this bad": "initlint cannot analyse it; classes defined there stay unresolved.",
        "Example": "A file with Latin-1 bytes and no `# -*- coding: latin-1 -*-` cookie.",
        "Use instead": "Save the file as UTF-8, or declare its encoding with a coding cookie.",
        "Fix safety": _NO_FIX,
    }


@register
class InternalError(Rule):
    code = "IL902"
    name = "internal-error"
    severity = "error"
    always_shown = True  # the run exits 2 for it: no selection or suppression hides it
    summary = "initlint itself failed on one file; the run goes on and exits 2."
    docs = {
        "What it does": f"""
Reports an exception raised inside initlint while analysing a file, and a class whose
analysis stopped at a limit: an `__init__` chain deeper than {MAX_DEPTH} calls, or more
than {MAX_FRAMES:,} calls to simulate for one construction.

It is always shown: `select`, `ignore`, `per-file-ignores` and suppression comments never
hide it, because the run exits 2 whenever there is one.
""",
        "Why is this bad": (
            "It is a bug in initlint, or a limit reached: the file or class was not fully analysed."
        ),
        "Example": "Any file that triggers the bug; the message gives the exception.",
        "Use instead": "Please report it with the file, or exclude the file meanwhile.",
        "Fix safety": _NO_FIX,
    }

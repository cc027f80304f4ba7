"""The one diagnostic type every stage shares, and its parts."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from initlint.records import dataclass

Severity = Literal["error", "warning"]
Confidence = Literal["definite", "possible"]
Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True)
class Related:
    """Another location that explains a diagnostic (e.g. where the work first happened)."""

    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) positions with ``content``."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """How to fix a diagnostic: its safety, a one-line description and the edits."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...] = ()
    # The files the plan edits (absolute), known before its edits are rendered: the engine
    # refuses a fix that would edit an installed dependency (docs/design.md, "Fixes").
    files: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Diagnostic:
    """One finding. ``path`` is as the user gave it; positions are 1-based."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    rule: str
    message: str
    severity: Severity = "warning"
    confidence: Confidence = "definite"
    class_name: str = ""
    related: tuple[Related, ...] = ()
    fix: Fix | None = None
    classes: tuple[str, ...] = field(default=())
    # Set in a file reported only because its result depends on a given file (that file,
    # as displayed): ``check changed_base.py`` also shows the subclasses it breaks.
    dependent_of: str = ""
    # Why no fix is offered (shown as "no fix: ..."); "" when there is a fix or nothing to say.
    no_fix: str = ""

    def plain_message(self) -> str:
        """The message without its trailing ``[fix: safe]`` / ``[fix: unsafe]`` or
        ``[no fix: <why>]``: for JSON and SARIF, whose ``fix`` and ``no_fix`` fields say it.
        (``[no fix]``, a fix withdrawn, stays: a null ``fix`` does not say that one was
        planned.)"""
        tags = [" [fix: safe]", " [fix: unsafe]"]
        if self.no_fix:
            tags.append(f" [no fix: {self.no_fix}]")
        for tag in tags:
            if self.message.endswith(tag):
                return self.message[: -len(tag)]
        return self.message

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)


def describe(exc: BaseException, limit: int = 300) -> str:
    """``ExcType: message`` for IL902, one line, short; never raises (str() of an exception
    can itself fail, e.g. RecursionError on a deep object in its args)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<message unavailable>"
    message = " ".join(message.split())
    if len(message) > limit:
        message = message[: limit - 1] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__

"""What one check run learned (:class:`Analysis`), and the seams to the fixer."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from initlint.diagnostics import Diagnostic, Fix
from initlint.environment import Environment
from initlint.generated import GeneratedCode
from initlint.index.project import ProjectIndex
from initlint.locate import Locator
from initlint.rules import Finding
from initlint.settings import Settings
from initlint.simulation.engine import Simulator


@dataclass
class Analysis:
    """Everything one run learned; the renderer and the fixer both read it."""

    root: Path
    cwd: Path
    settings: Settings
    index: ProjectIndex
    environment: Environment  # where installed ancestors are looked up
    locator: Locator  # ranges and suppression comments of the diagnostics
    simulator: Simulator
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    internal_errors: int = 0
    generated: GeneratedCode = field(default_factory=GeneratedCode)
    plans: dict[Diagnostic, object] = field(default_factory=dict)
    # (path, line, message) of each suppression comment that suppressed nothing
    unused_suppressions: list[tuple[str, int, str]] = field(default_factory=list)

    def display(self, path: Path) -> str:
        return display_path(path, self.cwd)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd) if path.is_absolute() else path.as_posix()


# A fix and its plan, or why there is no fix ("" when there is nothing to say).


FixPlanner = Callable[["Analysis", Finding], tuple[Fix, object] | str | None]


class FixAttacher(Protocol):
    """Renders and checks the fix plans of a run's fresh diagnostics (for JSON and SARIF),
    so that the edits are stored with the per-file results (``initlint.fix.attach``)."""

    def keys(self, findings: list[Finding]) -> frozenset[object]:
        """What ``findings`` are to a later check of fixes (stored with their file)."""
        ...

    def edited(self, analysis: Analysis, diag: Diagnostic) -> frozenset[Path]:
        """The files ``diag``'s fix plan edits (empty when it has none)."""
        ...

    def attach(
        self, analysis: Analysis, diags: list[Diagnostic], known: frozenset[object]
    ) -> dict[Diagnostic, Diagnostic]:
        """Each of ``diags`` with its fix's edits, or with its fix withdrawn. ``known``: the
        findings of the report files whose results this run took from the cache."""
        ...

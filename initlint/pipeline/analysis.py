"""What one check run learned (:class:`Analysis`), and the seams to the fixer."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from initlint.diagnostics import Diagnostic, Fix
from initlint.environment import Environment
from initlint.generated import GeneratedCode
from initlint.index.project import ProjectIndex
from initlint.locate import Locator
from initlint.pipeline.unread import UnreadAncestor
from initlint.records import dataclass
from initlint.rules import Finding
from initlint.settings import Settings
from initlint.simulation.engine import Simulator

if TYPE_CHECKING:  # a plan is made by the fixer, imported when a finding needs one
    from initlint.fixplan import FixPlan


class PlannedFix(NamedTuple):
    """A fix's plan and the finding it fixes: what the fixer renders into edits and checks,
    once a report needs the edits. (A named tuple: it unpacks as ``plan, finding``.)"""

    plan: FixPlan
    finding: Finding


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
    plans: dict[Diagnostic, PlannedFix] = field(default_factory=dict)  # each offered fix's plan
    # (path, line, message) of each suppression comment that suppressed nothing
    unused_suppressions: list[tuple[str, int, str]] = field(default_factory=list)
    # each report class whose construction runs an ancestor no module found defines
    unread: list[UnreadAncestor] = field(default_factory=list)

    def display(self, path: Path) -> str:
        return display_path(path, self.cwd)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd) if path.is_absolute() else path.as_posix()


class Proposed(NamedTuple):
    """The fixer offers a fix: the diagnostic's ``Fix`` (without edits yet: they are rendered
    on demand) and its plan. (A named tuple: ``proposal[0]`` is the fix.)"""

    fix: Fix
    planned: PlannedFix


@dataclass(frozen=True)
class NoFix:
    """The fixer offers no fix, and says why (``reason``; "" when there is nothing to say)."""

    reason: str = ""


# What the fixer says about one finding.
FixProposal = Proposed | NoFix

# The check's fix callback (``initlint.fix.propose.fix_planner``), passed in from above.
FixPlanner = Callable[["Analysis", Finding], FixProposal]


# What identifies a finding to the check of a fix: (class, code, effect kind, effect name).
FindingKey = tuple[str, str, str, str]


class FixAttacher(Protocol):
    """Renders and checks the fix plans of a run's fresh diagnostics (for JSON and SARIF),
    so that the edits are stored with the per-file results (``initlint.fix.attach``)."""

    def keys(self, findings: list[Finding]) -> frozenset[FindingKey]:
        """What ``findings`` are to a later check of fixes (stored with their file)."""
        ...

    def edited(self, analysis: Analysis, diag: Diagnostic) -> frozenset[Path]:
        """The files ``diag``'s fix plan edits (empty when it has none)."""
        ...

    def attach(
        self, analysis: Analysis, diags: list[Diagnostic], known: frozenset[FindingKey]
    ) -> dict[Diagnostic, Diagnostic]:
        """Each of ``diags`` with its fix's edits, or with its fix withdrawn. ``known``: the
        findings of the report files whose results this run took from the cache."""
        ...

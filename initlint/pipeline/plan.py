"""The plan step of one module's check: the fixer's proposal for each group of findings at a
site, asked after the classes are checked and before the findings are worded, so that the
report receives each proposal as data."""

from __future__ import annotations

from initlint.diagnostics import describe
from initlint.pipeline.analysis import Analysis, FixPlanner, FixProposal, NoFix
from initlint.pipeline.report import finding_site
from initlint.records import dataclass
from initlint.rules import REGISTRY, Finding


@dataclass(frozen=True)
class PlanFailed:
    """Planning a site's fix raised inside initlint: the site is reported as IL902."""

    error: str  # the exception, described


def plan_fixes(
    analysis: Analysis, groups: list[list[Finding]], planner: FixPlanner | None
) -> list[FixProposal | PlanFailed]:
    """Each group's proposal, in order (``groups``: the findings at one site each)."""
    out: list[FixProposal | PlanFailed] = []
    for group in groups:
        try:
            out.append(plan_fix(analysis, group[0], planner))
        except Exception as exc:  # noqa: BLE001 - per-site isolation, reported as IL902
            out.append(PlanFailed(describe(exc)))
    return out


def plan_fix(analysis: Analysis, finding: Finding, planner: FixPlanner | None) -> FixProposal:
    """The planner's proposal for ``finding``, asked only where a fix can be offered: its
    rule fixes, the work is in code initlint read, and the site is no generated file (its
    generator would undo the edit)."""
    if planner is None or not REGISTRY[finding.code].fixable or finding.discarded.external:
        return NoFix()
    if analysis.generated.template_of(finding_site(finding)[0]) is not None:
        return NoFix()
    return planner(analysis, finding)

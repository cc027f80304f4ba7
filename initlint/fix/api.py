"""The fixer API: plan fixes during analysis, then render, check and write them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic, Fix
from initlint.engine import Analysis, analyze
from initlint.fix.apply import (
    FixOutcome,
    build_changes,
    check_writable,
    combine,
    edits_for,
    write_all,
)
from initlint.fix.ops import FixPlan
from initlint.fix.planner import Planner
from initlint.fix.transform import FixError
from initlint.rules.base import Finding
from initlint.settings import Settings


def fix_planner(analysis: Analysis, finding: Finding) -> tuple[Fix, object] | None:
    """Engine callback: a Fix (with edits) and its plan for one finding, or None."""
    assert analysis.simulator is not None
    planner = Planner(analysis.simulator, analysis.settings.flag_name)
    plan = planner.plan(finding)
    if plan is None:
        return None
    # Edits are rendered on demand (attach_edits): text output only needs the plan.
    return Fix(plan.applicability, plan.message), plan


def attach_edits(analysis: Analysis) -> None:
    """Render every planned fix into edits (for JSON/SARIF). A fix that cannot be rendered
    correctly is withdrawn: a fix that cannot be made correct is not offered."""
    out = []
    for d in analysis.diagnostics:
        plan = analysis.plans.get(d)
        if not isinstance(plan, FixPlan) or d.fix is None:
            out.append(d)
            continue
        display = {op.path: analysis.display(op.path) for op in plan.ops}
        try:
            new = replace(d, fix=replace(d.fix, edits=edits_for(plan, display)))
        except (FixError, OSError, UnicodeError):
            new = replace(d, fix=None)
        del analysis.plans[d]
        if new.fix is not None:
            analysis.plans[new] = plan
        out.append(new)
    analysis.diagnostics = out


def plans_of(analysis: Analysis) -> list[tuple[Diagnostic, FixPlan]]:
    out = []
    for d in analysis.diagnostics:
        plan = analysis.plans.get(d)
        if isinstance(plan, FixPlan):
            out.append((d, plan))
    return out


def run_fix(
    paths: list[Path],
    *,
    unsafe: bool,
    write: bool,
    overrides: Callable[[Settings], Settings] | None = None,
    settings: Settings | None = None,
    jobs: int = 0,
    use_cache: bool = True,
    cwd: Path | None = None,
) -> tuple[Analysis, FixOutcome, Analysis | None]:
    """Analyse, apply the fixes (safe ones, or all with ``unsafe``), and re-check.

    Returns (analysis before, outcome, analysis after writing or None when not written).
    """
    before = analyze(
        paths,
        cwd=cwd,
        settings=settings,
        overrides=overrides,
        jobs=jobs,
        use_cache=use_cache,
        fix_planner=fix_planner,
    )
    per_file, outcome = combine(plans_of(before), unsafe)
    build_changes(per_file, outcome)
    if not write or not outcome.changes:
        return before, outcome, None
    check_writable(outcome.changes, before.root)
    write_all(outcome.changes)
    after = analyze(
        paths, cwd=cwd, settings=settings, overrides=overrides, jobs=jobs, use_cache=use_cache
    )
    return before, outcome, after

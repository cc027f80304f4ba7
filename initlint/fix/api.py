"""The fixer API: plan fixes during analysis, then render, check and write them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic, Fix
from initlint.engine import Analysis, analyze
from initlint.fix.apply import (
    FileChange,
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
from initlint.fix.verify import verify
from initlint.rules.base import Finding
from initlint.settings import Settings


def fix_planner(analysis: Analysis, finding: Finding) -> tuple[Fix, object] | None:
    """Engine callback: a Fix (with edits) and its plan for one finding, or None."""
    assert analysis.simulator is not None
    planner = Planner(analysis.simulator, analysis.settings.flag_name)
    try:
        plan = planner.plan(finding)
    except RecursionError:
        return None  # too deeply nested to rewrite safely: report without a fix
    if plan is None:
        return None
    # Edits are rendered, and plans verified, on demand: text output only needs the plan.
    return Fix(plan.applicability, plan.message), (plan, finding)


def attach_edits(analysis: Analysis) -> None:
    """Render every planned fix into edits (for JSON/SARIF). A fix that cannot be rendered
    correctly is withdrawn: a fix that cannot be made correct is not offered."""
    out = []
    for d in analysis.diagnostics:
        entry = analysis.plans.get(d)
        if not isinstance(entry, tuple) or d.fix is None:
            out.append(d)
            continue
        plan, finding = entry
        display = {op.path: analysis.display(op.path) for op in plan.ops}
        try:
            if verify(analysis, plan, finding) is not None:
                raise FixError("unsound")
            new = replace(d, fix=replace(d.fix, edits=edits_for(plan, display)))
        except (FixError, OSError, UnicodeError):
            new = replace(d, fix=None)
        del analysis.plans[d]
        if new.fix is not None:
            analysis.plans[new] = entry
        out.append(new)
    analysis.diagnostics = out


def plans_of(analysis: Analysis, outcome: FixOutcome) -> list[tuple[Diagnostic, FixPlan]]:
    """The verified plans; the others are recorded as failed in ``outcome``."""
    out = []
    for d in analysis.diagnostics:
        entry = analysis.plans.get(d)
        if not isinstance(entry, tuple):
            continue
        plan, finding = entry
        why = verify(analysis, plan, finding)
        if why is None:
            out.append((d, plan))
        else:
            outcome.withdrawn.append((d, why))
    return out


MAX_PASSES = 4


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

    def run(planner: object) -> Analysis:
        return analyze(
            paths,
            cwd=cwd,
            settings=settings,
            overrides=overrides,
            jobs=jobs,
            use_cache=use_cache,
            fix_planner=planner,  # type: ignore[arg-type]
        )

    first = current = run(fix_planner)
    total = FixOutcome()
    after: Analysis | None = None
    # Like ruff, apply fixes in passes until nothing changes: one fix can unmask another.
    for _ in range(MAX_PASSES if write else 1):
        failed: FixOutcome = FixOutcome()
        per_file, outcome = combine(plans_of(current, failed), unsafe)
        outcome.withdrawn = failed.withdrawn
        build_changes(per_file, outcome)
        total.applied += outcome.applied
        total.skipped_unsafe = outcome.skipped_unsafe
        total.failed = outcome.failed
        total.withdrawn = outcome.withdrawn
        if not write or not outcome.changes:
            if not write:
                total.changes = outcome.changes
            break
        check_writable(outcome.changes, current.root)
        write_all(outcome.changes)
        _merge_changes(total, outcome)
        after = current = run(fix_planner)
    return first, total, after


def _merge_changes(total: FixOutcome, outcome: FixOutcome) -> None:
    """Keep one change per file: its original bytes and its latest content."""
    by_path = {c.path: c for c in total.changes}
    for c in outcome.changes:
        old = by_path.get(c.path)
        by_path[c.path] = c if old is None else FileChange(c.path, old.old, c.new)
    total.changes = list(by_path.values())

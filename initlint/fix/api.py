"""The fixer API: plan fixes during analysis (``propose``), then render, check and write
them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze
from initlint.fix.apply import (
    FileChange,
    FixOutcome,
    build_changes,
    check_writable,
    combine,
    edits_for,
    write_all,
)
from initlint.fix.propose import fix_planner
from initlint.fix.transform import FixError
from initlint.fix.verify import Verifier
from initlint.fixplan import FixPlan
from initlint.pipeline.analysis import Analysis, FixPlanner
from initlint.settings import Settings


def attach_edits(analysis: Analysis) -> None:
    """Render every planned fix into edits (for JSON/SARIF). A fix that cannot be rendered
    correctly is withdrawn: a fix that cannot be made correct is not offered. Whatever goes
    wrong while rendering or checking one fix withdraws that fix only."""
    verifier = Verifier(analysis)
    out = []
    for d in analysis.diagnostics:
        entry = analysis.plans.get(d)
        if entry is None or d.fix is None:
            out.append(d)
            continue
        plan, finding = entry
        try:
            display = {op.path: analysis.display(op.path) for op in plan.ops}
            if verifier.verify(plan, finding) is not None:
                raise FixError("unsound")
            new = replace(d, fix=replace(d.fix, edits=edits_for(plan, display)))
        except Exception:  # noqa: BLE001 - libcst can fail anywhere on hostile input
            new = _without_fix(d)
        del analysis.plans[d]
        if new.fix is not None:
            analysis.plans[new] = entry
        out.append(new)
    analysis.diagnostics = out


def _without_fix(d: Diagnostic) -> Diagnostic:
    """``d`` with its fix withdrawn, and its message saying so."""
    message = d.message
    if d.fix is not None:
        tag = f" [fix: {d.fix.applicability}]"
        if message.endswith(tag):
            message = message[: -len(tag)] + " [no fix]"
    return replace(d, fix=None, message=message)


def plans_of(analysis: Analysis, outcome: FixOutcome) -> list[tuple[Diagnostic, FixPlan]]:
    """The verified plans; the others are recorded as failed in ``outcome``."""
    verifier = Verifier(analysis)
    out = []
    for d in analysis.diagnostics:
        entry = analysis.plans.get(d)
        if entry is None:
            continue
        plan, finding = entry
        try:
            why = verifier.verify(plan, finding)
        except Exception as exc:  # noqa: BLE001 - verify() does not raise; be sure of it
            why = f"the fix could not be checked ({type(exc).__name__})"
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

    def run(planner: FixPlanner) -> Analysis:
        return analyze(
            paths,
            cwd=cwd,
            settings=settings,
            overrides=overrides,
            jobs=jobs,
            use_cache=use_cache,
            fix_planner=planner,
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

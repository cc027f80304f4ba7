"""The engine's fix callback: plan a fix for one finding. No libcst here, so that
``initlint check`` never imports it; rendering and checking edits live in ``api``."""

from __future__ import annotations

from initlint.diagnostics import Fix
from initlint.engine import Analysis
from initlint.rules.base import Finding
from initlint.simulation.engine import SimulationLimit


def fix_planner(analysis: Analysis, finding: Finding) -> tuple[Fix, object] | None:
    """Engine callback: a Fix (without edits yet) and its plan for one finding, or None."""
    from initlint.fix.planner import Planner  # only when there is a finding to plan for

    assert analysis.simulator is not None
    planner = Planner(analysis.simulator, analysis.settings.flag_name)
    try:
        plan = planner.plan(finding)
    except (RecursionError, SimulationLimit):
        return None  # too deep to rewrite safely: report without a fix
    if plan is None:
        return None
    # Edits are rendered, and plans verified, on demand: text output only needs the plan.
    files = tuple(sorted({str(op.path) for op in plan.ops}))
    return Fix(plan.applicability, plan.message, files=files), (plan, finding)

"""The check's fix callback (``pipeline.analysis.FixPlanner``): propose a fix for one
finding. No libcst here, so that ``initlint check`` never imports it; rendering and
checking edits live in ``api``."""

from __future__ import annotations

from initlint.diagnostics import Fix
from initlint.pipeline.analysis import Analysis
from initlint.rules.base import Finding
from initlint.simulation.engine import SimulationLimit


def fix_planner(analysis: Analysis, finding: Finding) -> tuple[Fix, object] | str | None:
    """The check's callback: a Fix (without edits yet) and its plan for one finding, or why there
    is none (a string, maybe empty)."""
    from initlint.fix.planner import Planner  # only when there is a finding to plan for

    assert analysis.simulator is not None
    planner = Planner(analysis.simulator, analysis.settings.flag_name, root=analysis.root)
    try:
        plan = planner.plan(finding)
    except (RecursionError, SimulationLimit):
        return "the construction is too deep to rewrite safely"
    if plan is None:
        return planner.reason or None
    # Edits are rendered, and plans verified, on demand: text output only needs the plan.
    files = tuple(sorted({str(op.path) for op in plan.ops}))
    return Fix(plan.applicability, plan.message, files=files), (plan, finding)

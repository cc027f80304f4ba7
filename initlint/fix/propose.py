"""The check's fix callback (``pipeline.analysis.FixPlanner``): propose a fix for one
finding. No libcst here, so that ``initlint check`` never imports it; rendering and
checking edits live in ``api``."""

from __future__ import annotations

from initlint.diagnostics import Fix
from initlint.pipeline.analysis import Analysis, FixProposal, NoFix, PlannedFix, Proposed
from initlint.rules.base import Finding
from initlint.simulation.records import SimulationLimit


def fix_planner(analysis: Analysis, finding: Finding) -> FixProposal:
    """The check's callback: a Fix (without edits yet) and its plan for one finding, or why there
    is none (maybe nothing to say)."""
    from initlint.fix.planner import Planner  # only when there is a finding to plan for

    planner = Planner(analysis.simulator, analysis.settings.flag_name, root=analysis.root)
    try:
        plan = planner.plan(finding)
    except (RecursionError, SimulationLimit):
        return NoFix("the construction is too deep to rewrite safely")
    if plan is None:
        return NoFix(planner.reason)
    # Edits are rendered, and plans verified, on demand: text output only needs the plan.
    files = tuple(sorted({str(op.path) for op in plan.ops}))
    return Proposed(Fix(plan.applicability, plan.message, files=files), PlannedFix(plan, finding))

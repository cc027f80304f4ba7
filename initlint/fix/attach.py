"""Fix edits for JSON and SARIF, made while the per-file results are, and stored with them
(``pipeline.analysis.FixAttacher``): a warm run renders and checks only the fixes of the files it
checks again. The edits and the checks are those of ``api.attach_edits``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.fix.keys import finding_key
from initlint.fixplan import FixPlan
from initlint.pipeline.analysis import Analysis, FindingKey
from initlint.rules.base import Finding


class EditAttacher:
    """Renders each fresh fix into edits, after the checks ``initlint check --format json``
    makes; a fix that fails them is withdrawn (as ``api.attach_edits`` does)."""

    def keys(self, findings: list[Finding]) -> frozenset[FindingKey]:
        return frozenset(finding_key(f) for f in findings)

    def edited(self, analysis: Analysis, diag: Diagnostic) -> frozenset[Path]:
        plan = self._plan(analysis, diag)
        return frozenset(op.path for op in plan.ops) if plan is not None else frozenset()

    def attach(
        self, analysis: Analysis, diags: list[Diagnostic], known: frozenset[FindingKey]
    ) -> dict[Diagnostic, Diagnostic]:
        # Rendering and checking need libcst: imported only when there is a fix to check (a
        # warm run whose changed files offer none never pays for it).
        from initlint.fix.apply import edits_for
        from initlint.fix.transform import FixError
        from initlint.fix.verify import Verifier

        verifier = Verifier(analysis)
        # The findings of files this run did not check are known as a run over all of them
        # would know them.
        verifier.known |= known
        verifier.with_findings |= {k[0] for k in known}
        out = {}
        for d in diags:
            entry = analysis.plans.get(d)
            if entry is None or d.fix is None:
                continue
            plan, finding = entry
            why: str | None = None
            try:
                display = {op.path: analysis.display(op.path) for op in plan.ops}
                why = verifier.verify(plan, finding)
                if why is not None:
                    raise FixError(why)
                out[d] = replace(d, fix=replace(d.fix, edits=edits_for(plan, display)))
            except Exception:  # noqa: BLE001 - libcst can fail anywhere on hostile input
                # The planned edit did not survive its check: say so rather than go quiet.
                reason = why or "its edits could not be rendered"
                out[d] = replace(d, fix=None, no_fix=f"the planned fix failed its check: {reason}")
        return out

    @staticmethod
    def _plan(analysis: Analysis, diag: Diagnostic) -> FixPlan | None:
        entry = analysis.plans.get(diag)
        return entry.plan if entry is not None else None

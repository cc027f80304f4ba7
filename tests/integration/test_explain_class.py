"""``initlint explain-class``: the simulated construction of one class, with decisions."""

from __future__ import annotations

import shutil
from pathlib import Path

from integration.conftest import Project

CASES = Path(__file__).parents[1] / "fixtures" / "check"


def _copy(project: Project, case: str) -> None:
    shutil.copytree(CASES / case / "pkg", project.root / "pkg")


def test_events_and_decisions(project: Project) -> None:
    _copy(project, "exclusive_guards")
    run = project.invoke("explain-class", "pkg.attention:LowRankAttention")
    assert run.code == 0, run.stderr
    out = run.stdout
    assert out.startswith("class pkg.attention.LowRankAttention (pkg/attention.py:15)\n")
    assert "MRO: pkg.attention.LowRankAttention -> pkg.attention.LatentAttention" in out
    assert (
        "  #3     assign self.q_proj  pkg/attention.py:9  in LatentAttention.__init__  "
        "[guard unknown; ancestor; cost heavy; assumes config.q_lora_rank == None]"
    ) in out
    assert "#6   no finding: its guard excludes the ancestor's (#3): never both run" in out


def test_a_reported_repeat_and_nested_work(project: Project) -> None:
    _copy(project, "work_into_local")
    out = project.invoke("explain-class", "pkg.data.CleanTable").stdout  # dotted form too
    assert "#5   IL002 error: `self.load()` repeats #3 at pkg/data.py:8 (cost heavy)" in out
    assert "#6   no finding: inside the call #5, reported as IL002" in out
    assert (
        "fill self.rows  pkg/data.py:14  in Table.load  [guard unknown; ancestor; cost heavy"
        in (out)
    )


def test_light_and_derived(project: Project) -> None:
    _copy(project, "clean_derived_value")
    out = project.invoke("explain-class", "pkg.rotary:ScaledRotary").stdout
    assert "derived from its current value" in out
    assert "no finding: computed from the current value of `inv_freq`" in out


def test_unknown_class(project: Project) -> None:
    _copy(project, "work_into_local")
    run = project.invoke("explain-class", "pkg.data:Nope")
    assert run.code == 2
    assert "no class 'pkg.data:Nope'" in run.stderr


def test_a_deletion_rules_out_the_other_branch(project: Project) -> None:
    _copy(project, "delete_shows_branch")
    out = project.invoke("explain-class", "pkg.attn:SplitLatentAttention").stdout
    lines = out.splitlines()
    deleted = next(ln for ln in lines if "delete self.fused_in  pkg/attn.py:28" in ln)
    number = deleted.split()[0]  # "#7": the numbering depends on torch being installed
    decision = next(ln for ln in lines if f"it deletes `fused_in` first ({number})" in ln)
    assert "which only an ancestor branch that excludes" in decision
    assert decision.rstrip().endswith("builds: that build never ran")

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
        "[guard unknown; ancestor; cost heavy: nn.Linear(...): torch.nn.Linear, by what "
        "initlint knows of torch; assumes config.q_lora_rank == None]"
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


def test_a_call_with_the_same_text_and_other_values(project: Project) -> None:
    _copy(project, "call_args_by_value")
    out = project.invoke("explain-class", "pkg.tables:SkippingTable").stdout
    assert "no finding: called with other arguments than #" in out
    assert "(`names` differs): a different computation" in out
    out = project.invoke("explain-class", "pkg.tables:CasedTable").stdout
    assert "(the value of `names` is not known on both sides)" in out
    out = project.invoke("explain-class", "pkg.tables:ChosenTable").stdout
    assert "IL002 error (possibly): `self.add_names(RESERVED, reserve)` repeats #" in out


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


def test_a_class_through_a_default_or_a_builder(project: Project) -> None:
    """What a class's own default builds is only possibly that class (a caller may pass
    another); a builder that may return something else builds only possibly: the event
    says why, with its guard still true."""
    _copy(project, "class_default_param")
    out = project.invoke("explain-class", "pkg.variants:ChosenLayer").stdout
    assert (
        "assign self.mixer  pkg/layers.py:16  in Layer.__init__  [guard true; ancestor; "
        "possibly: the class is the default of the constructed class's own `mixer_cls`: a "
        "caller may pass another; cost heavy: from what the frame's locals and arguments "
        "hold]"
    ) in out
    assert "IL003 error (possibly): `self.mixer` repeats #" in out
    # an ancestor's default counts: the part the default Mixer built is found
    out = project.invoke("explain-class", "pkg.draft:DraftLayer").stdout
    assert "MRO: pkg.draft.DraftLayer -> pkg.layers.Layer" in out
    assert "IL003 error: `self.mixer.inp` (a part of the Mixer that Layer.__init__" in out


def test_a_builder_that_may_return_none(project: Project) -> None:
    shutil.rmtree(project.root / "pkg", ignore_errors=True)
    _copy(project, "builder_spec")
    out = project.invoke("explain-class", "pkg.variants:MlpBlock").stdout
    assert "possibly: the builder build_optional() may return something else" in out


def test_where_a_cost_comes_from(project: Project) -> None:
    """Each cost says where it came from: the construction simulated (one level into it),
    what initlint knows of torch, or why it is not known."""
    (project.root / "pkg").mkdir()
    (project.root / "pkg" / "__init__.py").write_text("")
    (project.root / "pkg" / "m.py").write_text(
        "import torch\n"
        "from torch import nn\n"
        "from pkg.registry import BUILDERS\n\n\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, d):\n"
        "        super().__init__()\n"
        "        self.table = torch.zeros(d, d)\n\n\n"
        "class Model(nn.Module):\n"
        "    def __init__(self, d, kind='a'):\n"
        "        super().__init__()\n"
        "        self.block = Block(d)\n"
        "        self.head = BUILDERS[kind](d)\n"
        "        self.bias = torch.zeros(d)\n"
    )
    (project.root / "pkg" / "registry.py").write_text("BUILDERS = {}\n")
    out = project.invoke("explain-class", "pkg.m:Model").stdout
    assert (
        "cost heavy: Block(...): builds pkg.m.Block (m.py:6), where line 9: "
        "torch.zeros(...): torch.zeros, by what initlint knows of torch]"
    ) in out
    assert "cost unknown: a computed callable(...): a callable computed at run time" in out
    assert "cost unknown: torch.zeros(...): torch.zeros, by what initlint knows of torch" in out


def test_python_option_reads_the_environment_and_a_bad_one_is_an_error(project: Project) -> None:
    _copy(project, "exclusive_guards")
    run = project.invoke(
        "explain-class", "--python", str(project.root / "missing"), "pkg.attention:LowRankAttention"
    )
    assert run.code == 2
    assert run.stderr.startswith("error: --python:"), run.stderr
    assert "internal error" not in run.stderr


def test_a_replaced_part_of_a_submodule(project: Project) -> None:
    """The first build of a submodule's part is an event of the submodule's construction,
    which the class's own list does not number: the decision names where it is."""
    project.write(
        "pkg/wave.py",
        """\
        import torch
        from torch import nn


        class Filter(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(n, n))


        class Wave(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.h = Filter(n)
                self.h.weight = nn.Parameter(torch.eye(n))
        """,
    )
    run = project.invoke("explain-class", "pkg.wave:Wave")
    assert run.code == 0, run.stderr
    assert "IL005 error: `self.h.weight` (a part of the Filter" in run.stdout
    assert "replaced before anything read it: the build at pkg/wave.py:8, " in run.stdout


def test_a_held_module_s_method_run_again_that_builds_and_fills(project: Project) -> None:
    # two findings at one statement, each naming work of the held module's construction
    project.write(
        "pkg/blocks.py",
        """
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self, d=1024):
                super().__init__()
                self.d = d
                self.big = nn.Linear(d, 8 * d)
                self.reset()

            def reset(self):
                self.gate = nn.Linear(self.d, 64)
                nn.init.orthogonal_(self.big.weight)


        class Held(nn.Module):
            def __init__(self, d=4096):
                super().__init__()
                self.block = Block(d)
                self.block.reset()
        """,
    )
    run = project.invoke("explain-class", "pkg.blocks:Held")
    assert run.code == 0, run.stderr
    # (the block built with d=4096: its gate holds 4096 x 64 numbers, a mebibyte)
    assert "IL005 error: `self.block.gate`" in run.stdout
    assert "the initialisation of `self.block.big.weight` done again" in run.stdout

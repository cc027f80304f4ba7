"""A fix that cannot be rendered or checked is withdrawn, whatever the exception; and the fast
check re-simulates the classes that read an edited module, not only the subclasses."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.fix import api, verify
from initlint.fix.api import attach_edits, plans_of, run_fix
from initlint.fix.apply import FixOutcome
from initlint.fix.propose import fix_planner
from initlint.fix.verify import Verifier
from initlint.pipeline.analysis import Analysis
from initlint.simulation.engine import Simulator

BASE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))
"""
REDO = """
class Redo(Base):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))
"""


class Unprintable(KeyError):
    def __str__(self) -> str:
        raise RecursionError("maximum recursion depth exceeded")


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    for rel, text in {"pyproject.toml": "[project]\nname = 'p'\n", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _analysis(root: Path) -> Analysis:
    return analyze([root], cwd=root, use_cache=False, fix_planner=fix_planner, progress=False)


@pytest.mark.parametrize("error", [RecursionError, Unprintable, ValueError])
def test_render_failure_withdraws_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    root = _project(tmp_path, {"m.py": BASE + REDO})

    def render(*args: object, **kwargs: object) -> object:
        raise error()

    monkeypatch.setattr(verify, "render", render)
    analysis = _analysis(root)
    (d,) = analysis.diagnostics
    assert d.fix is not None and d.message.endswith("[fix: safe]")
    attach_edits(analysis)
    (d,) = analysis.diagnostics
    assert d.fix is None and d.code == "IL001"
    assert d.message.endswith("[no fix]")
    assert d not in analysis.plans

    outcome = FixOutcome()
    assert plans_of(_analysis(root), outcome) == []
    ((withdrawn, why),) = outcome.withdrawn
    assert withdrawn.code == "IL001" and error.__name__ in why


def test_edits_failure_withdraws_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, {"m.py": BASE + REDO})

    def edits_for(*args: object, **kwargs: object) -> object:
        raise Unprintable()

    monkeypatch.setattr(api, "edits_for", edits_for)
    analysis = _analysis(root)
    attach_edits(analysis)
    (d,) = analysis.diagnostics
    assert d.fix is None and d.message.endswith("[no fix]")


def test_simulation_failure_on_the_fixed_sources_withdraws_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, {"m.py": BASE + REDO})
    analysis = _analysis(root)
    original = analysis.simulator
    real = Simulator.needs_simulation

    def needs_simulation(self: Simulator, *args: object, **kwargs: object) -> object:
        if self is not original:
            raise Unprintable()
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Simulator, "needs_simulation", needs_simulation)
    (d,) = analysis.diagnostics
    plan, finding = analysis.plans[d]  # type: ignore[misc]
    why = Verifier(analysis).verify(plan, finding)
    assert why is not None and "could not be checked" in why and "Unprintable" in why
    attach_edits(analysis)
    assert [x.fix for x in analysis.diagnostics] == [None]


def test_fix_command_reports_the_withdrawn_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, {"m.py": BASE + REDO})
    monkeypatch.setattr(verify, "render", lambda *a, **k: (_ for _ in ()).throw(Unprintable()))
    before, outcome, after = run_fix([root], unsafe=True, write=True, use_cache=False, cwd=root)
    assert outcome.changes == [] and after is None
    ((d, why),) = outcome.withdrawn
    assert d.code == "IL001" and "Unprintable" in why
    assert (root / "m.py").read_text(encoding="utf-8") == BASE + REDO


HELPER = """\
import torch


class Helper:
    def __init__(self):
        self.t = torch.zeros(4)
"""
USER = """\
import torch

from pkg.base import Base
from pkg.helper import Helper


class User(Base):
    def __init__(self):
        super().__init__()
        self.h = Helper()
        self.register_buffer("cache", torch.zeros(4))
"""


def test_classes_reading_an_edited_module_are_simulated_again(tmp_path: Path) -> None:
    """User's base is not in pkg.helper, but its check reads it (what does Helper() cost?):
    an edit there must re-simulate User. An edit in a module it never reads must not."""
    root = _project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE,
            "pkg/helper.py": HELPER,
            "pkg/user.py": USER,
            "pkg/other.py": "class Other:\n    pass\n",
        },
    )
    analysis = _analysis(root)
    assert {d.class_name for d in analysis.diagnostics} == {"pkg.user.User"}
    verifier = Verifier(analysis)
    mods = analysis.index.modules
    reads = verifier._record_reads("pkg.user.User")
    assert reads is not None and {"pkg.user", "pkg.base", "pkg.helper"} <= reads
    assert verifier._reads_any("pkg.user.User", {"pkg.helper": mods["pkg.helper"]})
    other = analysis.index.module("pkg.other")
    assert other is not None
    assert not verifier._reads_any("pkg.user.User", {"pkg.other": other})
    # And the plan is still verified as sound.
    (d,) = analysis.diagnostics
    plan, finding = analysis.plans[d]  # type: ignore[misc]
    assert verifier.verify(plan, finding) is None


SIBLINGS = """
class Sibling(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.zeros(2))
        self.base = Base()


class Leaf(Sibling):
    def __init__(self):
        super().__init__()
"""


def test_only_the_classes_under_an_edited_class_are_simulated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fix edits Base and Redo: the classes with either in their MRO (Redo, and Deeper in
    another file) are simulated again; Sibling, in the same file, and its subclass are not
    (Sibling builds a Base, but none of Base's code runs as part of its own construction)."""
    root = _project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE + REDO + SIBLINGS,
            "pkg/deep.py": "from pkg.base import Redo\n\n\nclass Deeper(Redo):\n    pass\n",
        },
    )
    analysis = _analysis(root)
    (d,) = [d for d in analysis.diagnostics if d.class_name == "pkg.base.Redo"]
    plan, finding = analysis.plans[d]  # type: ignore[misc]
    verifier = Verifier(analysis)
    mods = analysis.index.modules
    ops: dict[Path, list[object]] = {}
    for op in plan.ops:
        ops.setdefault(op.path, []).append(op)
    edited = {n: m for n, m in mods.items() if m.path in ops}
    under = verifier._under_edit(edited, ops)  # type: ignore[arg-type]
    assert "pkg.base.Redo" in under and "pkg.deep.Deeper" in under
    assert not {"pkg.base.Sibling", "pkg.base.Leaf"} & under
    seen: list[str] = []
    simulate = Simulator.simulate

    def counting(self: Simulator, cls, inject=None):  # type: ignore[no-untyped-def]
        if self is not analysis.simulator:
            seen.append(cls.qualname)
        return simulate(self, cls, inject)

    monkeypatch.setattr(Simulator, "simulate", counting)
    verifier.verify(plan, finding)
    assert "pkg.deep.Deeper" in seen  # (Redo, only passing on once fixed, needs none)
    assert "pkg.base.Sibling" not in seen and "pkg.base.Leaf" not in seen

"""Check a fix plan before it is offered or written: re-simulate on the fixed sources.

The edited files' facts are re-extracted from the fixed text and overlaid on the project
index; every class whose MRO touches an edited file is simulated again. The plan passes when
its finding is gone and no class gains a finding it did not have.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from initlint.engine import Analysis
from initlint.facts.extract import extract_facts
from initlint.fix.apply import render
from initlint.fix.ops import FixPlan, Op
from initlint.fix.transform import FixError
from initlint.index.project import ProjectIndex
from initlint.rules.base import Finding
from initlint.rules.repeats import find_disabled, find_repeats
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.sources import UnreadableError, decode


def _key(f: Finding) -> tuple[str, str, str, str]:
    ev = f.event if f.event is not None else f.first
    kind, name = (ev.kind, ev.name) if ev is not None else ("", "")
    return f.sim.cls.qualname, f.code, kind, name


def _findings(sim: Simulator, index: ProjectIndex, classes: Iterable[str]) -> set[tuple[str, ...]]:
    """Finding keys of ``classes``, plus one ("conflict", class) key per class whose
    construction would pass an argument twice."""
    out: set[tuple[str, ...]] = set()
    for qual in classes:
        info = index.class_info(qual)
        if info is None or not sim.needs_simulation(info):
            continue
        result = sim.simulate(info)
        if result is not None:
            out |= {_key(f) for f in (*find_repeats(result), *find_disabled(result))}
            if result.conflicts:
                out.add((qual, "conflict", "", ""))
    return out


def verify(analysis: Analysis, plan: FixPlan, finding: Finding) -> str | None:
    """None when the plan is sound; else why it is not."""
    by_file: dict[Path, list[Op]] = {}
    for op in plan.ops:
        by_file.setdefault(op.path, []).append(op)
    index = analysis.index
    overlay = ProjectIndex(dict(index.module_paths), index.load)
    try:
        fixed = {p: extract_facts(decode(render(p, ops).new)[0]) for p, ops in by_file.items()}
    except (FixError, OSError, UnicodeError, UnreadableError) as exc:
        return str(exc)
    for name, mod in index.modules.items():
        if mod.path in fixed:
            overlay.add_module(name, mod.path, mod.is_package, fixed[mod.path])
        else:
            overlay.modules[name] = mod
    settings = analysis.settings
    cost = CostModel(overlay, settings.expensive_calls, settings.cheap_calls)
    after_sim = Simulator(overlay, cost)
    edited = {m.name for m in index.modules.values() if m.path in fixed}
    touched = set()
    for f in analysis.findings:
        touched.add(f.sim.cls.qualname)
    for mod in list(index.modules.values()):
        for info in index.classes_of(mod):
            mro = index.mro(info.qualname).classes
            if any(
                q.rsplit(".", 1)[0] in edited or q.startswith(tuple(e + "." for e in edited))
                for q in mro
            ):
                touched.add(info.qualname)
    assert analysis.simulator is not None
    before: set[tuple[str, ...]] = {_key(f) for f in analysis.findings}
    before |= {
        k for k in _findings(analysis.simulator, index, sorted(touched)) if k[1] == "conflict"
    }
    after = _findings(after_sim, overlay, sorted(touched))
    if _key(finding) in after:
        return "the fix would not remove the finding"
    new = sorted(after - before)
    if new:
        cls, code, _, name = new[0]
        if code == "conflict":
            return (
                f"the fix would pass an argument twice when constructing {cls.rsplit('.', 1)[-1]}"
            )
        return f"the fix would cause {code} on {cls.rsplit('.', 1)[-1]} (`{name}`)"
    return None

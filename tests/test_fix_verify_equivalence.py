"""The fast fix check gives the verdicts, texts and edits of the straightforward one.

``fix.verify.Verifier`` re-simulates only the classes an edit can reach and remembers what does
not depend on the plan; ``fix.transform.rewrite`` visits only the top-level statements that hold
an op and parses only what changed. Here both are compared with a copy of the straightforward
code they replaced (one whole-module libcst visit per render, every touched class simulated
again per plan): on the fixture projects, on generated hierarchies, and on every single op a
file can take.
"""

from __future__ import annotations

import ast
import difflib
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from initlint.driver import analyze
from initlint.facts.extract import extract_facts
from initlint.fix.api import attach_edits
from initlint.fix.applier import OpApplier
from initlint.fix.apply import BOM, FileChange, render
from initlint.fix.partial_parse import PIECE_HEADER
from initlint.fix.propose import fix_planner
from initlint.fix.transform import FixError, rewrite
from initlint.fix.verify import Verifier, _findings, _key
from initlint.fixplan import (
    AddParam,
    DeleteStatement,
    FixPlan,
    InsertBefore,
    Op,
    SetKeyword,
    WrapInIf,
)
from initlint.index.project import ProjectIndex
from initlint.pipeline.analysis import Analysis
from initlint.rules.base import Finding
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.sources import UnreadableError, decode, read_bytes

FIXTURES = Path(__file__).parent / "fixtures"


# -- the straightforward code, as it was ---------------------------------------------------------
def old_apply_ops(source: str, ops: Sequence[Op]) -> str:
    module = cst.parse_module(source)
    applier = OpApplier(module, source.splitlines(), ops)
    new = MetadataWrapper(module, unsafe_skip_copy=True).visit(applier)
    if applier.pending:
        missing = ", ".join(sorted(type(o).__name__ for o in applier.pending))
        raise FixError(f"could not place edit(s): {missing}")
    return new.code


def old_render(path: Path, ops: Sequence[Op]) -> FileChange:
    data = read_bytes(path)
    text, encoding = decode(data)
    new_text = old_apply_ops(text, ops)
    try:
        cst.parse_module(new_text)
        ast.parse(new_text)
    except (cst.ParserSyntaxError, SyntaxError) as exc:
        raise FixError(f"the fixed {path.name} would not parse: {exc}") from exc
    new = new_text.encode(encoding)
    if data.startswith(BOM) and not new.startswith(BOM):
        new = BOM + new
    return FileChange(path, data, new)


def old_verify(analysis: Analysis, plan: FixPlan, finding: Finding) -> str | None:
    by_file: dict[Path, list[Op]] = {}
    for op in plan.ops:
        by_file.setdefault(op.path, []).append(op)
    index = analysis.index
    overlay = ProjectIndex(dict(index.module_paths), index.loader)
    try:
        fixed = {p: extract_facts(decode(old_render(p, ops).new)[0]) for p, ops in by_file.items()}
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
        k
        for k in _findings(analysis.simulator, index, sorted(touched))
        if k[1] in ("conflict", "strand", "has")
    }
    after = _findings(after_sim, overlay, sorted(touched))
    if _key(finding) in after:
        return "the fix would not remove the finding"
    lost = sorted(k for k in before - after if k[1] == "has")
    if lost:
        cls, _, _, name = lost[0]
        return f"the fix would leave {cls.rsplit('.', 1)[-1]} without `self.{name}`"
    new = sorted(after - before)
    if new:
        cls, code, reader, name = new[0]
        if code == "strand":
            return f"the fix would make {reader} read `self.{name}` before it is built"
        if code == "conflict":
            return (
                f"the fix would pass an argument twice when constructing {cls.rsplit('.', 1)[-1]}"
            )
        if code == "has":
            return (
                f"the fix would give {cls.rsplit('.', 1)[-1]} `self.{name}`, which it "
                "did not have: more work, or another model"
            )
        return f"the fix would cause {code} on {cls.rsplit('.', 1)[-1]} (`{name}`)"
    return None


def old_edits(plan: FixPlan) -> list[tuple[str, int, int, str]]:
    out = []
    by_file: dict[Path, list[Op]] = {}
    for op in plan.ops:
        by_file.setdefault(op.path, []).append(op)
    for path, ops in by_file.items():
        change = old_render(path, ops)
        old = decode(change.old)[0].splitlines(keepends=True)
        new = decode(change.new)[0].splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                out.append((path.name, i1 + 1, i2 + 1, "".join(new[j1:j2])))
    return out


# -- comparing -------------------------------------------------------------------------------------
def _planned(analysis: Analysis) -> list[tuple[FixPlan, Finding]]:
    out = []
    for d in analysis.diagnostics:
        entry = analysis.plans.get(d)
        if isinstance(entry, tuple):
            out.append(entry)  # type: ignore[arg-type]
    return out


def _old_outcome(plan: FixPlan, finding: Finding, analysis: Analysis) -> object:
    try:
        why = old_verify(analysis, plan, finding)
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__)
    if why is not None:
        return ("withdrawn", why)
    try:
        return ("offered", old_edits(plan))
    except FixError as exc:
        return ("withdrawn", str(exc))


def compare_project(root: Path) -> int:
    """Verdicts (and edits) of every plan in the project, old and new. Returns how many."""
    old = analyze([root], cwd=root, use_cache=False, fix_planner=fix_planner, progress=False)
    new = analyze([root], cwd=root, use_cache=False, fix_planner=fix_planner, progress=False)
    old_plans, new_plans = _planned(old), _planned(new)
    assert [p for p, _ in old_plans] == [p for p, _ in new_plans]
    expected = [_old_outcome(plan, f, old) for plan, f in old_plans]
    verifier = Verifier(new)
    got: list[object] = []
    for plan, f in new_plans:
        why = verifier.verify(plan, f)
        if why is not None:
            got.append(("withdrawn", why))
            continue
        try:
            got.append(("offered", [(Path(p).name, a, b, t) for p, a, b, t in _edits(plan)]))
        except FixError as exc:
            got.append(("withdrawn", str(exc)))
    assert got == expected
    # And through attach_edits (a Verifier of its own): the same fixes offered.
    offered = [o for o in expected if isinstance(o, tuple) and o[0] == "offered"]
    attach_edits(new)
    assert sum(d.fix is not None for d in new.diagnostics) == len(offered)
    return len(new_plans)


def _edits(plan: FixPlan) -> list[tuple[str, int, int, str]]:
    from initlint.fix.apply import edits_for

    return [(e.path, e.line, e.end_line, e.content) for e in edits_for(plan, {})]


def _projects() -> list[Path]:
    roots = [p / "in" for p in sorted((FIXTURES / "fix").iterdir()) if (p / "in").is_dir()]
    roots += [p for p in sorted((FIXTURES / "check").iterdir()) if p.is_dir()]
    roots += [p for p in sorted((FIXTURES / "autofix").iterdir()) if p.is_dir()]
    return roots


@pytest.mark.parametrize("root", _projects(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_projects_same_verdicts(root: Path, tmp_path: Path) -> None:
    import shutil

    work = tmp_path / "proj"
    shutil.copytree(root, work)
    if not (work / "pyproject.toml").exists():
        (work / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    compare_project(work)


# -- generated hierarchies (the property tests' generator) ---------------------------------------
sys.path.insert(0, str(Path(__file__).parent / "property"))
try:
    from gen_hierarchies import Program, programs, with_redo  # noqa: E402
    from hypothesis import HealthCheck, given, settings  # noqa: E402
    from hypothesis import strategies as st  # noqa: E402
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    programs = None
finally:
    sys.path.pop(0)


if programs is not None:

    @st.composite
    def redoing(draw: st.DrawFn) -> Program:
        """A program where a class and one of its ancestors do the same work (most generated
        programs have nothing to fix otherwise)."""
        return with_redo(draw, draw(programs()))

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(redoing())
    def test_generated_hierarchies_same_verdicts(tmp_path: Path, program: Program) -> None:
        import tempfile

        with tempfile.TemporaryDirectory(dir=tmp_path) as tmp:
            root = Path(tmp)
            for rel, text in program.files().items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
            compare_project(root)


# -- every single op a file can take: the per-statement rewrite equals the whole-module one ------
TRICKY = '''\
#!/usr/bin/env python
# header comment

"""Module docstring."""
import torch
from torch import nn  # trailing comment

X = 1; Y = 2


def helper(a, b=2, *args, **kw):
    if a:
        return torch.zeros(b)
    return None


@decorator(1)
@other
class A(nn.Module):
    """Doc."""

    def __init__(self, n=4, *, flag=True):
        super().__init__()
        self.register_buffer("cache", torch.zeros(n))  # comment
        if flag:
            self.table = torch.ones(n)
        x = helper(n)
        self.other = x

    # a comment between methods

    def forward(self, x):
        return x


class B(A):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.register_buffer("cache", torch.zeros(4))
        class Inner: pass

    class Nested(nn.Module):
        def __init__(self): super().__init__(); self.t = torch.zeros(1)


if __name__ == "__main__":
    B()
# footer comment

'''


def _ops_of(path: Path, source: str) -> list[Op]:
    """One op of each kind on every place it can go (and a few where it cannot)."""
    tree = ast.parse(source)
    ops: list[Op] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            ops.append(SetKeyword(path, node.lineno, node.col_offset, "init_x", "False"))
            ops.append(SetKeyword(path, node.lineno, node.col_offset, "n", "2", positional=0))
        elif isinstance(node, ast.FunctionDef):
            ops.append(AddParam(path, node.lineno, node.name, "init_x", False))
            ops.append(AddParam(path, node.lineno, node.name, "init_y", True))
        if isinstance(node, ast.stmt):
            attr = ""
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
                attr = node.targets[0].attr
            ops.append(DeleteStatement(path, node.lineno))
            ops.append(InsertBefore(path, node.lineno, 'kwargs.pop("init_x", None)\n'))
            ops.append(WrapInIf(path, node.lineno, "init_x", (attr,) if attr else ()))
    ops.append(DeleteStatement(path, 10_000))  # no target
    return ops


def _outcome(fn: object, source: str, ops: Sequence[Op]) -> tuple[str, str]:
    try:
        return "ok", fn(source, ops)  # type: ignore[operator]
    except FixError as exc:
        return "error", str(exc)
    except Exception as exc:  # noqa: BLE001 - e.g. a node libcst refuses to build
        return "raised", type(exc).__name__


def _sources() -> Iterable[tuple[str, str]]:
    yield "tricky", TRICKY
    yield "tricky_crlf", TRICKY.replace("\n", "\r\n")
    yield "tricky_no_final_newline", TRICKY.rstrip("\n")
    yield "tricky_tabs", TRICKY.replace("    ", "\t")
    seen = set()
    for p in sorted(FIXTURES.rglob("*.py")):
        try:
            text = decode(p.read_bytes())[0]
            cst.parse_module(text)
            ast.parse(text)
        except Exception:  # noqa: BLE001, S112 - files with errors are fixtures too
            continue
        if "class" in text and text not in seen:
            seen.add(text)
            yield str(p.relative_to(FIXTURES)), text


@pytest.mark.parametrize("name,source", list(_sources()), ids=lambda v: str(v)[:40])
def test_rewrite_per_statement_equals_whole_module(name: str, source: str) -> None:
    path = Path("m.py")
    ops = _ops_of(path, source)
    rng = random.Random(name)
    cases: list[list[Op]] = [[op] for op in ops]
    if len(cases) > 60:  # the big fixtures: a sample of them
        cases = rng.sample(cases, 60)
    cases += [rng.sample(ops, min(len(ops), k)) for k in (2, 3, 5) for _ in range(10)]
    for case in cases:
        assert _outcome(rewrite_text, source, case) == _outcome(old_apply_ops, source, case), case


def rewrite_text(source: str, ops: Sequence[Op]) -> str:
    code, changed = rewrite(source, ops)
    if changed is not None:  # what changed: top-level statements or methods of the new code
        assert all(c.removeprefix(PIECE_HEADER) in code for c in changed)
    return code


def test_render_is_remembered_per_content_and_ops(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(TRICKY, encoding="utf-8")
    op = DeleteStatement(path, 25)
    first = render(path, [op])
    assert render(path, [op]) is first
    assert render(path, [op, DeleteStatement(path, 26)]) is not first
    path.write_text(TRICKY.replace("n=4", "n=5"), encoding="utf-8")
    again = render(path, [op])
    assert again is not first and b"n=5" in again.new and b"n=5" in again.old
    missing = DeleteStatement(path, 10_000)
    for _ in range(2):  # a failure is remembered too, and raised each time
        with pytest.raises(FixError, match="could not place"):
            render(path, [missing])

"""Issue 14: read sets of statements, and fixes that edit only the project's own files."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.environment import Distribution
from initlint.facts.reads import EVERYTHING, self_access
from initlint.fix.planner import Planner
from initlint.fix.propose import fix_planner
from initlint.pipeline.report import dependency_edit

FIX = Path(__file__).parent / "fixtures" / "fix"


@pytest.mark.parametrize(
    ("code", "reads", "writes"),
    [
        ("self.max_pos *= 4", {"max_pos"}, {"max_pos"}),
        ("self.n = n * 2", set(), {"n"}),
        ("width = self.emb.embedding_dim", {"emb"}, set()),
        ("self.x.y = 1", {"x"}, {"x"}),
        ("self.table[0] = 1", {"table"}, {"table"}),
        ("self.layers.append(m)", {"layers"}, {"layers"}),
        ("nn.init.zeros_(self.proj.bias)", {"proj"}, set()),
        ('hasattr(self, "visual")', {"visual"}, set()),
        ('setattr(self, "v", 1)', set(), {"v"}),
        ("helper(self)", {EVERYTHING}, {EVERYTHING}),
        ("nn.Module.__init__(self)", set(), set()),
        ("super(Child, self).__init__()", set(), set()),
        ("isinstance(self, Base)", set(), set()),
        # Deleting needs the attribute (AttributeError without it): a read too.
        ("del self.cache", {"cache"}, {"cache"}),
        ('delattr(self, "cache")', {"cache"}, {"cache"}),
        ('self.__delattr__("cache")', {"cache", "__delattr__"}, {"cache"}),
        ('self.__setattr__("v", 1)', {"__setattr__"}, {"v"}),
        ("del self.cache[0]", {"cache"}, {"cache"}),
    ],
)
def test_self_access(code: str, reads: set[str], writes: set[str]) -> None:
    stmt = ast.parse(code).body[0]
    skip = stmt.value if isinstance(stmt, ast.Expr) else None
    assert self_access([stmt], "self", skip=skip) == (frozenset(reads), frozenset(writes))


def test_only_project_files_are_edited(tmp_path: Path) -> None:
    """A fix that would edit a file outside the project is not offered, and the help line
    says why; one that would edit a dependency's module (issue 15 gives it a `dist`) is
    refused by the engine, which names the distribution."""
    work = tmp_path / "proj"
    shutil.copytree(FIX / "flag_swallowed" / "in", work)
    analysis = analyze([work], cwd=work, use_cache=False, jobs=1)
    assert analysis.simulator is not None
    (finding,) = [f for f in analysis.findings if f.code == "IL001"]
    planner = Planner(analysis.simulator, root=analysis.root)
    assert planner.plan(finding) is not None
    outside = Planner(analysis.simulator, root=tmp_path / "elsewhere")
    assert outside.plan(finding) is None
    assert outside.reason.startswith("the fix would edit ")
    assert "which is not the project's own file" in outside.reason
    planned = fix_planner(analysis, finding)
    assert isinstance(planned, tuple)
    middle = next(m for m in analysis.index.modules.values() if m.path.name == "middle.py")
    object.__setattr__(middle, "dist", Distribution("framework", "1.0"))
    assert str(dependency_edit(analysis, planned[0])) == str(Distribution("framework", "1.0"))


@pytest.mark.parametrize(
    ("cond", "off", "value"),
    [
        ("", False, "False"),
        ("fp32", False, "not fp32"),
        ("n > 4", False, "not (n > 4)"),
        ("fp32", True, "bool(fp32)"),
        # `not <x>` is not negated twice (issue 14 reading: `init_weight=not (not with_scale)`)
        ("not with_scale", False, "bool(with_scale)"),
        ("not (n > 4)", False, "n > 4"),
        ("not with_scale", True, "not with_scale"),
    ],
)
def test_flag_value(cond: str, off: bool, value: str) -> None:
    from initlint.fix.state import flag_value

    assert flag_value(cond, off) == value

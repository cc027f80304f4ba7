"""``initlint check --fix``, ``--diff``, ``--unsafe-fixes``, ``--fix-only``, ``--show-fixes``
with ruff's meanings, and ``initlint fix`` as the same thing; what a fix leaves is named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from initlint.rules import REGISTRY

from .conftest import CHILD_LINE, Project, Run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fix"
FINDING = f"pkg/child.py:{CHILD_LINE}:9: IL001"
# IL004: a subclass switches the cache off and never builds it (no automatic fix).
DISABLED = REGISTRY["IL004"].INVALID[0].split("class Child")[1]
UNFIXABLE = "from pkg.base import Base\n\n\nclass Other" + DISABLED


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


@pytest.fixture
def mixed(rope_project: Project) -> Project:
    """A safe IL001 fix in pkg/child.py, and an IL004 without a fix in pkg/other.py."""
    rope_project.write("pkg/other.py", UNFIXABLE)
    return rope_project


def _other_line(project: Project) -> str:
    text = (project.root / "pkg" / "other.py").read_text(encoding="utf-8")
    line = 1 + next(i for i, ln in enumerate(text.splitlines()) if "init_cache=False" in ln)
    return f"pkg/other.py:{line}:"


def test_check_diff_shows_fixes_and_writes_nothing(mixed: Project) -> None:
    before = _tree(mixed.root)
    run = mixed.check("--diff", "--no-cache", ".")
    assert run.code == 1, run.stdout + run.stderr  # something to fix
    assert "+++ b/pkg/child.py" in run.stdout and "init_cache=False" in run.stdout
    assert "Would fix 1 diagnostic in 1 file." in run.stderr
    assert f"{_other_line(mixed)}" in run.stderr and "IL004 has no automatic fix" in run.stderr
    assert _tree(mixed.root) == before
    # Nothing left to fix: --diff exits 0, as ruff's does, though a finding remains.
    (mixed.root / "pkg" / "child.py").unlink()
    assert mixed.check("--diff", "--no-cache", ".").code == 0


def test_check_fix_applies_and_reports_what_is_left(mixed: Project) -> None:
    run = mixed.check("--fix", "--no-cache", ".")
    assert run.code == 1, run.stdout + run.stderr  # IL004 is left
    assert "init_cache=False" in (mixed.root / "pkg" / "child.py").read_text(encoding="utf-8")
    # The finding left is reported as check reports it: by location and code, in full.
    assert f"{_other_line(mixed)}" in run.stdout and " IL004 " in run.stdout
    assert FINDING not in run.stdout
    assert "Found 2 diagnostics in 2 of 4 files checked (1 fixed, 1 remaining)." in run.stdout
    # A second run has nothing to fix and the same finding to report.
    again = mixed.check("--fix", "--no-cache", ".")
    assert "(0 fixed, 1 remaining)" in again.stdout and again.code == 1


def test_fix_is_check_fix(mixed: Project, tmp_path: Path) -> None:
    twin = Project(tmp_path / "twin")
    shutil.copytree(mixed.root, twin.root, dirs_exist_ok=True)
    one = mixed.check("--fix", "--no-cache", ".")
    import os

    os.chdir(twin.root)
    two = twin.invoke("fix", "--no-cache", ".")
    assert (one.code, one.stdout, one.stderr) == (two.code, two.stdout, two.stderr)
    assert _tree(mixed.root) == _tree(twin.root)


def test_fix_only_reports_nothing_and_exits_0(mixed: Project) -> None:
    run = mixed.check("--fix-only", "--no-cache", ".")
    assert run.code == 0, run.stdout + run.stderr
    assert run.stdout == ""
    assert "Fixed 1 diagnostic in 1 file." in run.stderr
    assert "IL004 has no automatic fix" in run.stderr  # still named, on stderr
    assert "init_cache=False" in (mixed.root / "pkg" / "child.py").read_text(encoding="utf-8")


def test_show_fixes_lists_the_fixed_findings(mixed: Project) -> None:
    run = mixed.check("--fix", "--show-fixes", "--no-cache", ".")
    assert (
        "Fixed 1 diagnostic:\n- pkg/child.py:\n    1 × IL001 (redundant-buffer-registration)"
        in (run.stdout)
    )


def _copy_case(project: Project, name: str) -> None:
    shutil.copytree(FIXTURES / name / "in", project.root, dirs_exist_ok=True)


def test_unsafe_fixes_only_with_the_flag(project: Project) -> None:
    _copy_case(project, "flag_swallowed")
    before = _tree(project.root)
    run = project.check("--fix", "--no-cache", ".")
    assert run.code == 1
    assert "1 unsafe fix skipped (use --unsafe-fixes)." in run.stderr
    assert "unsafe fix not applied (use --unsafe-fixes)" in run.stderr
    assert _tree(project.root) == before
    diff = project.check("--diff", "--unsafe-fixes", "--no-cache", ".")
    assert diff.code == 1 and "+++ b/pkg/" in diff.stdout
    assert _tree(project.root) == before
    # Without --fix, --unsafe-fixes says how to apply them all.
    hint = project.check("--unsafe-fixes", "--no-cache", ".")
    assert "fixable with `initlint check --fix --unsafe-fixes`" in hint.stdout
    done = project.check("--fix", "--unsafe-fixes", "--no-cache", ".")
    assert done.code == 0, done.stdout + done.stderr
    assert _tree(project.root) == _tree(FIXTURES / "flag_swallowed" / "out")


def test_fix_json_reports_what_is_left(mixed: Project) -> None:
    import json

    run: Run = mixed.check("--fix", "--format", "json", "--no-cache", ".")
    left = json.loads(run.stdout)
    assert [(d["path"], d["code"]) for d in left] == [("pkg/other.py", "IL004")]

"""End to end through the CLI: exit codes, JSON on stdout, and never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import BASE, REDO, CliResult, Project, marked_lines
from .test_deep_inputs import DEEP_EXPRESSIONS, chain_source

GOOD = BASE + REDO.format(name="Good")


def test_clean_project_exits_0(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/chain.py", chain_source(1000, register=False, redo=False))
    project.write("pkg/notes.txt", "class ((\n")
    result = project.cli(".")
    result.assert_no_traceback()
    assert (result.returncode, result.diagnostics) == (0, [])


def test_hostile_tree_in_one_pooled_run(project: Project) -> None:
    """Everything at once, with enough files that the fact pass runs in worker processes."""
    project.write("pkg/__init__.py", "")
    for i in range(60):
        project.write(
            f"pkg/filler{i:02d}.py", f"class F{i}:\n    def __init__(self):\n        pass\n"
        )
    project.write("pkg/good.py", GOOD)
    # In __init__: a body the check reads (a method it never reads is not parsed).
    project.write("pkg/py2.py", "class A:\n    def __init__(self):\n        print 'x'\n")
    project.write("pkg/nul.py", b"class A:\n    pass\n\x00")
    project.write("pkg/latin1.py", b"class A:\n    s = '\xe9'\n")
    project.write("pkg/chain.py", chain_source(1000, register=True, redo=True))
    project.write("pkg/parens.py", "class P:\n    x = " + DEEP_EXPRESSIONS["parens_300"] + "\n")
    project.write("pkg/cyc_a.py", "from pkg.cyc_b import B\n\nclass A(B):\n    pass\n")
    project.write("pkg/cyc_b.py", "from pkg.cyc_a import A\n\nclass B(A):\n    pass\n")
    (project.root / "pkg" / "dir.py").mkdir()
    os.symlink("loop.py", project.root / "pkg" / "loop.py")
    project.write("pkg/README.md", "class ((\n")
    result = project.cli(".", "--jobs", "2")
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr
    got = {(d["path"], d["code"]) for d in result.diagnostics}
    # The 1000-level chain may or may not get its leaf finding (simulation depth limit).
    assert got - {("pkg/chain.py", "IL001")} == {
        ("pkg/good.py", "IL001"),
        ("pkg/py2.py", "IL900"),
        ("pkg/nul.py", "IL900"),
        ("pkg/latin1.py", "IL901"),
        ("pkg/parens.py", "IL900"),
    }
    (good,) = [d for d in result.diagnostics if d["path"] == "pkg/good.py"]
    assert good["line"] == marked_lines(GOOD)[0]


def test_missing_path_is_a_usage_error(project: Project) -> None:
    project.write("good.py", GOOD)
    result = project.cli("nope.py")
    result.assert_no_traceback()
    assert result.returncode == 2


FIXABLE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))


class Deep(Base):
    def __init__(self, x=1):
        super().__init__()
        self.v = {expr}
        self.register_buffer("cache", torch.zeros(4))  # REDO
"""


DEEP_FIXABLE = ("attrs_2000", "plus_1500")


def _write_deep_fixable(project: Project) -> tuple[set[tuple[str, int]], str]:
    """The deep files (their fix cannot be rendered: withdrawn) and a shallow one whose fix
    is offered, so that a run which offers no fix at all cannot pass."""
    expected = set()
    for name in DEEP_FIXABLE:
        source = FIXABLE.format(expr=DEEP_EXPRESSIONS[name])
        project.write(f"{name}.py", source)
        expected.add((f"{name}.py", marked_lines(source)[0]))
    shallow = FIXABLE.format(expr="x.a")
    project.write("shallow.py", shallow)
    expected.add(("shallow.py", marked_lines(shallow)[0]))
    return expected, shallow


def test_deep_expressions_in_files_with_fixable_findings_json(project: Project) -> None:
    """JSON output also plans, verifies and renders each finding's fix: more libcst passes
    over the file (the redo repeats the base's statement exactly, so a fix is offered)."""
    expected, _ = _write_deep_fixable(project)
    result = project.cli(".")
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr[-2000:]
    assert {(d["path"], d["line"], d["code"]) for d in result.diagnostics} == {
        (path, line, "IL001") for path, line in expected
    }
    for d in result.diagnostics:
        if d["path"] == "shallow.py":
            assert d["fix"] is not None and d["fix"]["applicability"] == "safe", d
            assert not d["message"].endswith("]"), d["message"]  # the fix field says it
        else:  # withdrawn: the diagnostic stays, without a fix
            assert d["fix"] is None, d
            assert d["message"].endswith("[no fix]"), d["message"]


def test_deep_expressions_in_files_with_fixable_findings_sarif(project: Project) -> None:
    expected, _ = _write_deep_fixable(project)
    result = project.cli(".", fmt="sarif")
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr[-2000:]
    results = json.loads(result.stdout)["runs"][0]["results"]
    got = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["ruleId"],
            "fixes" in r,
        )
        for r in results
    }
    assert got == {(path, "IL001", path == "shallow.py") for path, _ in expected}


def _fix_cli(project: Project, *args: str) -> CliResult:
    argv = ["fix", *args, ".", "--no-cache"]
    code = f"import sys\nfrom initlint.cli import main\nmain({argv!r})\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=project.root, capture_output=True, text=True, timeout=120
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def test_deep_expressions_in_files_with_fixable_findings_fix(project: Project) -> None:
    """``initlint fix`` withdraws the fixes it cannot render (the findings stay: exit 1) and
    still makes the others."""
    _, shallow = _write_deep_fixable(project)
    deep = {name: (project.root / f"{name}.py").read_bytes() for name in DEEP_FIXABLE}
    for args in (("--diff",), ()):
        result = _fix_cli(project, *args)
        result.assert_no_traceback()
        assert result.returncode == 1, (args, result.stderr[-2000:])
        for name in DEEP_FIXABLE:
            assert f"{name}.py:" in result.stderr and "no fix offered" in result.stderr, (
                result.stderr
            )
            assert (project.root / f"{name}.py").read_bytes() == deep[name]
    fixed = (project.root / "shallow.py").read_text(encoding="utf-8")
    assert "# REDO" not in fixed and fixed.count('register_buffer("cache"') == 1
    assert shallow.replace(shallow.splitlines()[-1] + "\n", "") == fixed

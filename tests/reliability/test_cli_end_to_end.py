"""End to end through the CLI: exit codes, JSON on stdout, and never a traceback."""

from __future__ import annotations

import os

from .conftest import BASE, REDO, Project, marked_lines
from .test_deep_inputs import DEEP_EXPRESSIONS, _deep_source, chain_source

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
    project.write("pkg/py2.py", "class A:\n    def f(self):\n        print 'x'\n")
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


def test_deep_expressions_in_files_with_findings_json_and_text(project: Project) -> None:
    """JSON output also renders each finding's fix, a second libcst pass over the file."""
    expected = set()
    for name in ("attrs_2000", "plus_1500", "subscripts_1000", "neg_1000", "calls_190"):
        source = _deep_source(DEEP_EXPRESSIONS[name])
        project.write(f"{name}.py", source)
        expected.add((f"{name}.py", marked_lines(source)[0]))
    for fmt in ("json", "text"):
        result = project.cli(".", fmt=fmt)
        result.assert_no_traceback()
        assert result.returncode == 1, (fmt, result.stderr[-2000:])
        if fmt == "json":
            got = {(d["path"], d["line"]) for d in result.diagnostics if d["code"] == "IL001"}
            assert got == expected
            assert all(d["code"] == "IL001" for d in result.diagnostics)

"""text / json / github output, --statistics, --output-file and exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from initlint.diagnostics import Diagnostic, Fix, Related
from initlint.output.github import escape_data, escape_property, render_github
from initlint.output.text import render_text

from .conftest import BASE_LINE, CHILD_LINE, FLAG_LINE, Project

ANSI = re.compile(r"\x1b\[[0-9;]*m")

IL003_MODULE = """\
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)


class Child(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Linear(dim, 2 * dim)
"""

SECOND_CHILD = """

class Child2(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("cache", self._build())
"""


def sample(fix: Fix | None = None, severity: str = "warning") -> Diagnostic:
    return Diagnostic(
        path="pkg/child, 100%.py",
        line=7,
        column=9,
        end_line=7,
        end_column=71,
        code="IL001",
        rule="redundant-buffer-registration",
        message="buffer `cache` is registered again:\nsee pkg/base.py:11",
        severity=severity,  # type: ignore[arg-type]
        class_name="pkg.child.Child",
        related=(Related("pkg/base.py", 11, "first done here"),),
        fix=fix,
    )


# -- text -----------------------------------------------------------------------------------


def test_text_format(rope_project: Project) -> None:
    run = rope_project.check()
    assert run.code == 1
    lines = run.stdout.splitlines()
    # The ancestor builds a tensor: its repeat is heavy, an error, and the line says so.
    assert lines[0].startswith(
        f"pkg/child.py:{CHILD_LINE}:9: IL001 [error] buffer `cache` is registered"
    )
    assert f"pkg/base.py:{BASE_LINE}" in lines[0]  # the ancestor location, in the message...
    assert f"    note: pkg/base.py:{BASE_LINE}: first done here, in Base.__init__" in lines
    flag = f"    note: pkg/base.py:{FLAG_LINE}: flag `init_cache` is a parameter of Base.__init__"
    assert flag in lines
    (hint,) = [ln for ln in lines if ln.startswith("    help: ")]  # one fix hint
    assert "initlint fix" in hint or "initlint explain IL001" in hint
    assert lines[-1].startswith("Found 1 diagnostic in 1 of 3 files checked.")
    assert not ANSI.search(run.stdout)  # not a terminal: no colour


def test_text_fix_hint_names_the_fix() -> None:
    safe = render_text([sample(Fix("safe", "pass `init_cache=False`"))])
    assert "    help: pass `init_cache=False` (safe fix: `initlint fix`)" in safe
    unsafe = render_text([sample(Fix("unsafe", "thread `init_cache`"))])
    assert "(unsafe fix: `initlint fix --unsafe-fixes`)" in unsafe


def test_text_colour_only_when_asked() -> None:
    d = sample()
    assert not ANSI.search(render_text([d], color=False))
    coloured = render_text([d], color=True)
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == render_text([d], color=False)


def test_text_colour_follows_the_terminal(
    rope_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    import initlint.reporting as reporting

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert reporting.color_stdout()
    monkeypatch.setenv("NO_COLOR", "1")
    assert not reporting.color_stdout()


def test_clean_project_summary_and_exit_zero(project: Project) -> None:
    project.write("ok.py", "class A:\n    pass\n")
    run = project.check()
    assert run.code == 0
    assert run.stdout == "All checks passed (1 file checked).\n"


def test_quiet_prints_the_findings_only(rope_project: Project) -> None:
    rope_project.write(
        "pkg/plugin.py",
        "from enginelib import Base\n\n\nclass P(Base):\n"
        "    def __init__(self):\n        super().__init__()\n",
    )
    loud, quiet = rope_project.check(), rope_project.check("--quiet")
    assert loud.stdout.splitlines()[-1].startswith("Found 1 diagnostic")
    assert loud.stderr.startswith("note: 1 class calls into ancestors")
    assert quiet.code == loud.code == 1
    assert quiet.stdout == loud.stdout.rpartition("Found 1 diagnostic")[0]
    assert quiet.stderr == ""
    fixed = rope_project.invoke("fix", "--diff", "-q")
    assert fixed.stderr == "" and fixed.stdout.startswith("---")


def test_exit_zero_flag(rope_project: Project) -> None:
    run = rope_project.check("--exit-zero")
    assert run.code == 0
    assert " IL001 " in run.stdout


# -- json -----------------------------------------------------------------------------------


def test_json_format_has_the_design_keys(rope_project: Project) -> None:
    run = rope_project.check("--format", "json")
    assert run.code == 1
    (item,) = json.loads(run.stdout)
    assert set(item) == {
        "path", "line", "column", "end_line", "end_column", "code", "rule", "message",
        "severity", "confidence", "class", "related", "fix", "no_fix",
    }  # fmt: skip
    assert (item["path"], item["line"], item["column"]) == ("pkg/child.py", CHILD_LINE, 9)
    assert (item["end_line"], item["end_column"]) == (CHILD_LINE, 71)
    assert (item["code"], item["rule"]) == ("IL001", "redundant-buffer-registration")
    assert item["class"] == "pkg.child.Child"
    assert item["related"][0] == {
        "path": "pkg/base.py",
        "line": BASE_LINE,
        "message": "first done here, in Base.__init__",
    }
    fix = item["fix"]
    assert fix is None or (
        fix["applicability"] in ("safe", "unsafe")
        and set(fix) == {"applicability", "message", "edits"}
        and all(e["path"] == "pkg/child.py" for e in fix["edits"])
    )


def test_json_empty_is_an_empty_array(project: Project) -> None:
    project.write("ok.py", "x = 1\n")
    run = project.check("--format", "json")
    assert (run.code, json.loads(run.stdout)) == (0, [])


# -- github ---------------------------------------------------------------------------------


def test_github_format_end_to_end(rope_project: Project) -> None:
    run = rope_project.check("--format", "github")
    assert run.code == 1
    (line,) = run.stdout.splitlines()
    head = (
        f"::error file=pkg/child.py,line={CHILD_LINE},col=9,endLine={CHILD_LINE},"
        "endColumn=71,title=IL001 (redundant-buffer-registration)::"
    )
    assert line.startswith(head)
    message = line[len(head) :]
    assert message.startswith("buffer `cache` is registered again")
    assert f"%0Anote: pkg/base.py:{BASE_LINE}: first done here" in message
    assert "%0Ahelp: " in message


def test_github_escapes_properties_and_message() -> None:
    out = render_github([sample(severity="error")])
    assert out.startswith("::error file=pkg/child%2C 100%25.py,line=7,col=9,")
    assert ",title=IL001 (redundant-buffer-registration)::" in out
    message = out.split("::", 2)[2]
    assert message.startswith("buffer `cache` is registered again:%0Asee pkg/base.py:11%0A")
    assert out.count("\n") == 1 and out.endswith("\n")


def test_github_escape_rules() -> None:
    assert escape_data("50%\r\nx: a, b") == "50%25%0D%0Ax: a, b"
    assert escape_property("50%\r\nx: a, b") == "50%25%0D%0Ax%3A a%2C b"


def _unescape(text: str) -> str:
    for enc, raw in (("%3A", ":"), ("%2C", ","), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%")):
        text = text.replace(enc, raw)
    return text


@given(st.text())
def test_github_property_escape_is_reversible_and_safe(text: str) -> None:
    escaped = escape_property(text)
    assert not set(escaped) & set(",:\r\n")
    assert _unescape(escaped) == text


# -- --statistics ---------------------------------------------------------------------------


def test_statistics_counts_per_code(rope_project: Project) -> None:
    rope_project.write(
        "pkg/child.py", (rope_project.root / "pkg/child.py").read_text() + SECOND_CHILD
    )
    rope_project.write("pkg/proj.py", IL003_MODULE)
    run = rope_project.check("--statistics")
    assert run.code == 1
    rows = [line.split() for line in run.stdout.splitlines()]
    assert [(r[0], r[1], r[-1]) for r in rows] == [
        ("2", "IL001", "redundant-buffer-registration"),
        ("1", "IL003", "overwritten-init-attribute"),
    ]
    assert all(len(r) == 3 or r[2] == "[*]" for r in rows)  # [*]: a fix exists
    data = json.loads(rope_project.check("--statistics", "--format", "json").stdout)
    assert [(r["code"], r["count"]) for r in data] == [("IL001", 2), ("IL003", 1)]


def test_statistics_empty(project: Project) -> None:
    project.write("ok.py", "x = 1\n")
    run = project.check("--statistics")
    assert (run.code, run.stdout) == (0, "")


# -- --output-file --------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_output_file(rope_project: Project, fmt: str) -> None:
    stdout = rope_project.check("--format", fmt).stdout
    run = rope_project.check("--format", fmt, "--output-file", "report.out")
    assert run.code == 1
    written = (rope_project.root / "report.out").read_text(encoding="utf-8")
    assert " IL001 " in written or '"IL001"' in written or "title=IL001" in written
    assert run.stdout == ""
    if fmt == "text":
        assert stdout.startswith(written)  # same report; the summary went to stderr
        assert run.stderr.startswith("Found 1 diagnostic in 1 of 3 files checked.")
    else:
        assert written == stdout


def test_output_file_in_missing_folder_is_an_error(rope_project: Project) -> None:
    run = rope_project.check("-o", str(Path("no") / "such" / "dir.txt"))
    assert run.code == 2
    assert "cannot write" in run.stderr and "dir.txt" in run.stderr

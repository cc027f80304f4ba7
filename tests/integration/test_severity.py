"""Cost classes end to end: heavy repeats are errors, light ones warnings, in every format,
and ``min-severity`` (config key or flag) filters by them."""

from __future__ import annotations

import json

import pytest

from integration.conftest import Project

# One heavy repeat (a Linear, line 14) and one light one (a parameterless GELU, line 13).
MODEL = """\
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.act = nn.GELU()
        self.proj = nn.Linear(dim, dim)


class Wide(Block):
    def __init__(self, dim):
        super().__init__(dim)
        self.act = nn.SiLU()
        self.proj = nn.Linear(dim, 2 * dim)
"""


@pytest.fixture
def mixed(project: Project) -> Project:
    project.write("pkg/__init__.py", "")
    project.write("pkg/model.py", MODEL)
    return project


def test_text_shows_the_severity(mixed: Project) -> None:
    lines = [ln for ln in mixed.check().stdout.splitlines() if not ln.startswith(" ")]
    assert lines[0].startswith("pkg/model.py:14:9: IL003 [warning] `self.act` is rebuilt")
    assert lines[1].startswith("pkg/model.py:15:9: IL003 [error] `self.proj` is rebuilt")


def test_json_sarif_and_github_carry_it(mixed: Project) -> None:
    data = json.loads(mixed.check("--format", "json").stdout)
    assert [(d["line"], d["severity"]) for d in data] == [(14, "warning"), (15, "error")]
    sarif = json.loads(mixed.check("--format", "sarif").stdout)
    levels = [
        (r["locations"][0]["physicalLocation"]["region"]["startLine"], r["level"])
        for r in sarif["runs"][0]["results"]
    ]
    assert levels == [(14, "warning"), (15, "error")]
    github = mixed.check("--format", "github").stdout.splitlines()
    assert github[0].startswith("::warning file=pkg/model.py,line=14,")
    assert github[1].startswith("::error file=pkg/model.py,line=15,")


def test_min_severity_flag(mixed: Project) -> None:
    run = mixed.check("--min-severity", "error", "--format", "json")
    assert [d["line"] for d in json.loads(run.stdout)] == [15]
    assert run.code == 1
    run = mixed.check("--min-severity", "warning", "--format", "json")
    assert [d["line"] for d in json.loads(run.stdout)] == [14, 15]


def test_min_severity_config_and_flag_override(mixed: Project) -> None:
    mixed.config('[tool.initlint]\nmin-severity = "error"\n')
    assert [d["line"] for d in json.loads(mixed.check("--format", "json").stdout)] == [15]
    shown = mixed.check("--show-settings").stdout
    assert 'min-severity = "error"  # ' + str(mixed.root / "pyproject.toml") in shown
    again = mixed.check("--min-severity", "warning", "--format", "json").stdout
    assert [d["line"] for d in json.loads(again)] == [14, 15]
    assert (
        'min-severity = "warning"  # command line'
        in mixed.check("--show-settings", "--min-severity", "warning").stdout
    )


def test_only_warnings_left_exits_clean_under_min_severity_error(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/model.py", MODEL.replace("        self.proj = nn.Linear(dim, 2 * dim)\n", "")
    )
    assert project.check().code == 1
    run = project.check("--min-severity", "error")
    assert run.code == 0
    assert "All checks passed" in run.stdout


@pytest.mark.parametrize("value", ['"info"', "1", '"ERROR"'])
def test_bad_min_severity_is_a_config_error(project: Project, value: str) -> None:
    project.config(f"[tool.initlint]\nmin-severity = {value}\n")
    run = project.check()
    assert run.code == 2
    assert "min-severity must be one of 'warning', 'error'" in run.stderr


def test_bad_min_severity_flag_is_a_usage_error(project: Project) -> None:
    run = project.check("--min-severity", "info")
    assert run.code == 2
    assert "--min-severity" in run.stderr


CHAIN = """\
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)


class Mid(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Linear(dim, dim, bias=False)


class Leaf(Mid):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Identity()
"""


def test_the_message_names_the_build_this_class_discards(project: Project) -> None:
    """Leaf throws away Mid's Linear (the nearest build), not Base's: the message says so
    and a note mentions Base's, which Mid already threw away. Replacing a Linear by a
    parameterless module still wastes the Linear: heavy."""
    project.write("pkg/__init__.py", "")
    project.write("pkg/chain.py", CHAIN)
    data = json.loads(project.check("--format", "json").stdout)
    leaf = next(d for d in data if d["line"] == 19)
    assert leaf["severity"] == "error"
    assert "Mid.__init__ already built it at pkg/chain.py:13" in leaf["message"]
    notes = [(r["line"], r["message"]) for r in leaf["related"]]
    assert notes == [
        (13, "done again here, in Mid.__init__"),
        (7, "also done earlier here, in Base.__init__"),
    ]
    mid = next(d for d in data if d["line"] == 13)
    assert "Base.__init__ already built it at pkg/chain.py:7" in mid["message"]
    assert [r["message"] for r in mid["related"]] == ["first done here, in Base.__init__"]

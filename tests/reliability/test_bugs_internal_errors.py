"""IL902 is counted once per failure, and it is always shown: the run exits 2 for it, so
``--select``, ``--ignore`` and ``per-file-ignores`` never hide it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from initlint.cli import main

from .conftest import (
    BASE,
    EXPLODE_PRELUDE,
    REDO,
    TRACEBACK,
    Project,
    break_fact_pass,
    break_locator,
    break_simulation,
    by_code,
    marked_lines,
    summary,
)

GOOD = BASE + REDO.format(name="Good")
GOOD_LINE = marked_lines(GOOD)[0]

# Run in the CLI's process: the fact pass fails on files that contain EXPLODE.
# -- counted once ----------------------------------------------------------------------------


def test_fact_pass_il902_is_counted_once(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    break_fact_pass(monkeypatch)
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("boom2.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    analysis = project.check()
    assert len(by_code(analysis, "IL902")) == 2
    assert analysis.internal_errors == 2


def test_simulation_il902_is_counted_once(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_simulation(monkeypatch)
    project.write("m.py", GOOD + REDO.format(name="Cursed"))
    analysis = project.check()
    assert len(by_code(analysis, "IL902")) == 1
    assert analysis.internal_errors == 1


def test_diagnostic_il902_is_counted_once(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_locator(monkeypatch, "cursed.py")
    project.write("cursed.py", GOOD)
    project.write("good.py", GOOD)
    analysis = project.check()
    assert len(by_code(analysis, "IL902")) == 1
    assert analysis.internal_errors == 1


def test_all_three_kinds_together_count_three(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_fact_pass(monkeypatch)
    break_simulation(monkeypatch)
    break_locator(monkeypatch, "located.py")
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("cursed.py", BASE + REDO.format(name="Cursed"))
    project.write("located.py", GOOD)
    project.write("good.py", GOOD)
    analysis = project.check()
    assert sorted(d.path for d in by_code(analysis, "IL902")) == [
        "boom.py",
        "cursed.py",
        "located.py",
    ]
    assert analysis.internal_errors == 3
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)


# -- always shown ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "il900_shown"),
    [
        (("--select", "IL001"), False),
        (("--select", "IL0"), False),
        (("--ignore", "IL902"), True),
        (("--ignore", "IL9"), False),
        (("--select", "IL001", "--ignore", "ALL"), False),
    ],
)
def test_cli_shows_il902_whatever_the_selection(
    project: Project, args: tuple[str, ...], il900_shown: bool
) -> None:
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    project.write("broken.py", "class A(:\n")
    result = project.cli(".", *args, prelude=EXPLODE_PRELUDE)
    result.assert_no_traceback()
    assert result.returncode == 2, result.stderr
    codes = result.codes()
    assert ("boom.py", "IL902") in codes
    assert (("broken.py", "IL900") in codes) == il900_shown  # IL900 is selected like any rule
    (boom,) = [d for d in result.diagnostics if d["code"] == "IL902"]
    assert "RuntimeError" in boom["message"] and "synthetic failure" in boom["message"]


def test_cli_text_select_il001_shows_il902_and_exits_2(project: Project) -> None:
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    result = project.cli(".", "--select", "IL001", prelude=EXPLODE_PRELUDE, fmt="text")
    result.assert_no_traceback()
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert any(line.startswith("boom.py:1:1: IL902 ") for line in lines), result.stdout
    assert any(line.startswith(f"good.py:{GOOD_LINE}:") and " IL001 " in line for line in lines)


def test_per_file_ignores_do_not_hide_il902(project: Project) -> None:
    (project.root / "pyproject.toml").write_text(
        '[project]\nname = \'proj\'\n\n[tool.initlint.per-file-ignores]\n"boom.py" = ["ALL"]\n'
    )
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    result = project.cli(".", prelude=EXPLODE_PRELUDE)
    result.assert_no_traceback()
    assert result.returncode == 2
    assert result.codes() == [("boom.py", "IL902"), ("good.py", "IL001")]


def test_cli_runner_select_il001_with_an_il902(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same through click's runner, in this process."""
    break_fact_pass(monkeypatch)
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    monkeypatch.chdir(project.root)
    result = CliRunner().invoke(
        main, ["check", ".", "--select", "IL001", "--format", "json", "--no-cache", "--jobs", "1"]
    )
    assert result.exit_code == 2, result.output
    assert TRACEBACK not in result.output
    data = json.loads(result.stdout)
    assert sorted((d["path"], d["code"]) for d in data) == [
        ("boom.py", "IL902"),
        ("good.py", "IL001"),
    ]

"""Every configuration or usage mistake exits 2 with a message naming the key and the file."""

from __future__ import annotations

import pytest

from .conftest import Project


@pytest.mark.parametrize(
    ("body", "key", "detail"),
    [
        ("colour = true", "colour", "unknown key"),
        ("extend_select = []", "extend_select", "did you mean 'extend-select'"),
        ("selct = []", "selct", "did you mean 'select'"),
        ('select = "IL001"', "select", "must be a list of strings"),
        ('ignore = ["IL001", 3]', "ignore", "must be a list of strings"),
        ('extend-select = "IL0"', "extend-select", "must be a list of strings"),
        ('select = ["XX1"]', "select", "unknown rule code 'XX1'"),
        ('ignore = ["IL7"]', "ignore", "unknown rule code 'IL7'"),
        ('extend-select = ["il001"]', "extend-select", "unknown rule code 'il001'"),
        ("exclude = 3", "exclude", "must be a list of strings"),
        ('extend-exclude = "build"', "extend-exclude", "must be a list of strings"),
        ('src = "src"', "src", "must be a list of strings"),
        ("expensive-calls = [1]", "expensive-calls", "must be a list of strings"),
        ("cheap-calls = {}", "cheap-calls", "must be a list of strings"),
        ('flag-name = "1x"', "flag-name", "must be a Python identifier"),
        ("flag-name = true", "flag-name", "must be a Python identifier"),
        ('per-file-ignores = ["x"]', "per-file-ignores", "must be a table"),
        ('per-file-ignores = { "a.py" = "IL001" }', "per-file-ignores.'a.py'", "list of strings"),
        ('per-file-ignores = { "a.py" = ["ZZ9"] }', "per-file-ignores.'a.py'", "'ZZ9'"),
    ],
)
def test_bad_config_exits_2(rope_project: Project, body: str, key: str, detail: str) -> None:
    rope_project.config(f"[tool.initlint]\n{body}\n")
    run = rope_project.check()
    assert run.code == 2
    assert run.stdout == ""
    message = run.stderr
    assert message.startswith("error: ")
    assert str(rope_project.root / "pyproject.toml") in message
    assert key in message and detail in message
    # --show-settings reads the same configuration, and fails the same way.
    assert rope_project.check("--show-settings").code == 2


def test_tool_initlint_must_be_a_table(project: Project) -> None:
    project.config("[tool]\ninitlint = 3\n")
    run = project.check()
    assert run.code == 2
    assert "[tool.initlint] must be a table" in run.stderr
    assert str(project.root / "pyproject.toml") in run.stderr


def test_toml_syntax_error(project: Project) -> None:
    project.config("[tool.initlint\n")
    run = project.check()
    assert run.code == 2
    assert str(project.root / "pyproject.toml") in run.stderr and "cannot read" in run.stderr


def test_bad_value_in_config_option_file(rope_project: Project) -> None:
    rope_project.write("alt.toml", "[tool.initlint]\nsrc = 1\n")
    run = rope_project.check("--config", "alt.toml")
    assert run.code == 2
    assert "alt.toml" in run.stderr and "src" in run.stderr


def test_missing_config_option_file(rope_project: Project) -> None:
    run = rope_project.check("--config", "missing.toml")
    assert run.code == 2
    assert "missing.toml" in run.stderr and "no such config file" in run.stderr


@pytest.mark.parametrize(
    ("args", "option", "detail"),
    [
        (["--select", "XX"], "--select", "unknown rule code 'XX'"),
        (["--ignore", "IL001,NOPE"], "--ignore", "unknown rule code 'NOPE'"),
        (["--extend-select", "IL5"], "--extend-select", "unknown rule code 'IL5'"),
        (["--flag-name", "not valid"], "--flag-name", "not a Python identifier"),
        (["--format", "xml"], "--format", "xml"),
        (["-j", "-1"], "--jobs", "-1"),
    ],
)
def test_bad_flag_exits_2(rope_project: Project, args: list[str], option: str, detail: str) -> None:
    run = rope_project.check(*args)
    assert run.code == 2
    assert option in run.stderr and detail in run.stderr


@pytest.mark.parametrize("missing", ["nope.py", "pkg/nope.py", "no_such_dir"])
def test_bad_path_on_the_command_line(rope_project: Project, missing: str) -> None:
    run = rope_project.check("pkg/child.py", missing)
    assert run.code == 2
    assert missing in run.stderr and "does not exist" in run.stderr
    assert run.stdout == ""

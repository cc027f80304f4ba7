"""A ``python`` from configuration is read, never run: a repository's ``pyproject.toml`` (or
config file) cannot make initlint execute a program. Only ``--python`` on the command line,
the user's own choice, may run an interpreter to ask it for its ``site-packages``."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.environment import PythonNotRun, find_environment

from .envkit import ROPELIB, make_project, write_tree

REPO = Path(__file__).resolve().parents[2]


def _script(path: Path, marker: Path, prints: str = "/tmp") -> Path:
    """An executable that creates ``marker`` and prints ``prints`` (as an interpreter asked
    for its site-packages would)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\necho {shlex.quote(prints)}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "EXECUTED"


@pytest.mark.parametrize(
    "command", [["check", "."], ["check", ".", "--format", "json"], ["fix", "."]]
)
def test_a_configured_script_is_not_run(
    tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    root = make_project(tmp_path / "proj")
    _script(root / "tools" / "py", marker, prints=str(tmp_path))
    (root / "pyproject.toml").write_text('[tool.initlint]\npython = "tools/py"\n')
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, command)
    assert res.exit_code == 2, res.output
    assert not marker.exists()
    assert 'error: python = "tools/py" in pyproject.toml names a program' in res.output, res.output
    assert "initlint does not run programs a repository names" in res.output
    assert "Pass it on the command line instead: initlint check --python tools/py" in res.output


def test_a_configured_script_in_a_config_file_is_not_run_by_the_cli_process(
    tmp_path: Path, marker: Path
) -> None:
    """A real process, the script named from a config file and from a subfolder: exit 2,
    a clear message, no traceback, nothing run."""
    root = make_project(tmp_path / "proj")
    _script(root / "tools" / "py", marker, prints=str(tmp_path))
    (root / "initlint.toml").write_text('python = "tools/py"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--config", "initlint.toml", "."],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert 'python = "tools/py" in initlint.toml names a program' in proc.stderr
    assert "initlint check --python tools/py" in proc.stderr
    assert not marker.exists()


def test_find_environment_does_not_run_a_configured_program(tmp_path: Path, marker: Path) -> None:
    script = _script(tmp_path / "bin" / "python3.11", marker, prints=str(tmp_path))
    with pytest.raises(PythonNotRun):
        find_environment(tmp_path, str(script), "python in pyproject.toml", {}, may_run=False)
    assert not marker.exists()


def test_the_command_line_may_run_the_interpreter_it_names(tmp_path: Path, marker: Path) -> None:
    """``--python`` is the user's choice: an interpreter outside any venv layout is asked."""
    site = tmp_path / "site"
    site.mkdir()
    script = _script(tmp_path / "bin" / "py", marker, prints=str(site))
    chosen = find_environment(tmp_path, str(script), "--python", {})
    assert chosen.site_dirs == (site,)
    assert marker.exists()


@pytest.mark.parametrize("leaf", ["site-packages", "dist-packages"])
def test_a_configured_plain_interpreter_is_read_from_its_layout(
    tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch, leaf: str
) -> None:
    """``/usr/bin/python3.11``-style: ``<prefix>/lib/python3.11/site-packages`` (or Debian's
    ``dist-packages``) is read from the folders, and the interpreter is not run."""
    prefix = tmp_path / "usr"
    site = prefix / "lib" / "python3.11" / leaf
    write_tree(site, ROPELIB)
    (prefix / "lib" / "python3.12" / leaf).mkdir(parents=True)  # another version: not this one
    interpreter = _script(prefix / "bin" / "python3.11", marker)
    root = make_project(tmp_path / "proj")
    (root / "pyproject.toml").write_text(f'[tool.initlint]\npython = "{interpreter}"\n')
    monkeypatch.chdir(root)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    res = CliRunner().invoke(main, ["check", "--show-settings", "."])
    assert res.exit_code == 0, res.output
    assert f"#   site-packages: {site}" in res.output
    assert "python3.12" not in res.output
    assert not marker.exists()


def test_a_configured_venv_interpreter_is_read_from_its_venv(
    tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /nowhere/bin\nversion = 3.11.7\n")
    interpreter = _script(venv / "bin" / "python", marker)
    root = make_project(tmp_path / "proj")
    (root / "pyproject.toml").write_text(f'[tool.initlint]\npython = "{interpreter}"\n')
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["check", "--show-settings", "."])
    assert res.exit_code == 0, res.output
    assert f"#   site-packages: {site}" in res.output
    assert not marker.exists()


def test_an_inline_config_python_is_typed_like_python_on_the_command_line(
    tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--config "python = '...'"`` is text the user typed, not a file the repository
    carries: the interpreter it names may be asked, as ``--python``'s."""
    site = tmp_path / "site"
    site.mkdir()
    script = _script(tmp_path / "bin" / "py", marker, prints=str(site))
    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["check", "--show-settings", "--config", f"python = '{script}'"])
    assert res.exit_code == 0, res.output
    assert f"#   site-packages: {site}" in res.output
    assert marker.exists()

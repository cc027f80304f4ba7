"""Which environment is chosen, and why (docs/design.md): --python/config, VIRTUAL_ENV,
CONDA_PREFIX, .venv/venv in the project root, then the running interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.environment import PythonNotFound, find_environment

from .envkit import make_project, make_venv


def _site(prefix: Path) -> Path:
    return prefix / "lib" / "python3.11" / "site-packages"


@pytest.fixture
def envs(tmp_path: Path) -> dict[str, Path]:
    root = make_project(tmp_path / "proj")
    out = {"root": root}
    for name in ("given", "virtual", "conda"):
        out[name] = tmp_path / name
        make_venv(out[name], {})
    for name in (".venv", "venv"):
        out[name] = root / name
        make_venv(out[name], {})
    return out


def test_discovery_order(envs: dict[str, Path]) -> None:
    root = envs["root"]
    both = {"VIRTUAL_ENV": str(envs["virtual"]), "CONDA_PREFIX": str(envs["conda"])}
    chosen = find_environment(root, str(envs["given"]), "--python", both)
    assert (chosen.source, chosen.site_dirs) == ("--python", (_site(envs["given"]),))
    chosen = find_environment(root, environ=both)
    assert (chosen.source, chosen.site_dirs) == ("VIRTUAL_ENV", (_site(envs["virtual"]),))
    chosen = find_environment(root, environ={"CONDA_PREFIX": str(envs["conda"])})
    assert (chosen.source, chosen.site_dirs) == ("CONDA_PREFIX", (_site(envs["conda"]),))
    chosen = find_environment(root, environ={})
    assert chosen.source == ".venv in the project root"
    assert chosen.site_dirs == (_site(envs[".venv"]),)
    (envs[".venv"] / "pyvenv.cfg").unlink()
    chosen = find_environment(root, environ={})
    assert (chosen.source, chosen.site_dirs) == ("venv in the project root", (_site(envs["venv"]),))
    (envs["venv"] / "pyvenv.cfg").unlink()
    chosen = find_environment(root, environ={})
    assert chosen.source == "the interpreter running initlint"
    assert chosen.location == sys.executable


def test_an_interpreter_path_means_its_venv(envs: dict[str, Path]) -> None:
    python = envs["given"] / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\nexit 1\n")  # never run: the layout answers
    chosen = find_environment(envs["root"], str(python), "--python", {})
    assert chosen.site_dirs == (_site(envs["given"]),)


def test_a_real_interpreter_outside_any_venv_is_asked() -> None:
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if not base.is_file():
        pytest.skip("no base interpreter at the usual place")
    chosen = find_environment(Path.cwd(), str(base), "--python", {})
    assert chosen.site_dirs and all(d.is_dir() for d in chosen.site_dirs)


def test_pre_commits_own_virtual_env_is_taken_last(envs: dict[str, Path]) -> None:
    # pre-commit runs a hook with VIRTUAL_ENV set to the hook's own environment: the one
    # initlint runs in. The project's .venv must win over it.
    chosen = find_environment(envs["root"], environ={"VIRTUAL_ENV": sys.prefix})
    assert chosen.source == ".venv in the project root"
    assert any("initlint's own environment" in s for s in chosen.skipped)


def test_missing_configured_python_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PythonNotFound, match="does not exist"):
        find_environment(tmp_path, str(tmp_path / "nope"), "--python", {})
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PythonNotFound, match="holds no site-packages"):
        find_environment(tmp_path, str(empty), "--python", {})


def test_cli_missing_python_exits_2(envs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(envs["root"])
    runner = CliRunner()
    res = runner.invoke(main, ["check", "--python", "no/such/venv", "."])
    assert res.exit_code == 2
    assert "--python" in res.output and "does not exist" in res.output
    (envs["root"] / "pyproject.toml").write_text('[tool.initlint]\npython = "missing-env"\n')
    res = runner.invoke(main, ["check", "."])
    assert res.exit_code == 2
    assert "pyproject.toml" in res.output and "missing-env" in res.output
    res = runner.invoke(main, ["fix", "--python", "no/such/venv", "."])
    assert res.exit_code == 2


def test_config_python_is_relative_to_the_config_file(
    envs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = envs["root"]
    (root / "pyproject.toml").write_text('[tool.initlint]\npython = "../given"\n')
    monkeypatch.chdir(root / "plugin")  # a working directory elsewhere changes nothing
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    res = CliRunner().invoke(main, ["check", "--show-settings", "."])
    assert res.exit_code == 0, res.output
    assert (
        f"# environment: {root / '../given'}  (python in {root / 'pyproject.toml'})" in res.output
    )
    assert f"#   site-packages: {_site(root / '../given')}" in res.output


def test_show_settings_says_why(envs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(envs["root"])
    monkeypatch.setenv("VIRTUAL_ENV", str(envs["virtual"]))
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    res = CliRunner().invoke(main, ["check", "--show-settings"])
    assert f"# environment: {envs['virtual']}  (VIRTUAL_ENV)" in res.output
    res = CliRunner().invoke(main, ["check", "--show-settings", "--python", str(envs["given"])])
    assert f"# environment: {envs['given']}  (--python)" in res.output
    assert 'python = "' in res.output and "# command line" in res.output


def test_pth_paths_and_editable_finders(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / "pathpkg").mkdir(parents=True)
    (extra / "pathpkg" / "__init__.py").write_text("")
    mapped = tmp_path / "src" / "edpkg"
    mapped.mkdir(parents=True)
    (mapped / "__init__.py").write_text("")
    site = make_venv(
        tmp_path / "env",
        {
            "a_path.pth": f"# a comment\n{extra}\nrelative-missing\n",
            "__editable__.edpkg-0.3.pth": "import __editable___edpkg_0_3_finder; x.install()\n",
            "__editable___edpkg_0_3_finder.py": (
                f"MAPPING: dict[str, str] = {{'edpkg': {str(mapped)!r}}}\n"
            ),
            "__editable__.dyn-1.pth": "import __editable___dyn_1_finder; x.install()\n",
            "__editable___dyn_1_finder.py": "MAPPING = dict(dyn=compute())\n",
        },
    )
    chosen = find_environment(tmp_path, str(tmp_path / "env"), "--python", {})
    assert chosen.paths == (site, extra)
    assert chosen.editable == (("edpkg", mapped),)  # a MAPPING that is not a literal: none

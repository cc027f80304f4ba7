"""The generated-code convention: templates (``modular_*.py`` named by a generated file's
header) are skipped unless ``check-templates`` is set; a finding in a generated file names
its template and offers no fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from initlint.generated import GeneratedCode
from integration.conftest import Project

CASE = Path(__file__).parents[1] / "fixtures" / "check" / "generated_code"
MODELS = "pkg/models/tiny"


@pytest.fixture
def tiny(project: Project) -> Project:
    shutil.copytree(CASE / "pkg", project.root / "pkg")
    return project


def _sites(run_stdout: str) -> list[str]:
    return sorted(f"{d['path']}:{d['line']}" for d in json.loads(run_stdout))


def test_templates_are_skipped_by_default(tiny: Project) -> None:
    sites = _sites(tiny.check("--format", "json").stdout)
    assert sites == [f"{MODELS}/modeling_tiny.py:17", f"{MODELS}/modular_notes.py:10"]


def test_check_templates_turns_it_off(tiny: Project) -> None:
    tiny.config("[tool.initlint]\ncheck-templates = true\n")
    sites = _sites(tiny.check("--format", "json").stdout)
    assert f"{MODELS}/modular_tiny.py:10" in sites
    assert "check-templates = true  # " in tiny.check("--show-settings").stdout


def test_show_settings_says_templates_are_skipped(tiny: Project) -> None:
    assert "check-templates = false  # default" in tiny.check("--show-settings").stdout


def test_bad_check_templates_value(project: Project) -> None:
    project.config('[tool.initlint]\ncheck-templates = "yes"\n')
    run = project.check()
    assert run.code == 2
    assert "check-templates must be true or false" in run.stderr


def test_a_generated_file_names_its_template_and_has_no_fix(tiny: Project) -> None:
    data = json.loads(tiny.check("--format", "json").stdout)
    generated = next(d for d in data if d["path"].endswith("modeling_tiny.py"))
    assert (
        f"generated from {MODELS}/modular_tiny.py: make the change there" in (generated["message"])
    )
    assert generated["fix"] is None
    assert {
        "path": f"{MODELS}/modular_tiny.py",
        "line": 1,
        "message": "the template this file is generated from",
    } in generated["related"]


def test_no_fix_edits_a_generated_file(tiny: Project) -> None:
    """modular_notes.py is an ordinary module, but its only fix would add a flag to the
    generated TinyBlock: the generator would undo it, so no fix is offered, and `fix`
    leaves every file as it was."""
    data = json.loads(tiny.check("--format", "json").stdout)
    notes = next(d for d in data if d["path"].endswith("modular_notes.py"))
    assert notes["fix"] is None
    before = {p: p.read_bytes() for p in (tiny.root / "pkg").rglob("*.py")}
    tiny.invoke("fix", "--unsafe-fixes", ".")
    assert {p: p.read_bytes() for p in (tiny.root / "pkg").rglob("*.py")} == before


def test_detection(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "modular_a.py").write_text("x = 1\n")
    (folder / "modular_b.py").write_text("x = 1\n")  # no generated file names it
    (folder / "modeling_a.py").write_text(
        "# header\n#   This file was automatically generated from src/pkg/m/modular_a.py.\n"
    )
    (folder / "plain.py").write_text("# The part of the file below was automatically generated.\n")
    gen = GeneratedCode()
    assert gen.is_template(folder / "modular_a.py")
    assert not gen.is_template(folder / "modular_b.py")
    assert gen.template_of(folder / "modeling_a.py") == folder / "modular_a.py"
    assert gen.template_of(folder / "plain.py") is None
    assert gen.template_of(folder / "missing.py") is None

"""Issue 18's smaller items: what a ruff user expects of options, config, output and docs."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main

from .conftest import CHILD_LINE, REPO_ROOT, Project

FINDING = f"pkg/child.py:{CHILD_LINE}:9: IL001"


# -- docs, URLs and the license -------------------------------------------------------------


def _homepage() -> str:
    meta = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(meta["project"]["urls"]["Homepage"])


def _docs() -> dict[str, str]:
    files = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    return {f.name: f.read_text(encoding="utf-8") for f in files}


def test_one_repository_url_everywhere() -> None:
    home = _homepage()
    for name, text in _docs().items():
        for url in re.findall(r"https://github\.com/[\w.-]+/[\w.-]+", text):
            assert url == home, (name, url)
    assert home in _docs()["README.md"]


def test_pre_commit_snippets_name_no_missing_tag() -> None:
    """No release is tagged: a snippet's rev must be one pre-commit can check out."""
    revs = [
        (name, rev)
        for name, text in _docs().items()
        for rev in re.findall(r"^\s*rev:\s*(\S+)", text, flags=re.M)
    ]
    assert revs, "the README shows a pre-commit snippet"
    for name, rev in revs:
        assert not re.fullmatch(r"v?\d+(\.\d+)*", rev), (name, rev)


def test_license_file_matches_the_metadata() -> None:
    meta = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == {"text": "Apache-2.0"}
    text = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


# -- options and configuration --------------------------------------------------------------


def test_config_file_with_top_level_keys(rope_project: Project) -> None:
    """``--config initlint.toml`` reads top-level keys, as ruff reads ruff.toml."""
    rope_project.write("initlint.toml", 'ignore = ["IL001"]\n')
    run = rope_project.check("--config", "initlint.toml", ".")
    assert run.code == 0, run.stdout + run.stderr
    rope_project.write("initlint.toml", 'ignore = ["IL001"]\nselct = []\n')
    bad = rope_project.check("--config", "initlint.toml", ".")
    assert bad.code == 2 and "unknown key 'selct'" in bad.stderr and "initlint.toml" in bad.stderr
    shown = rope_project.check("--config", "initlint.toml", "--show-settings")
    assert shown.code == 2


def test_config_key_value_override(rope_project: Project) -> None:
    assert rope_project.check("--config", 'ignore = ["IL001"]', ".").code == 0
    bad = rope_project.check("--config", "ignore = [", ".")
    assert bad.code == 2 and "--config" in bad.stderr


def test_empty_select_is_an_error(rope_project: Project) -> None:
    run = rope_project.check("--select", "", ".")
    assert run.code == 2
    assert "--select" in run.stderr and "empty" in run.stderr


def test_no_python_files_warns(project: Project) -> None:
    (project.root / "docs").mkdir()
    (project.root / "docs" / "index.md").write_text("# hi\n", encoding="utf-8")
    run = project.check("docs")
    assert run.code == 0
    assert "warning: no Python files found" in run.stderr


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_statistics_has_no_sarif_or_github_form(rope_project: Project, fmt: str) -> None:
    run = rope_project.check("--statistics", "--format", fmt, ".")
    assert run.code == 2
    assert "--statistics" in run.stderr and run.stdout == ""


def test_output_format_alias_and_environment(
    rope_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_json = rope_project.check("--output-format", "json", ".")
    assert json.loads(as_json.stdout)[0]["code"] == "IL001"
    monkeypatch.setenv("INITLINT_OUTPUT_FORMAT", "json")
    from_env = rope_project.check(".")
    assert json.loads(from_env.stdout) == json.loads(as_json.stdout)
    assert FINDING in rope_project.check("--format", "text", ".").stdout  # the flag wins
    monkeypatch.setenv("INITLINT_OUTPUT_FORMAT", "xml")
    assert rope_project.check(".").code == 2


def test_json_message_carries_no_fix_tag(rope_project: Project) -> None:
    (d,) = json.loads(rope_project.check("--format", "json", ".").stdout)
    assert d["fix"]["applicability"] == "safe"
    assert "[fix:" not in d["message"]
    sarif = json.loads(rope_project.check("--format", "sarif", ".").stdout)
    (result,) = sarif["runs"][0]["results"]
    assert "[fix:" not in result["message"]["text"]
    assert "[fix: safe]" in rope_project.check(".").stdout  # the text keeps it


# -- trace ----------------------------------------------------------------------------------


def test_trace_help_names_what_docs_name() -> None:
    pytest.importorskip("torch")
    out = " ".join(CliRunner().invoke(main, ["trace", "--help"]).stdout.split())
    assert "sampled RSS" not in out
    assert "mallinfo2" in out
    assert "mallinfo2" in (REPO_ROOT / "docs" / "trace.md").read_text(encoding="utf-8")


def test_trace_sites_relative_in_text_and_json(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    samples = REPO_ROOT / "tests" / "runtime" / "samples"
    monkeypatch.chdir(samples.parent)
    target = "rt_samples.models:BuggyChild(size=128, dim=16)"
    text = CliRunner().invoke(main, ["trace", target, "--path", str(samples)]).stdout
    data = json.loads(
        CliRunner().invoke(main, ["trace", target, "--path", "samples", "--format", "json"]).stdout
    )
    sites = [s for r in data["repeated"] for s in r["sites"]]
    assert sites and all(not Path(s.rsplit(":", 1)[0]).is_absolute() for s in sites), sites
    for site in sites:
        assert site in text, (site, text)
    assert all(not Path(e["site"].rsplit(":", 1)[0]).is_absolute() for e in data["events"])

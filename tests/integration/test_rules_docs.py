"""`initlint rules`, `initlint explain`, rule documentation, and docs/rules.md kept in sync."""

from __future__ import annotations

import json
import re

import pytest

from initlint.output.rules_doc import render_rules_markdown
from initlint.rules import DOC_SECTIONS, REGISTRY
from initlint.rules.base import register

from .conftest import REPO_ROOT, Project

SECTIONS = ("What it does", "Why is this bad", "Example", "Use instead", "Fix safety")


def test_doc_sections_are_the_documented_ones() -> None:
    assert DOC_SECTIONS == SECTIONS


def test_codes_and_names_are_unique_and_well_formed() -> None:
    codes = [r.code for r in REGISTRY.values()]
    names = [r.name for r in REGISTRY.values()]
    assert list(REGISTRY) == codes
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert all(re.fullmatch(r"IL\d{3}", c) for c in codes)
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", n) for n in names)


def test_registering_a_duplicate_code_fails() -> None:
    existing = type(next(iter(REGISTRY.values())))
    with pytest.raises(ValueError, match="duplicate rule code"):
        register(type("Again", (existing,), {}))


@pytest.mark.parametrize("code", list(REGISTRY))
def test_every_rule_documents_every_section(code: str) -> None:
    rule = REGISTRY[code]
    assert rule.summary.strip()
    assert set(rule.docs) == set(SECTIONS)
    for section in SECTIONS:
        assert rule.docs[section].strip(), f"{code}: empty {section!r}"


@pytest.mark.parametrize("code", list(REGISTRY))
def test_explain_prints_the_sections_in_order(project: Project, code: str) -> None:
    rule = REGISTRY[code]
    run = project.invoke("explain", code.lower())
    assert run.code == 0
    out = run.stdout
    assert out.startswith(f"{code} ({rule.name})\n")
    positions = [out.index(f"## {s}\n") for s in SECTIONS]
    assert positions == sorted(positions)
    for section in SECTIONS:
        assert rule.docs[section].strip() in out
    assert project.invoke("explain", rule.name).stdout == out


@pytest.mark.parametrize("arg", ["IL999", "IL00", "nonsense"])
def test_explain_unknown_rule_exits_2(project: Project, arg: str) -> None:
    run = project.invoke("explain", arg)
    assert run.code == 2
    assert arg in run.stderr and "initlint rules" in run.stderr


def test_rules_lists_every_rule(project: Project) -> None:
    run = project.invoke("rules")
    assert run.code == 0
    lines = run.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == list(REGISTRY)
    for line, rule in zip(lines, REGISTRY.values(), strict=True):
        assert rule.name in line and rule.summary in line
        assert ("  fix  " in line) is rule.fixable


def test_rules_json(project: Project) -> None:
    data = json.loads(project.invoke("rules", "--format", "json").stdout)
    assert [d["code"] for d in data] == list(REGISTRY)
    assert all(set(d) == {"code", "name", "summary", "fixable"} for d in data)


def test_docs_rules_md_is_up_to_date(project: Project) -> None:
    committed = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    generated = render_rules_markdown(REGISTRY.values())
    assert committed == generated, (
        "docs/rules.md is stale: run `initlint rules --format markdown > docs/rules.md`"
    )
    assert project.invoke("rules", "--format", "markdown").stdout == generated
    for rule in REGISTRY.values():
        assert f"\n## {rule.code} {rule.name}\n" in generated
        for section in SECTIONS:
            assert rule.docs[section].strip() in generated

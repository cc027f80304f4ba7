"""A rule is one unit (docs/architecture.md, "How to add a rule"): a class registered from a
single place, with its docs, examples, detection and wording, is reported by `check`,
explained by `initlint explain`, listed by `initlint rules` and in the rules reference,
without a line changed anywhere else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.driver import analyze
from initlint.output.rules_doc import render_rules_markdown
from initlint.rules import DOC_SECTIONS, REGISTRY
from initlint.rules.base import Analyses, Finding, RepeatFinding, Rule, Wording, register
from initlint.simulation.engine import Simulation

BASE = """\
class Base:
    def __init__(self):
        self.size = 1


"""
SOURCE = (
    BASE
    + """\
class Widget(Base):
    def __init__(self):
        super().__init__()
        self.magic = 42


class Plain(Base):
    def __init__(self):
        super().__init__()
        self.other = 1
"""
)


class MagicAttribute(Rule):
    """A toy rule: flags every ``self.magic = ...`` in a constructor."""

    code = "IL099"
    name = "magic-attribute"
    summary = "A constructor sets `self.magic`."
    docs = {
        "What it does": "Flags an assignment to `self.magic` in a class's construction.",
        "Why is this bad": "It only shows that a rule can be added in one place.",
        "Example": "```python\nclass W:\n    def __init__(self):\n        self.magic = 1\n```",
        "Use instead": "```python\nclass W:\n    def __init__(self):\n        self.plain = 1\n```",
        "Fix safety": "No automatic fix.",
    }
    VALID = (BASE + "class W(Base):\n    def __init__(self):\n        super().__init__()\n",)
    INVALID = (
        BASE
        + "class W(Base):\n    def __init__(self):\n        super().__init__()\n"
        + "        self.magic = 1\n",
    )

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        return [
            RepeatFinding(self.code, sim, e, e, "definite", f"`self.{e.name}`")
            for e in sim.events
            if e.kind == "assign" and e.name == "magic" and not e.shadow
        ]

    def message(self, finding: Finding, wording: Wording) -> str:
        return f"{finding.what} is magic (set in {wording.first_fn})"


@pytest.fixture
def magic_rule() -> Iterator[Rule]:
    register(MagicAttribute)
    try:
        yield REGISTRY["IL099"]
    finally:
        del REGISTRY["IL099"]


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "widgets.py").write_text(SOURCE)
    return tmp_path


def test_an_added_rule_is_reported(tmp_path: Path, magic_rule: Rule) -> None:
    root = _project(tmp_path)
    analysis = analyze([root], cwd=root, use_cache=False, jobs=1)
    found = [(d.path, d.line, d.code, d.rule, d.message) for d in analysis.diagnostics]
    assert found == [
        (
            "widgets.py",
            9,
            "IL099",
            "magic-attribute",
            "`self.magic` is magic (set in Widget.__init__)",
        )
    ]


def test_an_added_rule_is_reported_by_the_command_line(tmp_path: Path, magic_rule: Rule) -> None:
    root = _project(tmp_path)
    run = CliRunner().invoke(
        main, ["check", "--no-cache", "--format", "json", str(root / "widgets.py")]
    )
    assert run.exit_code == 1, run.output
    [item] = json.loads(run.stdout)
    assert (item["code"], item["rule"], item["line"]) == ("IL099", "magic-attribute", 9)
    ignored = CliRunner().invoke(main, ["check", "--no-cache", "--ignore", "IL099", str(root)])
    assert ignored.exit_code == 0, ignored.output


def test_an_added_rule_is_explained_and_documented(magic_rule: Rule) -> None:
    explained = CliRunner().invoke(main, ["explain", "IL099"])
    assert explained.exit_code == 0
    assert explained.output.startswith("IL099 (magic-attribute)\n")
    for section in DOC_SECTIONS:
        assert f"## {section}\n" in explained.output
    listed = CliRunner().invoke(main, ["rules"])
    assert "IL099" in listed.output and "magic-attribute" in listed.output
    reference = render_rules_markdown(REGISTRY.values())
    assert "## IL099 magic-attribute" in reference
    assert "| [IL099](#il099-magic-attribute) | `magic-attribute` |" in reference


def test_an_added_rules_examples_hold(tmp_path: Path, magic_rule: Rule) -> None:
    """The same check the suite runs on every registered rule's VALID/INVALID examples."""
    for kind, sources in (("VALID", magic_rule.VALID), ("INVALID", magic_rule.INVALID)):
        for i, source in enumerate(sources):
            root = tmp_path / f"{kind}{i}"
            root.mkdir()
            (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
            (root / "example.py").write_text(source)
            codes = {d.code for d in analyze([root], cwd=root, use_cache=False).diagnostics}
            assert ("IL099" in codes) == (kind == "INVALID"), (kind, codes)


def test_each_rule_lives_in_the_module_named_for_its_code() -> None:
    """``rules/il<code>_<what>.py``: the package registers every such module it holds."""
    for code, rule in REGISTRY.items():
        module = type(rule).__module__
        assert module.startswith("initlint.rules.il"), (code, module)
        number = module.rsplit(".", 1)[-1][2:5]
        assert code == f"IL{number}" or number == "900", (code, module)

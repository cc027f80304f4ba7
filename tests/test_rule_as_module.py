"""A rule is one unit (docs/architecture.md, "How to add a rule"): a class registered from a
single place, with its docs, examples, detection and wording, is reported by `check`,
explained by `initlint explain`, listed by `initlint rules` and in the rules reference,
without a line changed anywhere else. What it can do is declared on it, and asked of it: the
fixer plans the fix strategies it allows, `initlint explain-class` shows its decision in its
words, and a whole-model trace links its findings to the runtime repeats it predicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, get_args

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.driver import analyze
from initlint.output.rules_doc import render_rules_markdown
from initlint.rules import DOC_SECTIONS, REGISTRY
from initlint.rules.base import (
    Analyses,
    DisabledFinding,
    Finding,
    RepeatFinding,
    Rule,
    RuntimeKind,
    Wording,
    register,
)
from initlint.runtime.agreement import MappedFinding, RuntimeGroup, predicts
from initlint.runtime.model import EventKind, Repeat
from initlint.runtime.model_trace import ModelTrace, ObjectRepeat, StaticFinding
from initlint.runtime.static_link import static_findings
from initlint.runtime.whole import link_findings
from initlint.simulation.records import Simulation

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


# ---- what a rule declares it can do: fixes, explain-class, the runtime link ------------------

CALLS = """\
class Base:
    def __init__(self):
        self.magic()

    def magic(self):
        self.count = 1


class Again(Base):
    def __init__(self):
        super().__init__()
        self.magic()
"""
KEEPS = """\
class Keeper:
    def __init__(self):
        self.table = self.magic()

    def magic(self):
        return [1]


class Again(Keeper):
    def __init__(self):
        super().__init__()
        self.magic()
"""
SWITCHES = """\
class Charmed:
    def __init__(self, charm=True):
        if charm:
            self.spell = 1


class Muggle(Charmed):
    def __init__(self):
        super().__init__(charm=False)
        self.plain = 2
"""
_DOCS = {section: "A toy rule of the test." for section in DOC_SECTIONS}


class MagicCalledAgain(Rule):
    """A toy repeat rule: ``self.magic()`` called again after the ancestors called it (a
    cheap call, which IL002 leaves alone). It allows one fix, deleting the redo, and
    predicts a runtime repeat of a call."""

    code = "IL098"
    name = "magic-called-again"
    summary = "A constructor calls `self.magic()` again."
    docs = _DOCS
    fix_strategies = frozenset({"delete"})
    runtime_repeats = frozenset({"call"})

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        calls = [e for e in sim.events if e.kind == "call" and e.name == "magic" and not e.shadow]
        firsts = [e for e in calls if e.ancestor]
        return [
            RepeatFinding(self.code, sim, e, firsts[0], "definite", f"`self.{e.name}()`")
            for e in calls
            if firsts and not e.ancestor
        ]

    def message(self, finding: Finding, wording: Wording) -> str:
        return f"{finding.what} is called again: {wording.first_fn} already called it"


class MagicNotFixable(MagicCalledAgain):
    fix_strategies = frozenset()


class MagicNotDeleted(MagicCalledAgain):
    """Fixable, but not by deleting the redo: only with a flag (none is worth adding here)."""

    fix_strategies = frozenset({"switch-off", "thread"})


class MagicThreaded(MagicCalledAgain):
    """Fixable only by a flag that switches the ancestor's call off."""

    fix_strategies = frozenset({"thread"})


class MagicThreadedAsAttribute(MagicThreaded):
    runtime_repeats = frozenset({"attribute"})


class MagicUntraced(MagicCalledAgain):
    runtime_repeats = frozenset()


class MagicAsAttribute(MagicCalledAgain):
    runtime_repeats = frozenset({"attribute"})


class SpellSwitchedOff(Rule):
    """A toy rule about a class, not a statement: an ancestor's ``self.spell`` switched off
    by an argument the class passes. explain-class shows it in the rule's own words."""

    code = "IL097"
    name = "spell-switched-off"
    summary = "A constructor switches off the ancestor's `self.spell`."
    docs = _DOCS
    points_at_statement = False

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        out: list[Finding] = []
        for e in sim.events:
            origin = next((o for o in e.switched_off_by if o.frame == sim.top_frame), None)
            if e.shadow and e.ancestor and e.name == "spell" and origin is not None:
                out.append(DisabledFinding(self.code, sim, origin, e, "definite", "`spell`", (e,)))
        return out

    def message(self, finding: Finding, wording: Wording) -> str:
        return f"{finding.what} is switched off"

    def decision(self, finding: Finding) -> str:
        return f"{finding.what} is left without its charm"


@contextmanager
def _registered(cls: type[Rule]) -> Iterator[Rule]:
    register(cls)
    try:
        yield REGISTRY[cls.code]
    finally:
        del REGISTRY[cls.code]


def _toy_project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "calls.py").write_text(CALLS)
    (tmp_path / "switches.py").write_text(SWITCHES)
    return tmp_path


def _check_json(path: Path) -> list[dict[str, Any]]:
    run = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", str(path)])
    assert run.exit_code == 1, run.output
    found: list[dict[str, Any]] = json.loads(run.stdout)
    return found


def test_the_fixer_plans_the_fix_a_rule_allows(tmp_path: Path) -> None:
    root = _toy_project(tmp_path)
    with _registered(MagicCalledAgain):
        [item] = _check_json(root / "calls.py")
        assert (item["code"], item["line"]) == ("IL098", 12)
        assert (item["fix"]["applicability"], item["fix"]["message"]) == (
            "safe",
            "delete the repeated statement",
        )
        [edit] = item["fix"]["edits"]  # (checked: the finding is gone after it)
        assert (edit["line"], edit["end_line"], edit["content"]) == (12, 13, "")
        diff = CliRunner().invoke(main, ["fix", "--no-cache", "--diff", str(root / "calls.py")])
        assert "-        self.magic()\n" in diff.output, diff.output
        assert (root / "calls.py").read_text() == CALLS  # (--diff writes nothing)


def test_the_fixer_plans_no_fix_for_a_rule_without_fixes(tmp_path: Path) -> None:
    root = _toy_project(tmp_path)
    with _registered(MagicNotFixable) as rule:
        assert not rule.fixable
        [item] = _check_json(root / "calls.py")
        assert item["code"] == "IL098"
        assert item["fix"] is None
        assert item["message"] == (
            "`self.magic()` is called again: Base.__init__ already called it"
        )  # no "[no fix]" tail: the rule offers none


def test_the_fixer_tries_only_the_strategies_a_rule_allows(tmp_path: Path) -> None:
    root = _toy_project(tmp_path)
    with _registered(MagicNotDeleted) as rule:
        assert rule.fixable
        [item] = _check_json(root / "calls.py")
        assert item["fix"] is None  # the deletion it does not allow is not offered
        assert item["message"].endswith(" [no fix]"), item["message"]
        assert "not worth a new constructor parameter" in item["no_fix"], item["no_fix"]


@pytest.mark.parametrize(
    ("rule", "no_fix"),
    [
        (MagicThreaded, "the ancestor uses the first call's result"),
        (MagicThreadedAsAttribute, "guarding the work in Keeper.__init__: switching it off"),
    ],
)
def test_the_fixer_keeps_a_call_whose_result_is_used_when_the_rule_repeats_calls(
    tmp_path: Path, rule: type[Rule], no_fix: str
) -> None:
    """Switching off the ancestor's call would lose the result it stores: the planner says so
    up front for a rule whose repeats are calls (``runtime_repeats``); for one about storage
    it goes on to guard the work, and finds the state it would drop."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "keeps.py").write_text(KEEPS)
    with _registered(rule):
        [item] = _check_json(tmp_path / "keeps.py")
    assert (item["code"], item["fix"]) == ("IL098", None)
    assert item["no_fix"].startswith(no_fix), item["no_fix"]


def test_explain_class_shows_a_rules_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _toy_project(tmp_path)
    monkeypatch.chdir(root)
    with _registered(SpellSwitchedOff), _registered(MagicCalledAgain):
        [item] = _check_json(root / "switches.py")
        assert (item["code"], item["line"], item["column"]) == ("IL097", 9, 26)
        # A finding at no statement of the class: shown in the words its rule gives.
        run = CliRunner().invoke(main, ["explain-class", "--no-cache", "switches:Muggle", "."])
        assert run.exit_code == 0, run.output
        assert "\n  IL097 warning: `spell` is left without its charm\n" in run.output, run.output
        # A repeat: shown at the statement that repeats, with the build it repeats.
        run = CliRunner().invoke(main, ["explain-class", "--no-cache", "calls:Again", "."])
        assert run.exit_code == 0, run.output
        assert "\n  #3   IL098 warning: `self.magic()` repeats #1 at calls.py:3 (cost light)\n" in (
            run.output
        )


def test_a_rules_runtime_kinds_are_the_traces() -> None:
    assert set(get_args(RuntimeKind)) == set(get_args(EventKind))


def _static(tmp_path: Path) -> tuple[StaticFinding, ...]:
    return static_findings([_toy_project(tmp_path) / "calls.py"])


def test_the_trace_links_the_findings_of_a_rule_that_predicts_repeats(tmp_path: Path) -> None:
    with _registered(MagicCalledAgain):
        [finding] = _static(tmp_path)
    assert (finding.code, finding.line, finding.classes) == ("IL098", 12, ("calls.Again",))
    with _registered(MagicUntraced):
        assert _static(tmp_path) == ()


def _group(kind: EventKind) -> RuntimeGroup:
    return RuntimeGroup("calls.Again", ("calls.Again", "calls.Base"), kind, "magic", ())


def _trace(kind: EventKind) -> ModelTrace:
    repeat = Repeat(kind, "magic", 2, 0, ("/p/calls.py:3", "/p/calls.py:12"))
    mro = ("calls.Again", "calls.Base")
    return ModelTrace(
        "calls.Again",
        0.0,
        None,
        "cpu",
        1,
        (ObjectRepeat(0, "calls.Again", "", repeat, mro=mro),),
        (),
    )


@pytest.mark.parametrize(
    ("rule", "kind", "linked"),
    [
        (MagicCalledAgain, "call", True),
        (MagicCalledAgain, "attribute", False),
        (MagicAsAttribute, "attribute", True),
        (MagicAsAttribute, "call", False),
        (MagicUntraced, "call", False),
    ],
)
def test_a_finding_predicts_the_runtime_repeat_its_rule_declares(
    rule: type[Rule], kind: EventKind, linked: bool
) -> None:
    """Matched by the item it names (not at a redo frame): the kind decides, as the rule says."""
    finding = StaticFinding(
        "IL098", "/p/calls.py", 12, "`self.magic()` is called again", ("calls.Again",)
    )
    with _registered(rule):
        assert predicts(MappedFinding(finding, ("calls.Again",), False), _group(kind), "x:1") is (
            linked
        )
        [repeat] = link_findings(_trace(kind), [finding]).repeats
        assert (repeat.finding == finding) is linked

"""Builds from a spec object's fields (megatron style): the field-value fact read from a
module's text, the builder shapes, and the warm results cache seeing a recipe change."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.facts import extract_facts
from initlint.facts.field_values import field_values
from initlint.facts.model import Body
from initlint.simulation.specs import builder_shape, spec_rewritten

CASE = Path(__file__).parent / "fixtures" / "check" / "spec_fields"


def facts_of(text: str) -> list[tuple[str, str, str, int]]:
    return [
        (f.callee, f.field, f.value, f.line)
        for f in field_values(textwrap.dedent(text).lstrip("\n"))
    ]


def test_keywords_naming_a_class_are_read_also_in_bodies_not_parsed() -> None:
    text = """
        def spec():
            return Recipe(
                cls=Block,
                parts=BlockParts(proj=layers.Projection, norm=Passthrough),  # a comment
            )
        """
    assert facts_of(text) == [
        ("Recipe", "cls", "Block", 3),
        ("BlockParts", "proj", "layers.Projection", 4),
        ("BlockParts", "norm", "Passthrough", 4),
    ]
    # and the fact pass keeps them though it blanks the function's body
    facts = extract_facts(textwrap.dedent(text))
    assert [f.value for f in facts.field_values] == ["Block", "layers.Projection", "Passthrough"]


def test_a_class_bodys_default_class_is_a_field_value_of_that_class() -> None:
    text = """
        @dataclass
        class Parts:
            proj: type = layers.Projection
            norm = Passthrough
            width: int = 8
            flag: bool = True
            name = "x"

            class Inner:
                gate: object = Gate
        """
    facts = extract_facts(textwrap.dedent(text).lstrip("\n")).field_values
    assert [(f.callee, f.field, f.value, f.line) for f in facts] == [
        ("Parts", "proj", "layers.Projection", 3),
        ("Parts", "norm", "Passthrough", 4),
        ("Parts.Inner", "gate", "Gate", 10),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "x = Parts(proj=make(Projection))\n",  # a call: its value is not the class
        "x = Parts(proj=Projection.build)\n",  # an attribute of it
        "x = Parts(proj=TABLE[0])\n",  # a subscript
        "x = Parts(flag=True, other=None)\n",  # constants
        "x = build(proj=Projection)\n",  # not a constructor's keyword
        "if a==Projection: pass\n",  # a comparison
        "x=Projection\n",  # an assignment, no call open
        "# Parts(proj=Projection)\n",  # a comment
        "x = [Parts, dict(proj=Projection)]\n",  # the innermost open bracket is dict(
    ],
)
def test_what_is_not_a_field_value(text: str) -> None:
    assert facts_of(text) == []


def body(text: str) -> Body:
    fn = extract_facts(textwrap.dedent(text)).functions[0]
    loaded = fn.load()
    assert isinstance(loaded, Body)
    return loaded


def test_builder_shapes() -> None:
    direct = builder_shape(body("def build(spec, *a, **k):\n    return spec(*a, **k)\n"))
    assert direct is not None and (direct.param, direct.local, direct.fields, direct.sure) == (
        "spec",
        "",
        ("",),
        True,
    )
    through_local = builder_shape(
        body(
            """
            def make(spec, *args, **kwargs):
                if isinstance(spec, type):
                    cls = spec
                elif hasattr(spec, "cls"):
                    cls = spec.cls
                else:
                    cls = locate(spec.path)
                return cls(*args, **kwargs)
            """
        )
    )
    assert through_local is not None
    assert (through_local.param, through_local.local, through_local.fields) == (
        "spec",
        "cls",
        ("", "cls"),
    )
    assert not through_local.sure  # cls may come from locate()
    # a local computed from something else is no builder's
    assert builder_shape(body("def f(spec):\n    cls = pick()\n    return cls()\n")) is None
    assert builder_shape(body("def f(spec):\n    return other(spec)\n")) is None


def test_a_spec_changed_in_place_after_a_build() -> None:
    keys = frozenset({"parts.proj"})
    assert spec_rewritten(keys, {"parts.proj": 5}, since=3)
    assert spec_rewritten(keys, {"parts": 5}, since=3)  # the whole object
    assert spec_rewritten(keys, {"parts.proj.cls": 5}, since=3)  # a part of it
    assert not spec_rewritten(keys, {"parts.proj": 2}, since=3)  # before the first build
    assert not spec_rewritten(keys, {"parts.gate": 5}, since=3)


def _run(root: Path, **kwargs: object) -> list[tuple[object, ...]]:
    analysis = analyze([root], cwd=root, jobs=1, **kwargs)  # type: ignore[arg-type]
    return [(d.path, d.line, d.code, d.severity, d.confidence) for d in analysis.diagnostics]


def test_a_recipe_edited_elsewhere_reprices_the_reused_file(
    tmp_path: Path, reused: list[Path]
) -> None:
    """pkg/variants.py imports nothing of pkg/recipes.py, yet what recipes.py gives a
    field decides what WideMixer's rebuild costs: its closure holds recipes.py."""
    root = tmp_path / "case"
    shutil.copytree(CASE, root)
    before = _run(root, reuse_results=True)
    assert ("pkg/variants.py", 11, "IL003", "error", "possible") in before
    recipes = root / "pkg" / "recipes.py"
    text = recipes.read_text().replace("proj=Projection", "proj=Passthrough")
    recipes.write_text(text)  # the projection is never a Projection now
    reused.clear()
    after = _run(root, reuse_results=True)
    assert root / "pkg" / "variants.py" not in reused
    assert after == _run(root, use_cache=False)
    assert ("pkg/variants.py", 11, "IL003", "warning", "possible") in after

"""Builds from a spec object's fields (``make(parts.proj, ...)``, ``parts.gate(...)``,
``recipe.cls(...)``): the ``spec_fields`` fixture traced object by object (``trace_model``)
with the parts its recipes give. Where a subclass builds again from the same field, the
ancestor's object is thrown away, and the repeat is linked to the static finding that
predicted it; where it builds from another field, from a rewritten one, or from parts of
its own, what is thrown away depends on the recipe, and the static finding is a possible one."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import ModelTrace, trace_model  # noqa: E402

WIDTH = 8
PROJ = WIDTH * WIDTH * 4  # Projection(8, 8): one fp32 weight


@pytest.fixture
def case(check_fixture: Callable[[str], Path]) -> Path:
    return check_fixture("spec_fields") / "pkg"


def traced(pkg: Path, cls: str, parts: str) -> ModelTrace:
    """``cls(WIDTH, parts)`` traced; ``parts`` as pkg/recipes.py gives them: "full"
    (full_mixer), "thin" (thin_mixer: the projection switched off), "head" (head)."""
    variants = importlib.import_module("pkg.variants")
    lay: Any = importlib.import_module("pkg.layers")
    rec: Any = importlib.import_module("pkg.recipe")
    given = {
        "full": lambda: lay.MixerParts(lay.Projection, lay.Projection, lay.Passthrough),
        "thin": lambda: lay.MixerParts(lay.Passthrough, lay.Projection, lay.Passthrough),
        "head": lambda: rec.Recipe(cls=lay.Projection),
    }[parts]
    return trace_model(lambda: getattr(variants, cls)(WIDTH, given()), project_roots=[pkg])


def seen(trace: ModelTrace) -> set[tuple[str | None, str, int, str | None]]:
    return {
        (r.path, r.repeat.name, r.bytes, r.finding.where.rsplit("/", 1)[-1] if r.finding else None)
        for r in trace.repeats
    }


def test_a_part_built_again_from_the_same_field_is_thrown_away(case: Path) -> None:
    assert seen(traced(case, "WideMixer", "full")) == {("", "proj", PROJ, "variants.py:11")}
    # Mixer called the field itself; GatedMixer hands it to make()
    assert seen(traced(case, "GatedMixer", "full")) == {("", "gate", PROJ, "variants.py:19")}


def test_a_part_from_the_fields_default_class(case: Path) -> None:
    # no recipe gives `out`: MixerParts' own default, a Projection, is built twice
    assert seen(traced(case, "OutMixer", "full")) == {("", "out", PROJ, "variants.py:71")}


def test_the_recipes_class_built_again_by_hand(case: Path) -> None:
    assert seen(traced(case, "TiedHead", "head")) == {("", "out", PROJ, "variants.py:35")}


def test_a_parameterless_part_built_again_costs_nothing(case: Path) -> None:
    # the warning's part: the recipes only ever give a Passthrough
    assert seen(traced(case, "RenormedMixer", "full")) == {("", "norm", 0, "variants.py:27")}


SWAPS = {"SwappedMixer": "variants.py:44", "RewrittenMixer": "variants.py:54"}


@pytest.mark.parametrize("cls", [*SWAPS, "OwnPartsMixer"])
def test_another_part_is_a_possible_rebuild(case: Path, cls: str) -> None:
    """Which class a spec's field holds is not in the code, so what Mixer built there has a
    cost initlint cannot follow: never cheap, the rebuild is claimed as a possible one, and
    every store the runtime sees of it is linked to that finding."""
    line = {**SWAPS, "OwnPartsMixer": "variants.py:63"}[cls]
    for parts in ("full", "thin"):
        assert {where for *_, where in seen(traced(case, cls, parts))} == {line}


def test_another_part_thrown_away_costs_what_the_recipe_gave(case: Path) -> None:
    """With the full recipe, Mixer's projection is thrown away for another part's object;
    with the thin one Mixer built a Passthrough, and nothing costly is lost: the possible
    finding is right for either caller."""
    for cls, line in SWAPS.items():
        assert seen(traced(case, cls, "full")) == {("", "proj", PROJ, line)}
        assert {(n, size) for _, n, size, _ in seen(traced(case, cls, "thin")) if size} == set()
    # OwnPartsMixer gave Mixer a Passthrough of its own: nothing costly either way
    assert {
        (n, size) for _, n, size, _ in seen(traced(case, "OwnPartsMixer", "full")) if size
    } == set()

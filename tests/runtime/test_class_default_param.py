"""A class reached through a parameter's default (``mixer_cls=Mixer``) and a base chosen for
run time under ``if TYPE_CHECKING: ... else:``: the ``class_default_param`` fixture traced
object by object (``trace_model``), each repeat linked to the finding that predicted it, also
when the statement that redid the work sits in another file than the submodule's class."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import ModelTrace, trace_model  # noqa: E402

WIDTH = 8
LINEAR_INP = (WIDTH * 3 * WIDTH + 3 * WIDTH) * 4  # Linear(8, 24), fp32: weight and bias


@pytest.fixture
def case(check_fixture: Callable[[str], Path]) -> Path:
    copy = check_fixture("class_default_param")
    return copy / "pkg"


def traced(pkg: Path, target: str) -> ModelTrace:
    module, _, cls = target.partition(":")
    m = importlib.import_module(f"pkg.{module}")
    return trace_model(lambda: getattr(m, cls)(WIDTH), project_roots=[pkg])


def seen(trace: ModelTrace) -> set[tuple[str | None, str, int, str | None]]:
    return {
        (r.path, r.repeat.name, r.bytes, r.finding.where.rsplit("/", 1)[-1] if r.finding else None)
        for r in trace.repeats
    }


def test_the_default_class_is_built_and_its_part_rebuilt(case: Path) -> None:
    # Layer built the default Mixer; the subclass replaces its input projection
    assert seen(traced(case, "variants:WideLayer")) == {
        ("mixer", "inp", LINEAR_INP, "variants.py:12")
    }
    # the same through a base that the type checker sees as a stub
    assert seen(traced(case, "draft:DraftLayer")) == {("mixer", "inp", LINEAR_INP, "draft.py:26")}


def test_a_clean_variant_repeats_nothing(case: Path) -> None:
    assert seen(traced(case, "variants:TunedLayer")) == set()

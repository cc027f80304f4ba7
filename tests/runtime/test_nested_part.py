"""A part of a submodule rebuilt (``self.mixer.inp = ...`` after the ancestor built
``self.mixer``): the checker's findings on the ``nested_part_rebuilt`` fixture against what
constructing each class really repeats, traced object by object (``trace_model``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import ModelTrace, trace_model  # noqa: E402

WIDTH = 8
LINEAR_INP = (WIDTH * 3 * WIDTH + 3 * WIDTH) * 4  # Linear(8, 24), fp32: weight and bias


@pytest.fixture
def blocks(check_fixture: Callable[[str], Path]) -> Path:
    copy = check_fixture("nested_part_rebuilt")
    return copy / "pkg" / "blocks.py"


def traced(path: Path, cls: str, **kwargs: object) -> ModelTrace:
    import pkg.blocks as m

    return trace_model(lambda: getattr(m, cls)(WIDTH, **kwargs), project_roots=[path.parent])


def seen(trace: ModelTrace) -> set[tuple[str | None, str, int, str | None]]:
    return {
        (r.path, r.repeat.name, r.bytes, r.finding.where.rsplit("/", 1)[-1] if r.finding else None)
        for r in trace.repeats
    }


def test_a_rebuilt_part_is_repeated_on_the_submodule_and_linked(blocks: Path) -> None:
    # the heavy rebuild: Mixer's own Linear is thrown away, and the IL003 error predicted it
    assert seen(traced(blocks, "WideInputBlock")) == {("mixer", "inp", LINEAR_INP, "blocks.py:29")}
    # the light one (the IL003 warning): a parameterless activation, no bytes
    assert seen(traced(blocks, "SharpBlock")) == {("mixer", "act", 0, "blocks.py:37")}
    # the possible one, with its flag on
    assert seen(traced(blocks, "Gated", wide=True)) == {
        ("mixer", "inp", LINEAR_INP, "blocks.py:65")
    }
    assert seen(traced(blocks, "Gated")) == set()


def test_a_wrapped_or_new_part_is_no_repeat(blocks: Path) -> None:
    assert seen(traced(blocks, "TiedBlock")) == set()


def test_own_work_done_twice_is_linked_to_the_discard(blocks: Path) -> None:
    """The class builds the mixer itself, then replaces a part of it: the runtime sees the
    repeat, and IL005 (a part thrown away in one construction) predicted it."""
    assert seen(traced(blocks, "OwnMixerBlock")) == {("mixer", "inp", LINEAR_INP, "blocks.py:56")}


def test_a_live_object_set_up_again_repeats_all_it_built(
    check_fixture: Callable[[str], Path],
) -> None:
    copy = check_fixture("reinit_live_object")
    import pkg.wrap as m

    narrow = trace_model(lambda: m.NarrowRouter(WIDTH), project_roots=[copy / "pkg"])
    up = (WIDTH * 4 * WIDTH + 4 * WIDTH) * 4  # the first Linear(8, 32), fp32
    down = (4 * WIDTH * WIDTH + WIDTH) * 4  # the first Linear(32, 8)
    assert seen(narrow) == {
        ("expert", "up", up, "wrap.py:23"),
        ("expert", "down", down, "wrap.py:23"),
    }
    plain = trace_model(lambda: m.PlainRouter(WIDTH), project_roots=[copy / "pkg"])
    assert seen(plain) == set()

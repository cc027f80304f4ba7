"""Storing again what is already held is not a rebuild: a getter's result, a wrapper around
the old submodule, ``weight_norm`` handing the same module back, a parameter assigned to itself.

Each shape was a false positive of the tracer (seen on transformers models): the trace must
report no repeat for it, while the same code that does rebuild first still repeats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import ModelTrace, trace_init, trace_model  # noqa: E402

DIM = 16


def reuse(samples: Path) -> Any:
    import rt_samples.reuse

    return rt_samples.reuse


def repeats_of(trace: ModelTrace, cls: str) -> set[tuple[str, str, int, int]]:
    return {
        (r.repeat.kind, r.repeat.name, r.repeat.count, r.bytes)
        for r in trace.repeats
        if r.class_name == f"rt_samples.reuse.{cls}"
    }


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_a_getter_that_hands_back_a_stored_tensor_is_not_a_call_of_init_work(
    samples: Path, device: str
) -> None:
    m = reuse(samples)
    trace = trace_model(lambda: m.SharedHeads(64, DIM), device=device, static=False)
    assert repeats_of(trace, "SharedHeads") == set()  # lookup("embed.weight") twice: two reads
    # Tying does drop each head's own first weight: that stays a (real) repeat on each head.
    ties = [r for r in trace.repeats if r.class_name == "torch.nn.modules.linear.Linear"]
    assert sorted((r.path, r.repeat.name, r.bytes) for r in ties) == [
        ("head_a", "weight", 64 * DIM * 4),
        ("head_b", "weight", 64 * DIM * 4),
    ]
    root = trace_init(lambda: m.SharedHeads(64, DIM), device=device)
    assert root.repeated_names("call") == frozenset()
    assert not [e for e in root.events if e.name == "SharedHeads.lookup"]


def test_a_call_that_builds_what_it_returns_is_still_priced(samples: Path) -> None:
    import rt_samples.models as models

    trace = trace_init(lambda: models.BuggyChild(size=64, dim=8))
    (build,) = [r for r in trace.repeated if r.kind == "call"]
    assert (build.name, build.count, build.bytes) == ("CachedBase._build", 2, 64 * 8 * 4)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_wrapping_a_submodule_is_not_rebuilding_it(samples: Path, device: str) -> None:
    m = reuse(samples)
    trace = trace_model(lambda: m.WrappedDetector(DIM), device=device, static=False)
    assert not trace.has_repeats, trace.repeats
    root = trace_init(lambda: m.WrappedDetector(DIM), device=device)
    assert not root.has_repeats
    wraps = [e for e in root.events if e.name == "backbone"]
    assert [e.wraps for e in wraps] == [False, True]
    assert wraps[1].to_json()["wraps"] is True and "wraps" not in wraps[0].to_json()


def test_a_rebuild_before_the_wrap_still_repeats_once_with_the_first_build(
    samples: Path,
) -> None:
    m = reuse(samples)
    trace = trace_model(lambda: m.RebuiltThenWrapped(DIM), static=False)
    stem = (DIM * DIM + DIM) * 4
    assert repeats_of(trace, "RebuiltThenWrapped") == {("attribute", "backbone", 2, stem)}
    (outer,) = [r for r in trace.repeats if r.class_name.endswith("RebuiltThenWrapped")]
    assert trace.wasted_bytes == stem
    # The first backbone (the one dropped) is nested under the repeat; the wrapped one is kept.
    assert outer.nested_in is None
    assert trace_init(lambda: m.RebuiltThenWrapped(DIM)).wasted_bytes == stem


@pytest.mark.parametrize("parametrized", [False, True])
def test_weight_norm_handing_the_same_conv_back_is_not_a_rebuild(
    samples: Path, parametrized: bool
) -> None:
    m = reuse(samples)
    trace = trace_model(lambda: m.NormedConv(8, parametrized), device="meta", static=False)
    assert not trace.has_repeats, trace.repeats
    root = trace_init(lambda: m.NormedConv(8, parametrized))
    assert [e.name for e in root.events if e.name == "conv"] == ["conv"]


def test_assigning_a_parameter_to_itself_is_not_a_second_parameter(samples: Path) -> None:
    m = reuse(samples)
    root = trace_init(lambda: m.SelfTied(DIM))
    assert not root.has_repeats
    assert [(e.kind, e.name) for e in root.events if e.kind != "call"] == [("parameter", "weight")]

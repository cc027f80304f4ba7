"""Whole-model tracing: every object's repeats, keyed by identity, nested waste once, and each
repeat linked to the static finding that predicted it."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from initlint.cli import main  # noqa: E402
from initlint.runtime import ModelTrace, ObjectRepeat, trace_model  # noqa: E402
from initlint.runtime.render import render_model_text  # noqa: E402

DIM, LAYERS = 16, 3
LINEAR = (DIM * DIM + DIM) * 4  # one Block: its Linear's weight and bias, fp32
TABLE = DIM * DIM * 4


@pytest.fixture
def nested(forget_modules: Path, samples: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of rt_samples outside the repo (whose pyproject excludes the samples from check)."""
    copy = forget_modules / "pkgs"
    shutil.copytree(samples / "rt_samples", copy / "rt_samples")
    for name in [n for n in sys.modules if n.partition(".")[0] == "rt_samples"]:
        monkeypatch.delitem(sys.modules, name)  # imported from the repo by another test
    monkeypatch.syspath_prepend(str(copy))
    return copy / "rt_samples" / "nested.py"


def line_of(path: Path, text: str, nth: int = 1) -> int:
    lines = [i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return lines[nth - 1]


def vision(nested: Path, **kwargs: Any) -> ModelTrace:
    import rt_samples.nested as m

    return trace_model(lambda: m.VisionModel(DIM, LAYERS), **kwargs)


def by_class(trace: ModelTrace, name: str) -> list[ObjectRepeat]:
    return [r for r in trace.repeats if r.class_name == f"rt_samples.nested.{name}"]


def test_repeats_are_keyed_by_object(nested: Path) -> None:
    trace = vision(nested, static=False)
    layers = by_class(trace, "Layer")
    assert len({r.object_id for r in layers}) == LAYERS
    assert sorted(str(r.path) for r in layers) == [f"layers.{i}" for i in range(LAYERS)]
    assert {(r.repeat.kind, r.repeat.name, r.repeat.count, r.bytes) for r in layers} == {
        ("buffer", "table", 2, TABLE)
    }
    towers = by_class(trace, "Tower")
    assert len({r.object_id for r in towers}) == 2  # the replaced tower and the kept one
    assert sorted(str(r.path) for r in towers) == ["None", "tower"]
    (root,) = by_class(trace, "VisionModel")
    assert (root.path, root.repeat.kind, root.repeat.name, root.bytes) == (
        "",
        "attribute",
        "tower",
        LINEAR,
    )


def test_nested_waste_is_reported_under_its_repeat_and_counted_once(nested: Path) -> None:
    trace = vision(nested, static=False)
    (root,) = by_class(trace, "VisionModel")
    replaced, kept = sorted(by_class(trace, "Tower"), key=lambda r: r.path is not None)
    assert replaced.path is None
    assert replaced.nested_in == trace.repeats.index(root)
    assert kept.nested_in is None
    assert trace.top_level() == tuple(r for r in trace.repeats if r is not replaced)
    # The first tower (with its own rebuilt block inside) is the root's repeat; its inner block
    # is not added again. The kept tower's rebuilt block and each layer's table are.
    assert trace.wasted_bytes == LINEAR + LINEAR + LAYERS * TABLE
    summaries = {c.class_name.rsplit(".", 1)[-1]: c for c in trace.classes}
    assert (summaries["Tower"].wasted_bytes, summaries["Tower"].nested_bytes) == (LINEAR, LINEAR)
    assert (summaries["Tower"].instances, summaries["Tower"].instances_with_repeats) == (2, 2)
    (group,) = summaries["Tower"].groups
    assert (group.objects, group.nested, group.wasted_bytes) == (2, 1, LINEAR)
    # Ranked by wasted bytes: the layers' tables first.
    assert [c.class_name.rsplit(".", 1)[-1] for c in trace.classes] == [
        "Layer",
        "Tower",
        "VisionModel",
    ]
    assert trace.wasted_bytes == sum(c.wasted_bytes for c in trace.classes)


def test_every_repeat_is_linked_to_its_static_finding(nested: Path) -> None:
    trace = vision(nested)
    assert trace.static == "linked"
    expected = {
        "VisionModel": ("IL003", line_of(nested, "self.tower = Tower(dim)", 2)),
        "Tower": ("IL003", line_of(nested, "self.block = Block(dim)", 2)),
        "Layer": ("IL001", line_of(nested, 'self.register_buffer("table"', 2)),
    }
    for r in trace.repeats:
        assert r.finding is not None, r
        assert (r.finding.code, r.finding.line) == expected[r.class_name.rsplit(".", 1)[-1]]
        assert r.finding.path == str(nested.resolve())
    for summary in trace.classes:
        assert all(g.finding is not None for g in summary.groups)
    data = trace.to_json()
    assert json.loads(json.dumps(data)) == data
    assert all(r["finding"]["code"] in ("IL001", "IL003") for r in data["repeats"])


def test_clean_model_repeats_nothing_and_results_are_frozen(nested: Path) -> None:
    import rt_samples.nested as m

    trace = trace_model(lambda: m.CleanModel(DIM))
    assert not trace.has_repeats and trace.wasted_bytes == 0
    assert trace.heavy() == () and trace.classes == ()
    assert trace.objects >= 4  # the model, the tower, its block and the layers
    assert trace.static == "off"  # nothing repeated: nothing to link
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.objects = 0  # type: ignore[misc]


def test_heavy_and_light_split_by_bytes(nested: Path) -> None:
    trace = vision(nested, static=False)
    assert trace.heavy(threshold=TABLE) == tuple(r for r in trace.top_level() if r.bytes >= TABLE)
    assert trace.light(threshold=TABLE) == ()
    assert len(trace.heavy()) == 0 and len(trace.light()) == len(trace.top_level())


def test_calls_repeat_only_with_equal_arguments_and_old_objects_are_not_traced(
    nested: Path,
) -> None:
    import rt_samples.nested as m

    trace = trace_model(m.Initialised, static=False)
    names = {
        (r.class_name.rsplit(".", 1)[-1], r.repeat.name, r.repeat.count) for r in trace.repeats
    }
    # _init(self.a) twice is a repeat; _init(self.b) once is not; the registry existed before
    # the call, so its lookups are not the model's; the Loader was built here and loads twice.
    assert names == {("Initialised", "Initialised._init", 2), ("Loader", "Loader._load", 2)}


def test_cli_all_modules_text_and_json(nested: Path) -> None:
    runner = CliRunner()
    args = ["trace", "rt_samples.nested:VisionModel(16, 3)", "--path", str(nested.parents[1])]
    text = runner.invoke(main, [*args, "--device", "meta", "--all-modules"])
    assert text.exit_code == 1, text.output
    assert "every module it built, on meta" in text.output
    assert "peak memory not measured on meta" in text.output
    assert (
        "rt_samples.nested.Tower: 1.1 KiB wasted, 1.1 KiB nested, 2 of 2 objects repeat"
        in text.output
    )
    assert "[IL003 " in text.output and "[IL001 " in text.output
    assert "(1 nested, counted once)" in text.output
    out = runner.invoke(main, [*args, "--all-modules", "--format", "json"])
    data = json.loads(out.output)
    assert data["wasted_bytes"] == LINEAR + LINEAR + LAYERS * TABLE
    assert [c["class"] for c in data["classes"]][0] == "rt_samples.nested.Layer"
    assert all(r["finding"] is not None for r in data["repeats"])
    off = json.loads(
        runner.invoke(main, [*args, "--all-modules", "--no-static", "--format", "json"]).output
    )
    assert off["static"] == "off" and all(r["finding"] is None for r in off["repeats"])


def test_text_rendering_lists_each_site_once_with_a_count(nested: Path) -> None:
    text = render_model_text(vision(nested, static=False))
    assert "buffer table x2 on 3 objects" in text


def test_work_done_in_a_helper_links_to_the_finding_on_the_call(nested: Path) -> None:
    import rt_samples.nested as m

    trace = trace_model(m.Attention)
    redo = line_of(nested, "self._init_rope()", 2)
    found = {(r.repeat.kind, r.repeat.name): r for r in trace.repeats}
    assert set(found) == {("call", "AttentionBase._init_rope"), ("attribute", "rotary")}
    for r in found.values():  # the submodule is assigned inside the helper, on another line
        assert r.finding is not None and (r.finding.code, r.finding.line) == ("IL002", redo)
    assert found[("attribute", "rotary")].owners == ("rt_samples.nested.AttentionBase",) * 2
    assert trace.wasted_bytes == 8 * 4  # the first Rotary's inv_freq

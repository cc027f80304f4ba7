"""``--device meta``: bytes from shapes and dtypes, no tensor storage, no peak memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from click.testing import CliRunner  # noqa: E402

from initlint.cli import main  # noqa: E402
from initlint.runtime import trace_init, trace_model  # noqa: E402
from initlint.runtime.memory import CpuPeakMeter  # noqa: E402
from initlint.runtime.render import render_text  # noqa: E402

MiB = 1024 * 1024
GiB = 1024 * MiB


def _samples() -> tuple[Any, Any]:
    import rt_samples.models
    import rt_samples.nested

    return rt_samples.models, rt_samples.nested


FACTORIES = {
    "buggy": lambda m, n: m.BuggyChild(size=64, dim=8),
    "table": lambda m, n: m.TableChild(size=32),
    "weight": lambda m, n: m.WeightChild(n=16),
    "linears": lambda m, n: m.TwoLinears(),
    "growing": lambda m, n: m.GrowingCache(),
    "nested": lambda m, n: n.VisionModel(16, 3),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_meta_bytes_equal_cpu_bytes(samples: Path, name: str) -> None:
    models, nested = _samples()
    make = FACTORIES[name]
    cpu = trace_init(lambda: make(models, nested), device="cpu")
    meta = trace_init(lambda: make(models, nested), device="meta")
    assert [(e.kind, e.name, e.bytes) for e in meta.events] == [
        (e.kind, e.name, e.bytes) for e in cpu.events
    ]
    assert meta.repeated == cpu.repeated
    assert meta.wasted_bytes == cpu.wasted_bytes
    assert any(e.bytes > 0 for e in cpu.events)  # there is something to compare
    whole_cpu = trace_model(lambda: make(models, nested), device="cpu", static=False)
    whole_meta = trace_model(lambda: make(models, nested), device="meta", static=False)
    assert [(r.class_name, r.path, r.repeat) for r in whole_meta.repeats] == [
        (r.class_name, r.path, r.repeat) for r in whole_cpu.repeats
    ]
    assert whole_meta.wasted_bytes == whole_cpu.wasted_bytes


def test_meta_tensors_have_no_storage_and_peak_is_not_measured(samples: Path) -> None:
    models, _ = _samples()
    built: list[Any] = []

    def factory() -> Any:
        built.append(models.BuggyChild(size=64, dim=8))
        return built[-1]

    trace = trace_init(factory, device="meta")
    assert trace.device == "meta"
    assert trace.peak_bytes is None
    assert trace.to_json()["peak_bytes"] is None
    assert "peak memory not measured on meta" in render_text(trace)
    tensors = [*built[0].parameters(), *built[0].buffers()]
    assert tensors and all(t.is_meta for t in tensors)


class Huge(nn.Module):
    """1.5 GiB of fp32 weights plus a 256 MiB cache registered twice: too big to build lightly."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8192, 8192, bias=False) for _ in range(6))
        self.register_buffer("cache", torch.ones(8192, 8192))
        self.register_buffer("cache", torch.ones(8192, 8192))


def test_full_size_model_on_meta_keeps_process_memory_flat() -> None:
    meter = CpuPeakMeter()
    meter.start()
    trace = trace_init(Huge, device="meta", project_roots=[__file__])
    whole = trace_model(Huge, device="meta", project_roots=[__file__], static=False)
    peak = meter.stop()
    assert peak is not None and peak < 64 * MiB, f"meta construction took {peak} bytes"
    weights = sum(e.bytes for e in trace.events if e.kind == "attribute")
    assert weights == 6 * 8192 * 8192 * 4  # 1.5 GiB priced from shapes
    assert weights + trace.wasted_bytes > GiB
    assert trace.repeated_names("buffer") == {"cache"}
    assert trace.wasted_bytes == 256 * MiB
    assert whole.wasted_bytes == 256 * MiB


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, ["trace", *args])


def test_cli_meta_text_and_json(samples: Path) -> None:
    target = "rt_samples.models:BuggyChild(size=64, dim=8)"
    text = _run(target, "--path", str(samples), "--device", "meta")
    assert text.exit_code == 1, text.output
    assert "on meta" in text.output
    assert "peak memory not measured on meta" in text.output
    data = json.loads(
        _run(target, "--path", str(samples), "--device", "meta", "--format", "json").output
    )
    assert data["device"] == "meta"
    assert data["peak_bytes"] is None
    assert {r["name"]: r["bytes"] for r in data["repeated"]}["cache"] == 64 * 8 * 4

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from initlint.runtime import DeviceUnavailableError, InitTrace, trace_init  # noqa: E402

MiB = 1024 * 1024


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def models(samples: Path) -> Any:
    import rt_samples.models

    return rt_samples.models


def repeat(trace: InitTrace, kind: str, name: str) -> Any:
    (found,) = [r for r in trace.repeated if r.kind == kind and r.name == name]
    return found


def test_redone_buffer_and_call_are_repeated(samples: Path) -> None:
    trace = trace_init(lambda: models(samples).BuggyChild(size=64, dim=8))
    assert trace.class_name == "rt_samples.models.BuggyChild"
    assert trace.device == "cpu"
    assert trace.has_repeats
    assert trace.repeated_names("buffer") == {"cache"}
    assert trace.repeated_names("call") == {"CachedBase._build"}
    assert trace.repeated_names("attribute") == frozenset()
    cache = repeat(trace, "buffer", "cache")
    assert (cache.count, cache.bytes) == (2, 64 * 8 * 4)
    build = repeat(trace, "call", "CachedBase._build")
    assert (build.count, build.bytes) == (2, 64 * 8 * 4)  # the returned tensor
    pkg = samples.resolve() / "rt_samples"
    base_line = line_of(pkg / "base.py", 'self.register_buffer("cache", self._build()')
    child_line = line_of(pkg / "models.py", 'self.register_buffer("cache", self._build()')
    expected = (f"{pkg / 'base.py'}:{base_line}", f"{pkg / 'models.py'}:{child_line}")
    assert cache.sites == expected
    assert build.sites == expected


def test_events_carry_owner_and_order(samples: Path) -> None:
    trace = trace_init(models(samples).BuggyChild)
    buffers = [e for e in trace.events if e.kind == "buffer"]
    assert [e.owner for e in buffers] == [
        "rt_samples.base.CachedBase",
        "rt_samples.models.BuggyChild",
    ]
    names = [(e.kind, e.name) for e in trace.events]
    assert names == [
        ("call", "BuggyChild.__init__"),
        ("call", "CachedBase.__init__"),
        ("call", "CachedBase._build"),
        ("buffer", "cache"),
        ("call", "CachedBase._build"),
        ("buffer", "cache"),
    ]
    # The class itself was the factory: no user frame performed the outer call.
    assert trace.events[0].site == "<factory>"
    assert trace.wasted_bytes == 64 * 8 * 4


def test_fixed_child_has_no_repeats(samples: Path) -> None:
    trace = trace_init(lambda: models(samples).FixedChild(size=64, dim=8))
    assert not trace.has_repeats
    assert trace.repeated == ()
    assert trace.wasted_bytes == 0
    buffers = [e for e in trace.events if e.kind == "buffer"]
    assert [(e.name, e.bytes) for e in buffers] == [("cache", 64 * 8 * 4)]
    assert [e.name for e in trace.events if e.kind == "call"].count("CachedBase._build") == 1


def test_tensor_assigned_to_existing_buffer_counts_as_buffer(samples: Path) -> None:
    trace = trace_init(models(samples).ReassignChild)
    assert trace.repeated_names("buffer") == {"cache"}
    assert not [e for e in trace.events if e.kind == "attribute"]


def test_nn_buffer_assignment_counts_as_buffer(samples: Path) -> None:
    trace = trace_init(models(samples).NewBufferChild)
    assert trace.repeated_names("buffer") == {"cache"}


def test_attribute_repeat(samples: Path) -> None:
    trace = trace_init(lambda: models(samples).TableChild(size=32))
    assert trace.repeated_names("attribute") == {"table"}
    table = repeat(trace, "attribute", "table")
    assert (table.count, table.bytes) == (2, 32 * 8)


@pytest.mark.parametrize("name", ["WeightChild", "RegisteredWeightChild"])
def test_parameter_repeat(samples: Path, name: str) -> None:
    trace = trace_init(lambda: getattr(models(samples), name)(n=16))
    assert trace.repeated_names("parameter") == {"weight"}
    assert repeat(trace, "parameter", "weight").bytes == 16 * 4
    # nn.Module.__setattr__ registers the Parameter itself: that is one event, not two.
    assert [e.kind for e in trace.events if e.name == "weight"] == ["parameter", "parameter"]


def test_wasted_bytes_are_all_but_the_last_occurrence(samples: Path) -> None:
    trace = trace_init(models(samples).GrowingCache)
    cache = repeat(trace, "buffer", "cache")
    assert (cache.count, cache.bytes) == (2, 4 * 4)


def test_method_called_once_is_not_repeated_and_recursion_counts_once(samples: Path) -> None:
    trace = trace_init(models(samples).CalledOnce)
    assert not trace.has_repeats
    calls = [e.name for e in trace.events if e.kind == "call"]
    assert calls == ["CalledOnce.__init__", "CalledOnce._count"]


def test_method_called_twice_is_repeated(samples: Path) -> None:
    trace = trace_init(models(samples).CalledTwice)
    assert trace.repeated_names("call") == {"CalledTwice._count"}
    assert repeat(trace, "call", "CalledTwice._count").count == 2


def test_plain_objects_are_traced_too(samples: Path) -> None:
    trace = trace_init(models(samples).PlainTwice)
    assert trace.repeated_names("call") == {"PlainTwice._load"}


def test_submodule_registrations_are_not_the_objects_own(samples: Path) -> None:
    trace = trace_init(models(samples).TwoLinears)
    assert not trace.has_repeats
    # The submodules are the object's attributes; their own weight/bias registrations are not.
    storage = [e for e in trace.events if e.kind != "call"]
    assert {(e.kind, e.name) for e in storage} == {("attribute", "first"), ("attribute", "second")}
    assert all(e.bytes > 0 for e in storage)


def test_code_outside_project_roots_is_not_counted_as_calls(samples: Path) -> None:
    prepared = models(samples).Prepared
    default = trace_init(prepared)  # rt_helpers lies outside rt_samples/
    assert "PrepareMixin._prepare" not in {e.name for e in default.events}
    assert not default.has_repeats
    wider = trace_init(prepared, project_roots=[samples])
    assert wider.repeated_names("call") == {"PrepareMixin._prepare"}


def test_project_roots_elsewhere_drop_calls_but_keep_storage(samples: Path, tmp_path: Path) -> None:
    trace = trace_init(models(samples).BuggyChild, project_roots=[tmp_path])
    assert not [e for e in trace.events if e.kind == "call"]
    assert trace.repeated_names("buffer") == {"cache"}


def test_factory_exception_propagates_and_patches_are_restored(samples: Path) -> None:
    module_type = nn.Module
    originals = {n: module_type.__dict__[n] for n in ("register_buffer", "register_parameter")}
    originals["__setattr__"] = module_type.__dict__["__setattr__"]

    def profiler(frame: Any, event: str, arg: Any) -> None:
        pass

    sys.setprofile(profiler)
    try:
        with pytest.raises(ValueError, match="boom: bad config"):
            trace_init(models(samples).Failing)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)
    for name, original in originals.items():
        assert module_type.__dict__[name] is original, name
    # And a later trace works normally.
    assert trace_init(models(samples).BuggyChild).has_repeats


def test_json_has_exactly_the_documented_keys(samples: Path) -> None:
    data = trace_init(models(samples).BuggyChild).to_json()
    assert list(data) == ["class", "seconds", "peak_bytes", "device", "repeated", "events"]
    assert data["class"] == "rt_samples.models.BuggyChild"
    assert all(list(r) == ["kind", "name", "count", "bytes", "sites"] for r in data["repeated"])
    assert {r["name"] for r in data["repeated"]} == {"cache", "CachedBase._build"}
    assert all(set(e) == {"kind", "name", "bytes", "site", "owner"} for e in data["events"])
    assert json.loads(json.dumps(data)) == data


def test_cpu_peak_memory_sees_kept_and_transient_allocations() -> None:
    def kept() -> Any:
        module = nn.Module()
        module.register_buffer("big", torch.ones(16 * MiB // 4))  # 16 MiB, touched
        return module

    def transient() -> Any:
        scratch = torch.ones(64 * MiB // 4)  # 64 MiB, freed before returning
        time.sleep(0.2)  # let the sampler see it (not a timing assertion)
        del scratch
        return nn.Module()

    assert trace_init(kept).peak_bytes >= 12 * MiB
    assert trace_init(transient).peak_bytes >= 48 * MiB


def test_cuda_without_cuda_is_refused_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    ran = []
    with pytest.raises(DeviceUnavailableError, match="CUDA is not available"):
        trace_init(lambda: ran.append(1), device="cuda")
    assert ran == []


@pytest.mark.parametrize("device", ["mps", "not a device"])
def test_unsupported_device(device: str) -> None:
    with pytest.raises(ValueError, match="device"):
        trace_init(nn.Module, device=device)


def test_nesting_is_refused() -> None:
    def inner() -> Any:
        return trace_init(nn.Module)

    with pytest.raises(RuntimeError, match="nested"):
        trace_init(inner)
    assert trace_init(nn.Module).class_name == "torch.nn.modules.module.Module"

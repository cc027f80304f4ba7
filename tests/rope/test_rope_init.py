"""Construction: how often the cache is built and registered, its dtype, device and memory."""

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import rope_reference as ref
import torch

import fixed_rope
from fixed_rope import (
    DeepseekScalingRotaryEmbedding,
    DeepseekV4ScalingRotaryEmbedding,
    RotaryEmbeddingBase,
)

REPO = Path(__file__).resolve().parents[2]
# (head, D, L, base, neox, s, dtype), keywords
SMALL_ARGS: tuple[Any, ...] = (128, 64, 1024, 160000, False, 16, torch.bfloat16)
SMALL_KW: dict[str, Any] = dict(beta_fast=32, beta_slow=1, mscale=0, mscale_all_dim=0)


class Spy:
    """Counts calls of ``cls._compute_cos_sin_cache`` and cache registrations."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, package: ModuleType) -> None:
        self.computations = 0
        self.registrations = 0
        v4 = package.DeepseekV4ScalingRotaryEmbedding
        compute = v4._compute_cos_sin_cache
        register = torch.nn.Module.register_buffer

        def counting_compute(module: Any) -> Any:
            self.computations += 1
            return compute(module)

        def counting_register(module: Any, name: str, *args: Any, **kwargs: Any) -> None:
            if name == "cos_sin_cache":
                self.registrations += 1
            register(module, name, *args, **kwargs)

        monkeypatch.setattr(v4, "_compute_cos_sin_cache", counting_compute)
        monkeypatch.setattr(torch.nn.Module, "register_buffer", counting_register)


def test_fixed_v4_computes_and_registers_once(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch, fixed_rope)
    module = DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    assert (spy.computations, spy.registrations) == (1, 1)
    assert module.cos_sin_cache.dtype == torch.float32


def test_buggy_fixture_computes_and_registers_twice(
    monkeypatch: pytest.MonkeyPatch, buggy_rope: ModuleType
) -> None:
    spy = Spy(monkeypatch, buggy_rope)
    module = buggy_rope.DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    assert (spy.computations, spy.registrations) == (2, 2)
    assert module.cos_sin_cache.dtype == torch.float32


def test_buggy_fixture_is_its_own_package(buggy_rope: ModuleType) -> None:
    assert buggy_rope.__name__ == "deepseek_v4_before"
    v4 = buggy_rope.DeepseekV4ScalingRotaryEmbedding
    assert v4.__module__ == "deepseek_v4_before.deepseek"
    assert v4 is not DeepseekV4ScalingRotaryEmbedding
    assert issubclass(v4, buggy_rope.RotaryEmbeddingBase)
    assert not issubclass(v4, RotaryEmbeddingBase)


def test_buggy_fixture_cache_is_bitwise_equal(buggy_rope: ModuleType) -> None:
    fixed = DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    buggy = buggy_rope.DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    assert buggy.cos_sin_cache.dtype == torch.float32
    assert torch.equal(buggy.cos_sin_cache, fixed.cos_sin_cache)


@pytest.mark.parametrize("init_cache", [True, False])
def test_v4_accepts_and_ignores_init_cache(
    monkeypatch: pytest.MonkeyPatch, init_cache: bool
) -> None:
    spy = Spy(monkeypatch, fixed_rope)
    module = DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW, init_cache=init_cache)
    assert (spy.computations, spy.registrations) == (1, 1)
    assert module.cos_sin_cache.shape == (1024 * 16, 64)


@pytest.mark.parametrize(("init_cache", "count"), [(True, 1), (False, 0)])
def test_yarn_threads_init_cache(
    monkeypatch: pytest.MonkeyPatch, init_cache: bool, count: int
) -> None:
    calls = []
    compute = DeepseekScalingRotaryEmbedding._compute_cos_sin_cache

    def counting(module: DeepseekScalingRotaryEmbedding) -> torch.Tensor:
        calls.append(module)
        return compute(module)

    monkeypatch.setattr(DeepseekScalingRotaryEmbedding, "_compute_cos_sin_cache", counting)
    module = DeepseekScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW, init_cache=init_cache)
    assert len(calls) == count
    assert ("cos_sin_cache" in dict(module.named_buffers())) is init_cache


@pytest.mark.parametrize(
    "cls", [RotaryEmbeddingBase, DeepseekScalingRotaryEmbedding, DeepseekV4ScalingRotaryEmbedding]
)
def test_cache_is_a_non_persistent_buffer(cls: type) -> None:
    args = (64, 32, 128, 10000, True) + ((2.0,) if cls is not RotaryEmbeddingBase else ())
    module = cls(*args, torch.float32)
    assert "cos_sin_cache" in dict(module.named_buffers())
    assert "cos_sin_cache" not in module.state_dict()
    assert module.state_dict() == {}


def test_init_assigns_only_cheap_attributes() -> None:
    module = DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    for name, value in vars(module).items():
        if not name.startswith("_"):
            assert not isinstance(value, torch.Tensor), name
    assert dict(module.named_parameters()) == {}
    assert list(module._buffers) == ["cos_sin_cache"]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32, torch.float64])
def test_v4_cache_is_fp32_whatever_dtype_says(dtype: torch.dtype) -> None:
    module = DeepseekV4ScalingRotaryEmbedding(64, 32, 128, 10000, True, 2.0, dtype)
    assert module.cos_sin_cache.dtype == torch.float32
    assert module.dtype == dtype


@pytest.mark.parametrize(
    "convert",
    [
        lambda m: m.to(torch.bfloat16),
        lambda m: m.half(),
        lambda m: m.double(),
        lambda m: m.bfloat16(),
        lambda m: m.float(),
        lambda m: m.to("cpu", torch.float16),
        lambda m: m.type(torch.float16),
    ],
    ids=["to-bf16", "half", "double", "bfloat16", "float", "to-cpu-fp16", "type-fp16"],
)
def test_v4_cache_stays_fp32_after_conversion(
    convert: Callable[[torch.nn.Module], torch.nn.Module],
) -> None:
    module = DeepseekV4ScalingRotaryEmbedding(64, 32, 128, 10000, True, 2.0, torch.bfloat16)
    before = module.cos_sin_cache
    assert convert(module) is module
    assert module.cos_sin_cache.dtype == torch.float32
    assert torch.equal(module.cos_sin_cache, before)


def test_v4_device_moves_still_apply() -> None:
    module = DeepseekV4ScalingRotaryEmbedding(64, 32, 128, 10000, True, 2.0, torch.bfloat16)
    module.to("meta", torch.bfloat16)
    assert module.cos_sin_cache.device.type == "meta"
    assert module.cos_sin_cache.dtype == torch.float32


def test_v4_conversion_inside_a_parent_module() -> None:
    parent = torch.nn.Sequential(
        torch.nn.Linear(2, 2),
        DeepseekV4ScalingRotaryEmbedding(64, 32, 128, 10000, True, 2.0, torch.float32),
    )
    parent.half()
    assert parent[0].weight.dtype == torch.float16
    assert parent[1].cos_sin_cache.dtype == torch.float32


def test_parent_cache_follows_conversions() -> None:
    module = DeepseekScalingRotaryEmbedding(64, 32, 128, 10000, True, 2.0, torch.float32)
    module.half()
    assert module.cos_sin_cache.dtype == torch.float16


_MEASURE = textwrap.dedent(
    """
    import gc, json, sys, torch
    sys.path.insert(0, sys.argv[1])
    from fixed_rope import DeepseekV4ScalingRotaryEmbedding as V4

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

    kw = dict(beta_fast=32, beta_slow=1, mscale=0, mscale_all_dim=0)
    V4(512, 64, 64, 160000, False, 16, torch.bfloat16, **kw)  # warm up the kernels
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    before = status("VmRSS")
    module = V4(512, 64, 65536, 160000, False, 16, torch.bfloat16, **kw)
    peak = status("VmHWM")
    cache = module.cos_sin_cache
    rows = [0, 1, 4095, 4096, 65535, 500000, 1048575]
    print(json.dumps(dict(
        delta=peak - before, nbytes=cache.nbytes, shape=list(cache.shape),
        dtype=str(cache.dtype), rows=rows, values=cache[rows].tolist(),
    )))
    """
)


def _can_reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _can_reset_peak_rss(), reason="needs Linux /proc/self/clear_refs")
def test_full_size_compressor_cache_and_peak_memory() -> None:
    """The one DeepSeek-size test: [1048576, 64] fp32, correct, built within 1.15x of itself."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(REPO)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["shape"] == [1048576, 64]
    assert result["dtype"] == "torch.float32"
    assert result["nbytes"] == 256 * 2**20
    assert result["delta"] <= 1.15 * result["nbytes"], result["delta"] / result["nbytes"]
    freqs = ref.omega(64, 160000, 65536, 16)
    rows, angles = ref.cache_rows(torch.tensor(result["rows"]), freqs)
    err = (torch.tensor(result["values"], dtype=torch.float64) - rows).abs()
    assert bool((err <= ref.cache_atol(angles)).all())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_cache_built_on_device_within_budget() -> None:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    with torch.device("cuda"):
        module = DeepseekV4ScalingRotaryEmbedding(
            512, 64, 65536, 160000, False, 16, torch.bfloat16, **SMALL_KW
        )
    torch.cuda.synchronize()
    cache = module.cos_sin_cache
    assert cache.device.type == "cuda" and cache.dtype == torch.float32
    assert torch.cuda.max_memory_allocated() - before <= 1.15 * cache.nbytes
    positions = torch.arange(0, cache.size(0), 4099)
    rows, angles = ref.cache_rows(positions, ref.omega(64, 160000, 65536, 16))
    err = (cache[positions.cuda()].cpu().double() - rows).abs()
    assert bool((err <= ref.cache_atol(angles)).all())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_move_keeps_fp32_and_forward_matches_cpu() -> None:
    module = DeepseekV4ScalingRotaryEmbedding(*SMALL_ARGS, **SMALL_KW)
    cpu_cache = module.cos_sin_cache
    module.to("cuda", torch.bfloat16)
    assert module.cos_sin_cache.device.type == "cuda"
    assert module.cos_sin_cache.dtype == torch.float32
    assert torch.equal(module.cos_sin_cache.cpu(), cpu_cache)
    positions = torch.randint(0, cpu_cache.size(0), (64,))
    query = torch.randn(64, 4, 128)
    q_gpu, _ = module(positions.cuda(), query.cuda())
    module.cpu()
    q_cpu, _ = module(positions, query)
    torch.testing.assert_close(q_gpu.cpu(), q_cpu, rtol=0, atol=1e-5)

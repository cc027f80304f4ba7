"""The YaRN helpers and the cos/sin cache against the float64 reference (docs/design.md)."""

import math
from typing import Any

import pytest
import rope_reference as ref
import torch

from fixed_rope import (
    DeepseekScalingRotaryEmbedding,
    DeepseekV4ScalingRotaryEmbedding,
    RotaryEmbeddingBase,
    yarn_find_correction_dim,
    yarn_find_correction_range,
    yarn_get_mscale,
    yarn_linear_ramp_mask,
)

# DeepSeek V4's two instances (docs/design.md).
COMPRESSOR = dict(
    head_size=512,
    rotary_dim=64,
    max_position_embeddings=65536,
    base=160000,
    is_neox_style=False,
    scaling_factor=16,
    beta_fast=32,
    beta_slow=1,
    mscale=0,
    mscale_all_dim=0,
)

# Small configurations: (head, D, L, base, neox, s, yarn keywords).
Config = tuple[int, int, int, float, bool, float, dict[str, Any]]
SMALL: dict[str, Config] = {
    "compressor-like": (128, 64, 2048, 160000, False, 16, dict(mscale=0, mscale_all_dim=0)),
    "mscale": (128, 64, 4096, 10000, True, 4, dict(mscale=1, mscale_all_dim=0)),
    "mscale-ratio": (64, 32, 1000, 10000, False, 40, dict(mscale=0.707, mscale_all_dim=1.0)),
    "fractional-rows": (64, 16, 7, 10000, True, 1.3, {}),
    "no-scaling": (64, 64, 3000, 10000, False, 1, {}),
    "shrink": (32, 8, 100, 500, True, 0.5, dict(beta_fast=4, beta_slow=2)),
}


def build_v4(
    config: Config, dtype: torch.dtype = torch.bfloat16
) -> DeepseekV4ScalingRotaryEmbedding:
    head, dim, length, base, neox, scale, kw = config
    return DeepseekV4ScalingRotaryEmbedding(head, dim, length, base, neox, scale, dtype, **kw)


def reference_for(config: Config) -> tuple[torch.Tensor, float, int]:
    _, dim, length, base, _, scale, kw = config
    freqs = ref.omega(dim, base, length, scale, kw.get("beta_fast", 32), kw.get("beta_slow", 1))
    magnitude = ref.mscale(scale, kw.get("mscale", 1), kw.get("mscale_all_dim", 0))
    return freqs, magnitude, ref.num_rows(length, scale)


def assert_cache_matches(cache: torch.Tensor, freqs: torch.Tensor, magnitude: float) -> None:
    positions = torch.arange(cache.size(0))
    rows, angles = ref.cache_rows(positions, freqs, magnitude)
    err = (cache.double() - rows).abs()
    tol = ref.cache_atol(angles, magnitude)
    worst = (err / tol).max().item()
    assert worst <= 1.0, f"cache error reaches {worst:.3f}x the tolerance"


# --- YaRN helpers ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [0.5, 1, 4, 32])
@pytest.mark.parametrize(("dim", "base", "length"), [(64, 160000, 65536), (128, 10000, 4096)])
def test_correction_dim(n: float, dim: int, base: float, length: int) -> None:
    got = yarn_find_correction_dim(n, dim, base, length)
    assert got == pytest.approx(ref.correction_dim(n, dim, base, length), rel=1e-12)


def test_correction_range_of_v4_compressor() -> None:
    got = yarn_find_correction_range(32, 1, 64, 160000, 65536)
    assert got == ref.correction_range(32, 1, 64, 160000, 65536) == (15, 25)


def test_correction_range_clamps_and_truncate() -> None:
    # Tiny context: d(beta_fast) < 0 clamps to 0; huge context: d(beta_slow) > D - 1 clamps.
    assert yarn_find_correction_range(32, 1, 64, 10000, 16)[0] == 0
    assert yarn_find_correction_range(32, 1, 64, 10000, 2**40)[1] == 63
    low, high = yarn_find_correction_range(32, 1, 64, 160000, 65536, truncate=False)
    assert low == pytest.approx(ref.correction_dim(32, 64, 160000, 65536))
    assert high == pytest.approx(ref.correction_dim(1, 64, 160000, 65536))


def test_linear_ramp_mask() -> None:
    ramp = yarn_linear_ramp_mask(15, 25, 32, torch.float32)
    expected = ((torch.arange(32, dtype=torch.float64) - 15) / 10).clamp(0, 1)
    torch.testing.assert_close(ramp.double(), expected, rtol=0, atol=1e-7)
    assert ramp.dtype == torch.float32


def test_linear_ramp_mask_equal_bounds_adds_a_thousandth() -> None:
    ramp = yarn_linear_ramp_mask(3, 3, 6, torch.float64)
    assert ramp.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    # j = 3 sits exactly at low; with high = low + 0.001 the step is 1000x steep.
    ramp = yarn_linear_ramp_mask(2.9995, 2.9995, 4, torch.float64)
    assert ramp[3].item() == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("scale", "mscale", "expected"),
    [
        (1.0, 5.0, 1.0),
        (0.5, 1.0, 1.0),
        (16.0, 0.0, 1.0),
        (40.0, 1.0, 0.1 * math.log(40.0) + 1.0),
        (4.0, 0.707, 0.1 * 0.707 * math.log(4.0) + 1.0),
    ],
)
def test_yarn_get_mscale(scale: float, mscale: float, expected: float) -> None:
    assert yarn_get_mscale(scale, mscale) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        (dict(mscale=0, mscale_all_dim=0), 1.0),
        (dict(mscale=1, mscale_all_dim=0), 0.1 * math.log(16) + 1),
        (dict(mscale=0.707, mscale_all_dim=0.707), 1.0),
        (dict(mscale=1, mscale_all_dim=1), 1.0),
        (dict(mscale=0, mscale_all_dim=1), 1 / (0.1 * math.log(16) + 1)),
    ],
)
def test_module_mscale_is_a_python_float(kw: dict[str, float], expected: float) -> None:
    module = DeepseekV4ScalingRotaryEmbedding(64, 32, 64, 10000, True, 16, torch.float32, **kw)
    assert type(module.mscale) is float
    assert module.mscale == pytest.approx(expected, rel=1e-12)
    assert module.mscale == pytest.approx(ref.mscale(16, kw["mscale"], kw["mscale_all_dim"]))


# --- frequencies and cache ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SMALL))
def test_omega_matches_reference(name: str) -> None:
    config = SMALL[name]
    module = build_v4(config)
    freqs, _, _ = reference_for(config)
    got = module._compute_inv_freq(module.scaling_factor)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got.double(), freqs, rtol=4 * ref.EPS32, atol=0)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_v4_cache_matches_reference(name: str) -> None:
    config = SMALL[name]
    module = build_v4(config)
    freqs, magnitude, rows = reference_for(config)
    cache = module.cos_sin_cache
    assert cache.shape == (rows, config[1])
    assert cache.dtype == torch.float32
    assert_cache_matches(cache, freqs, magnitude)


@pytest.mark.parametrize(
    ("length", "scale", "rows"), [(7, 1.3, 10), (100, 2.5, 250), (10, 1.0, 10), (9, 0.5, 5)]
)
def test_cache_has_ceil_l_times_s_rows(length: int, scale: float, rows: int) -> None:
    assert rows == math.ceil(length * scale)
    v4 = DeepseekV4ScalingRotaryEmbedding(16, 8, length, 10000, True, scale, torch.float16)
    yarn = DeepseekScalingRotaryEmbedding(16, 8, length, 10000, True, scale, torch.float16)
    assert v4.cos_sin_cache.shape == yarn.cos_sin_cache.shape == (rows, 8)


def test_yarn_parent_cache_is_cast_to_dtype() -> None:
    config = SMALL["mscale"]
    head, dim, length, base, neox, scale, kw = config
    yarn = DeepseekScalingRotaryEmbedding(
        head, dim, length, base, neox, scale, torch.bfloat16, **kw
    )
    v4 = build_v4(config)
    assert yarn.cos_sin_cache.dtype == torch.bfloat16
    assert torch.equal(yarn.cos_sin_cache, v4.cos_sin_cache.to(torch.bfloat16))


def test_base_cache_matches_reference() -> None:
    module = RotaryEmbeddingBase(64, 32, 3000, 10000, True, torch.float32)
    rows, angles = ref.cache_rows(torch.arange(3000), ref.theta(32, 10000))
    assert module.cos_sin_cache.shape == (3000, 32)
    err = (module.cos_sin_cache.double() - rows).abs()
    assert bool((err <= ref.cache_atol(angles)).all())


# --- the lean V4 build is bitwise the plain formula --------------------------------------


def plain_cache(module: DeepseekV4ScalingRotaryEmbedding) -> torch.Tensor:
    """The parent's full-tensor fp32 formula, evaluated with the module's settings."""
    return DeepseekScalingRotaryEmbedding._compute_cos_sin_cache(module)


@pytest.mark.parametrize("mscale_kw", [dict(mscale=0, mscale_all_dim=0), dict(mscale=1.0)])
def test_lean_build_is_bitwise_plain_formula_default_chunks(mscale_kw: dict[str, Any]) -> None:
    # 131072 rows of D = 64 span 16 default chunks.
    module = DeepseekV4ScalingRotaryEmbedding(
        128, 64, 8192, 160000, False, 16, torch.bfloat16, **mscale_kw
    )
    rows = module.cos_sin_cache.size(0)
    assert rows >= 16 * module._cache_chunk_rows(rows, 32)
    assert torch.equal(module.cos_sin_cache, plain_cache(module))


@pytest.mark.parametrize("chunk_elements", [1, 7 * 16 + 3, 1000, 1 << 30])
def test_lean_build_is_bitwise_plain_formula_ragged_chunks(
    monkeypatch: pytest.MonkeyPatch, chunk_elements: int
) -> None:
    monkeypatch.setattr(DeepseekV4ScalingRotaryEmbedding, "cache_chunk_elements", chunk_elements)
    module = DeepseekV4ScalingRotaryEmbedding(
        64, 32, 997, 10000, True, 4.3, torch.float16, mscale=1, mscale_all_dim=0.2
    )
    assert module.mscale != 1.0
    assert torch.equal(module.cos_sin_cache, plain_cache(module))


def test_cache_is_built_on_the_default_device() -> None:
    with torch.device("meta"):
        module = DeepseekV4ScalingRotaryEmbedding(**COMPRESSOR, dtype=torch.bfloat16)
    cache = module.cos_sin_cache
    assert cache.device.type == "meta"
    assert cache.shape == (1048576, 64)
    assert cache.dtype == torch.float32


def test_default_chunks_keep_the_scratch_small() -> None:
    module = DeepseekV4ScalingRotaryEmbedding(16, 8, 4, 10000, True, 1.0, torch.float32)
    # DeepSeek V4 size: 1048576 rows of 32 frequencies, 16 chunks of 65536 rows (8 MiB).
    assert module._cache_chunk_rows(1048576, 32) == 65536
    assert module._cache_chunk_rows(2**26, 32) * 32 == 1 << 22  # capped at 16 MiB
    assert module._cache_chunk_rows(100, 32) == 100  # small caches: one chunk

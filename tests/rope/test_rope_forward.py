"""Forward pass of the V4 rotary embedding (and the shared rotation of its parents)."""

from typing import Any

import pytest
import rope_reference as ref
import torch

from fixed_rope import (
    DeepseekScalingRotaryEmbedding,
    DeepseekV4ScalingRotaryEmbedding,
    RotaryEmbeddingBase,
)

T = 37  # tokens


def make_v4(
    head_size: int = 128,
    rotary_dim: int = 64,
    neox: bool = False,
    scale: float = 4.0,
    length: int = 512,
    **kw: float,
) -> DeepseekV4ScalingRotaryEmbedding:
    return DeepseekV4ScalingRotaryEmbedding(
        head_size, rotary_dim, length, 10000, neox, scale, torch.bfloat16, **kw
    )


def random_inputs(
    module: RotaryEmbeddingBase,
    heads: int = 3,
    head_size: int | None = None,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    h = head_size or module.head_size
    positions = torch.randint(0, module.cos_sin_cache.size(0), (T,), generator=gen)
    query = torch.randn(T, heads, h, generator=gen).to(dtype)
    key = torch.randn(T, 1, h, generator=gen).to(dtype)
    return positions, query, key


def cache_cos_sin(
    module: RotaryEmbeddingBase, positions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    rows = module.cos_sin_cache[positions].double()
    half = module.rotary_dim // 2
    return rows[..., :half], rows[..., half:]


def rotation_atol(x: torch.Tensor, scale: float = 1.0) -> float:
    """fp32 arithmetic on |x| <= max|x| with |cos|, |sin| <= scale."""
    return 8 * ref.EPS32 * x.abs().max().item() * max(1.0, scale)


@pytest.mark.parametrize("neox", [False, True], ids=["gptj", "neox"])
@pytest.mark.parametrize("rotary_dim", [64, 128])
@pytest.mark.parametrize("inverse", [False, True])
def test_forward_matches_complex_rotation(neox: bool, rotary_dim: int, inverse: bool) -> None:
    module = make_v4(rotary_dim=rotary_dim, neox=neox, mscale=1.0)
    positions, query, key = random_inputs(module)
    q_out, k_out = module(positions, query, key, inverse=inverse)
    cos, sin = cache_cos_sin(module, positions)
    for x, out in ((query, q_out), (key, k_out)):
        assert out is not None
        expected = ref.rotate(x, cos, sin, rotary_dim, neox, last=True, inverse=inverse)
        atol = rotation_atol(x, module.mscale)
        torch.testing.assert_close(out.double(), expected, rtol=0, atol=atol)


@pytest.mark.parametrize("neox", [False, True], ids=["gptj", "neox"])
def test_forward_matches_float64_formula_end_to_end(neox: bool) -> None:
    length, scale, dim = 4096, 4.0, 64
    module = make_v4(rotary_dim=dim, neox=neox, scale=scale, length=length, mscale=1.0)
    positions, query, _ = random_inputs(module)
    freqs = ref.omega(dim, 10000, length, scale)
    magnitude = ref.mscale(scale, 1.0, 0.0)
    rows, angles = ref.cache_rows(positions, freqs, magnitude)
    q_out, _ = module(positions, query)
    expected = ref.rotate(query, rows[:, : dim // 2], rows[:, dim // 2 :], dim, neox, last=True)
    # Angle error up to c eps32 (1 + |p w|) moves each pair by that much times its length.
    angle_tol = ref.cache_atol(angles, magnitude)[:, : dim // 2].max(dim=-1).values
    pair_len = query.abs().max().item() * 2 * magnitude
    atol = (angle_tol * pair_len)[:, None, None] + rotation_atol(query, magnitude)
    assert bool(((q_out.double() - expected).abs() <= atol).all())


@pytest.mark.parametrize("neox", [False, True], ids=["gptj", "neox"])
def test_inverse_undoes_forward(neox: bool) -> None:
    module = make_v4(neox=neox, mscale=0, mscale_all_dim=0)
    positions, query, key = random_inputs(module)
    q_rot, k_rot = module(positions, query, key)
    assert k_rot is not None
    q_back, k_back = module(positions, q_rot, k_rot, inverse=True)
    torch.testing.assert_close(q_back, query, rtol=0, atol=1e-5)
    torch.testing.assert_close(k_back, key, rtol=0, atol=1e-5)
    assert not torch.allclose(q_rot, query)


def test_inverse_round_trip_scales_by_mscale_squared() -> None:
    module = make_v4(mscale=1.0, mscale_all_dim=0.0)
    assert module.mscale > 1.0
    positions, query, _ = random_inputs(module)
    q_rot, _ = module(positions, query)
    q_back, _ = module(positions, q_rot, inverse=True)
    expected = query.clone()
    expected[..., -64:] *= module.mscale**2
    torch.testing.assert_close(q_back, expected, rtol=0, atol=1e-5)


def test_query_only_equals_query_of_keyed_call() -> None:
    module = make_v4()
    positions, query, key = random_inputs(module)
    q_alone, none = module(positions, query)
    q_keyed, _ = module(positions, query, key)
    assert none is None
    assert torch.equal(q_alone, q_keyed)


def test_offsets_equal_shifted_positions() -> None:
    module = make_v4()
    positions, query, key = random_inputs(module)
    positions = positions.clamp(max=module.cos_sin_cache.size(0) - 100)
    offsets = torch.arange(T) % 100
    with_offsets = module(positions, query, key, offsets=offsets)
    shifted = module(positions + offsets, query, key)
    assert torch.equal(with_offsets[0], shifted[0])
    assert with_offsets[1] is not None and shifted[1] is not None
    assert torch.equal(with_offsets[1], shifted[1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_leading_channels_pass_through_bitwise(dtype: torch.dtype) -> None:
    module = make_v4(head_size=512, rotary_dim=64)
    positions, query, key = random_inputs(module, head_size=512, dtype=dtype)
    q_out, k_out = module(positions, query, key)
    assert k_out is not None
    assert torch.equal(q_out[..., :448], query[..., :448])
    assert torch.equal(k_out[..., :448], key[..., :448])
    assert not torch.equal(q_out[..., 448:], query[..., 448:])


def test_yarn_parent_rotates_leading_channels() -> None:
    module = DeepseekScalingRotaryEmbedding(128, 64, 512, 10000, True, 4.0, torch.float32)
    positions, query, key = random_inputs(module)
    q_out, _ = module(positions, query, key)
    assert torch.equal(q_out[..., 64:], query[..., 64:])
    cos, sin = cache_cos_sin(module, positions)
    expected = ref.rotate(query, cos, sin, 64, True, last=False)
    torch.testing.assert_close(q_out.double(), expected, rtol=0, atol=rotation_atol(query))


def test_one_module_serves_head_sizes_128_and_512() -> None:
    module = make_v4(head_size=512, rotary_dim=64)
    for head_size in (128, 512):
        positions, query, key = random_inputs(module, heads=2, head_size=head_size)
        q_out, k_out = module(positions, query, key)
        assert q_out.shape == query.shape
        assert k_out is not None and k_out.shape == key.shape
        cos, sin = cache_cos_sin(module, positions)
        expected = ref.rotate(query, cos, sin, 64, False, last=True)
        torch.testing.assert_close(q_out.double(), expected, rtol=0, atol=rotation_atol(query))
        assert torch.equal(q_out[..., : head_size - 64], query[..., : head_size - 64])


def test_flat_inputs_use_the_module_head_size() -> None:
    module = make_v4(head_size=128)
    positions, query, key = random_inputs(module, heads=3)
    q_heads, k_heads = module(positions, query, key)
    q_flat, k_flat = module(positions, query.reshape(T, -1), key.reshape(T, -1))
    assert q_flat.shape == (T, 3 * 128)
    assert k_flat is not None and k_heads is not None
    assert torch.equal(q_flat, q_heads.reshape(T, -1))
    assert torch.equal(k_flat, k_heads.reshape(T, -1))


def test_batched_positions() -> None:
    module = make_v4()
    positions, query, key = random_inputs(module)
    q_ref, k_ref = module(positions, query, key)
    q_b, k_b = module(positions.view(1, T), query.view(1, T, 3, 128), key.view(1, T, 128))
    assert torch.equal(q_b.view_as(q_ref), q_ref)
    assert k_b is not None and k_ref is not None
    assert torch.equal(k_b.view_as(k_ref), k_ref)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("neox", [False, True], ids=["gptj", "neox"])
def test_half_precision_within_one_ulp_of_fp32(dtype: torch.dtype, neox: bool) -> None:
    module = make_v4(neox=neox, mscale=1.0)
    positions, query, key = random_inputs(module, dtype=dtype)
    q_out, k_out = module(positions, query, key)
    q_32, k_32 = module(positions, query.float(), key.float())
    assert k_out is not None and k_32 is not None
    for out, exact in ((q_out, q_32), (k_out, k_32)):
        assert out.dtype == dtype
        # One ulp of the half-precision format at the fp32 result's magnitude.
        exponent = torch.frexp(exact.abs().clamp_min(torch.finfo(dtype).tiny)).exponent
        eps = torch.full_like(exact, torch.finfo(dtype).eps)
        ulp = torch.ldexp(eps, exponent - 1)  # x = f 2^e, f in [0.5, 1): ulp = eps 2^(e-1)
        assert bool(((out.float() - exact).abs() <= ulp).all())


def test_inputs_are_not_modified_and_outputs_do_not_alias() -> None:
    module = make_v4(head_size=64, rotary_dim=64)
    positions, query, key = random_inputs(module)
    offsets = torch.zeros(T, dtype=torch.long)
    saved = [t.clone() for t in (positions, query, key, offsets)]
    cache = module.cos_sin_cache.clone()
    q_out, k_out = module(positions, query, key, offsets=offsets)
    for before, after in zip(saved, (positions, query, key, offsets), strict=True):
        assert torch.equal(before, after)
    assert torch.equal(cache, module.cos_sin_cache)
    assert k_out is not None
    assert q_out.data_ptr() != query.data_ptr() and k_out.data_ptr() != key.data_ptr()


def test_forward_after_module_to_bfloat16() -> None:
    module = make_v4().to(torch.bfloat16)
    assert module.cos_sin_cache.dtype == torch.float32
    positions, query, key = random_inputs(module, dtype=torch.bfloat16)
    q_out, _ = module(positions, query, key)
    assert q_out.dtype == torch.bfloat16


def test_empty_batch() -> None:
    module = make_v4()
    q_out, k_out = module(
        torch.empty(0, dtype=torch.long), torch.empty(0, 2, 128), torch.empty(0, 1, 128)
    )
    assert q_out.shape == (0, 2, 128) and k_out is not None and k_out.shape == (0, 1, 128)


def _bad_calls() -> dict[str, tuple[dict[str, Any], str]]:
    pos = torch.arange(T)
    q = torch.randn(T, 2, 128)
    return {
        "query rank too high": (dict(positions=pos, query=q[None]), "rank"),
        "query rank too low": (dict(positions=pos[:, None], query=q[:, 0]), "rank"),
        "positions/query leading mismatch": (dict(positions=pos[:5], query=q), "leading"),
        "flat query not a multiple": (dict(positions=pos, query=torch.randn(T, 200)), "multiple"),
        "head smaller than rotary_dim": (
            dict(positions=pos, query=torch.randn(T, 2, 32)),
            "exceeds the head size",
        ),
        "key head size differs": (
            dict(positions=pos, query=q, key=torch.randn(T, 1, 256)),
            "key head size",
        ),
        "key leading mismatch": (
            dict(positions=pos, query=q, key=torch.randn(T + 1, 1, 128)),
            "leading",
        ),
        "negative position": (dict(positions=pos - 1, query=q), r"\[0, 2048\)"),
        "position past the cache": (dict(positions=pos + 2048 - T + 1, query=q), "2048 rows"),
        "offsets past the cache": (
            dict(positions=pos, query=q, offsets=torch.full((T,), 2040)),
            r"positions \+ offsets",
        ),
        "offsets shape": (
            dict(positions=pos, query=q, offsets=torch.zeros(2, T, dtype=torch.long)),
            "offsets of shape",
        ),
        "float positions": (dict(positions=pos.float(), query=q), "integer"),
        "bool positions": (dict(positions=pos > 3, query=q), "integer"),
        "integer query": (dict(positions=pos, query=q.long()), "floating-point"),
    }


@pytest.mark.parametrize("case", sorted(_bad_calls()))
def test_invalid_forward_raises_value_error(case: str) -> None:
    module = make_v4(head_size=128, rotary_dim=64, length=512)  # 2048 cache rows
    kwargs, match = _bad_calls()[case]
    with pytest.raises(ValueError, match=match):
        module(**kwargs)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((128, 63, 64, 10000, True, 2.0), "even"),
        ((128, 0, 64, 10000, True, 2.0), "even"),
        ((64, 128, 64, 10000, True, 2.0), "must not exceed head_size"),
        ((64, 32, 0, 10000, True, 2.0), "max_position_embeddings"),
        ((64, 32, 64, 10000, True, 0.0), "scaling_factor"),
    ],
)
def test_invalid_construction_raises_value_error(args: tuple[Any, ...], match: str) -> None:
    classes: list[Any] = [DeepseekScalingRotaryEmbedding, DeepseekV4ScalingRotaryEmbedding]
    for cls in classes:
        with pytest.raises(ValueError, match=match):
            cls(*args, torch.float32)


def test_forward_without_cache_raises() -> None:
    module = DeepseekScalingRotaryEmbedding(
        64, 32, 64, 10000, True, 2.0, torch.float32, init_cache=False
    )
    with pytest.raises(RuntimeError, match="no cos_sin_cache"):
        module(torch.arange(3), torch.randn(3, 1, 64))

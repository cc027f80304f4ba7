"""YaRN helpers: correction range, linear ramp and magnitude scale."""

import math

import torch


def yarn_find_correction_dim(
    num_rotations: float,
    dim: int,
    base: float = 10000,
    max_position_embeddings: int = 2048,
) -> float:
    """Return d(n) = dim * ln(L / (2 pi n)) / (2 ln base).

    This is the (fractional) dimension index whose wavelength fits ``num_rotations`` full
    turns into ``max_position_embeddings`` positions.
    """
    log_ratio = math.log(max_position_embeddings / (num_rotations * 2 * math.pi))
    return dim * log_ratio / (2 * math.log(base))


def yarn_find_correction_range(
    low_rot: float,
    high_rot: float,
    dim: int,
    base: float = 10000,
    max_position_embeddings: int = 2048,
    truncate: bool = True,
) -> tuple[float, float]:
    """Return (low, high) = (max(floor(d(low_rot)), 0), min(ceil(d(high_rot)), dim - 1)).

    With ``truncate=False`` the bounds are not rounded (they are still clamped).
    """
    low = yarn_find_correction_dim(low_rot, dim, base, max_position_embeddings)
    high = yarn_find_correction_dim(high_rot, dim, base, max_position_embeddings)
    if truncate:
        low = math.floor(low)
        high = math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_linear_ramp_mask(low: float, high: float, dim: int, dtype: torch.dtype) -> torch.Tensor:
    """Return gamma_j = clamp((j - low) / (high - low), 0, 1) for j in range(dim).

    ``high`` is nudged by 0.001 when it equals ``low`` so that the ramp stays finite.
    """
    if low == high:
        high += 0.001
    ramp = (torch.arange(dim, dtype=dtype) - low) / (high - low)
    return torch.clamp(ramp, 0, 1)


def yarn_get_mscale(scale: float = 1, mscale: float = 1) -> float:
    """Return m(s, x): 1 when s <= 1, else 0.1 * x * ln(s) + 1."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0

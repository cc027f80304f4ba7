"""Independent float64 reference for the rotary embeddings, written from docs/design.md.

Nothing here imports fixed_rope: every formula is restated in float64.
"""

import math

import torch

EPS32 = torch.finfo(torch.float32).eps


def correction_dim(n: float, dim: int, base: float, max_pos: int) -> float:
    """d(n) = D ln(L / (2 pi n)) / (2 ln b)."""
    return dim * math.log(max_pos / (2 * math.pi * n)) / (2 * math.log(base))


def correction_range(
    beta_fast: float, beta_slow: float, dim: int, base: float, max_pos: int
) -> tuple[int, int]:
    low = max(math.floor(correction_dim(beta_fast, dim, base, max_pos)), 0)
    high = min(math.ceil(correction_dim(beta_slow, dim, base, max_pos)), dim - 1)
    return low, high


def m(scale: float, x: float) -> float:
    """m(s, x) = 1 if s <= 1 else 0.1 x ln s + 1."""
    return 1.0 if scale <= 1 else 0.1 * x * math.log(scale) + 1.0


def mscale(scale: float, mscale: float = 1, mscale_all_dim: float = 0) -> float:
    return m(scale, mscale) / m(scale, mscale_all_dim)


def theta(dim: int, base: float) -> torch.Tensor:
    """theta_j = b^(-2j/D), float64."""
    j = torch.arange(dim // 2, dtype=torch.float64)
    return torch.tensor(float(base), dtype=torch.float64) ** (-2.0 * j / dim)


def omega(
    dim: int,
    base: float,
    max_pos: int,
    scale: float,
    beta_fast: float = 32,
    beta_slow: float = 1,
) -> torch.Tensor:
    """omega_j = theta_j (1 - gamma_j) + (theta_j / s) gamma_j, float64."""
    low, high = correction_range(beta_fast, beta_slow, dim, base, max_pos)
    span = (high + 0.001 if high == low else high) - low
    j = torch.arange(dim // 2, dtype=torch.float64)
    gamma = ((j - low) / span).clamp(0.0, 1.0)
    th = theta(dim, base)
    return th * (1 - gamma) + th / scale * gamma


def num_rows(max_pos: int, scale: float) -> int:
    return math.ceil(max_pos * scale)


def cache_rows(
    positions: torch.Tensor, freqs: torch.Tensor, magnitude: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows [m cos(p w) | m sin(p w)] in float64, and the angles p*w."""
    angles = positions.to(torch.float64)[:, None] * freqs[None, :]
    rows = torch.cat((magnitude * angles.cos(), magnitude * angles.sin()), dim=-1)
    return rows, angles


def cache_atol(angles: torch.Tensor, magnitude: float = 1.0) -> torch.Tensor:
    """Tolerance for fp32 cache entries: c * eps32 * (1 + |p w|), duplicated for cos|sin.

    The fp32 angle carries the rounding of omega and of the product p * w, so the error
    grows with the angle (measured worst case: about 2.1 eps32 * (1 + |p w|)).
    """
    c = 6.0 * max(1.0, magnitude)
    tol = c * EPS32 * (1.0 + angles.abs())
    return torch.cat((tol, tol), dim=-1)


def rotate(
    x: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    rotary_dim: int,
    neox: bool,
    last: bool,
    inverse: bool = False,
) -> torch.Tensor:
    """Rotate x [*P, H, h] in float64 with complex numbers: z * (cos + i sin) per pair.

    cos, sin: [*P, rotary_dim / 2]. Rotated channels are the last (``last``) or first
    ``rotary_dim`` of each head.
    """
    x = x.to(torch.float64)
    out = x.clone()
    h = x.size(-1)
    first = h - rotary_dim if last else 0
    half = rotary_dim // 2
    idx = torch.arange(half)
    if neox:
        a, b = first + idx, first + idx + half
    else:
        a, b = first + 2 * idx, first + 2 * idx + 1
    z = torch.complex(x[..., a], x[..., b])
    s = -sin if inverse else sin
    w = torch.complex(cos.to(torch.float64), s.to(torch.float64)).unsqueeze(-2)
    r = z * w
    out[..., a] = r.real
    out[..., b] = r.imag
    return out

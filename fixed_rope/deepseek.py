"""DeepSeek YaRN rotary embeddings: the scaled base and the V4 variant with an fp32 cache."""

from collections.abc import Callable
from typing import Any, Self

import torch

from .base import RotaryEmbeddingBase
from .yarn import yarn_find_correction_range, yarn_get_mscale, yarn_linear_ramp_mask

# Elements per chunk of the V4 cache build: 1/16 of the cache (so the scratch stays below
# 6.25% of it), but at least 2**16 and at most 2**22 (16 MiB). Few chunks keep the number of
# kernel launches and CPU thread-pool rounds low.
_MIN_CHUNK_ELEMENTS = 1 << 16
_MAX_CHUNK_ELEMENTS = 1 << 22


class DeepseekScalingRotaryEmbedding(RotaryEmbeddingBase):
    """Rotary embedding with YaRN scaling (Peng et al., github.com/jquesnelle/yarn).

    The cache has ceil(max_position_embeddings * scaling_factor) rows, row p being
    ``[mscale * cos(p * omega) | mscale * sin(p * omega)]`` where omega blends theta and
    theta / scaling_factor over the correction range given by ``beta_fast`` and ``beta_slow``,
    and mscale = m(s, mscale) / m(s, mscale_all_dim).
    """

    def __init__(
        self,
        head_size: int,
        rotary_dim: int,
        max_position_embeddings: int,
        base: float,
        is_neox_style: bool,
        scaling_factor: float,
        dtype: torch.dtype,
        *,
        beta_fast: float = 32,
        beta_slow: float = 1,
        mscale: float = 1,
        mscale_all_dim: float = 0,
        init_cache: bool = True,
    ) -> None:
        if not scaling_factor > 0:
            raise ValueError(f"scaling_factor must be > 0, got {scaling_factor}")
        # Set before the base __init__, which may build the cache from them.
        self.scaling_factor = scaling_factor
        self.beta_fast = beta_fast
        self.beta_slow = beta_slow
        self.mscale = float(
            yarn_get_mscale(scaling_factor, float(mscale))
            / yarn_get_mscale(scaling_factor, float(mscale_all_dim))
        )
        super().__init__(
            head_size,
            rotary_dim,
            max_position_embeddings,
            base,
            is_neox_style,
            dtype,
            init_cache=init_cache,
        )

    def _compute_inv_freq(self, scaling_factor: float) -> torch.Tensor:
        """Return omega_j = theta_j * (1 - gamma_j) + (theta_j / s) * gamma_j in fp32."""
        exponents = torch.arange(0, self.rotary_dim, 2, dtype=torch.float32) / self.rotary_dim
        pos_freqs = torch.pow(self.base, exponents)
        extrapolation = 1.0 / pos_freqs
        interpolation = 1.0 / (scaling_factor * pos_freqs)
        low, high = yarn_find_correction_range(
            self.beta_fast,
            self.beta_slow,
            self.rotary_dim,
            self.base,
            self.max_position_embeddings,
        )
        # Weight of the unscaled theta: 1 - gamma.
        keep = 1 - yarn_linear_ramp_mask(low, high, self.rotary_dim // 2, dtype=torch.float32)
        return interpolation * (1 - keep) + extrapolation * keep

    def _compute_cos_sin_cache(self) -> torch.Tensor:
        """Return the fp32 cache [ceil(L * s), rotary_dim] as one full-tensor computation."""
        inv_freq = self._compute_inv_freq(self.scaling_factor)
        t = torch.arange(self.max_position_embeddings * self.scaling_factor, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        return torch.cat((freqs.cos() * self.mscale, freqs.sin() * self.mscale), dim=-1)


class DeepseekV4ScalingRotaryEmbedding(DeepseekScalingRotaryEmbedding):
    """DeepSeek V4's YaRN rotary embedding.

    Compared with DeepseekScalingRotaryEmbedding:

    - the cache ``cos_sin_cache`` is fp32 whatever ``dtype`` says, and stays fp32 when the
      module is converted (``.to(torch.bfloat16)``, ``.half()``; device moves still apply);
    - ``init_cache`` is accepted and ignored: the cache is computed once, in chunks written
      straight into the preallocated result on the default device, and registered once;
    - the *last* ``rotary_dim`` channels of each head rotate, the head size is taken from the
      input (see ``forward``), ``key`` may be None and ``inverse=True`` undoes the rotation.
    """

    rotates_last_channels = True
    # Chunk size of the cache build in elements; None picks one from the cache size.
    cache_chunk_elements: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("init_cache", None)
        # The parent must not build a cache: V4 registers its own fp32 one below.
        super().__init__(*args, **kwargs, init_cache=False)
        cache = self._compute_cos_sin_cache()
        self.register_buffer("cos_sin_cache", cache, persistent=False)

    def _compute_cos_sin_cache(self) -> torch.Tensor:
        """Return the fp32 cache, bitwise equal to the full-tensor formula of the parent.

        Rows are computed chunk by chunk into one preallocated [N, rotary_dim] tensor on
        ``torch.get_default_device()``, so peak memory stays close to the cache itself.
        Every step is elementwise (product, cos, sin, mscale product), hence the chunking
        does not change a single bit.
        """
        device = torch.get_default_device()
        inv_freq = self._compute_inv_freq(self.scaling_factor).to(device)
        t = torch.arange(
            self.max_position_embeddings * self.scaling_factor, dtype=torch.float32, device=device
        )
        num_rows, half = t.numel(), inv_freq.numel()
        cache = torch.empty((num_rows, 2 * half), dtype=torch.float32, device=device)
        chunk_rows = self._cache_chunk_rows(num_rows, half)
        freqs = torch.empty((chunk_rows, half), dtype=torch.float32, device=device)
        for start in range(0, num_rows, chunk_rows):
            stop = min(start + chunk_rows, num_rows)
            chunk_freqs = freqs[: stop - start]
            torch.mul(t[start:stop, None], inv_freq, out=chunk_freqs)
            torch.cos(chunk_freqs, out=cache[start:stop, :half])
            torch.sin(chunk_freqs, out=cache[start:stop, half:])
            if self.mscale != 1.0:  # x * 1.0 == x, so skipping keeps the bits
                cache[start:stop].mul_(self.mscale)
        return cache

    def _cache_chunk_rows(self, num_rows: int, half: int) -> int:
        """Rows per chunk of the cache build (``cache_chunk_elements`` or the default)."""
        elements = self.cache_chunk_elements
        if elements is None:
            elements = num_rows * half // 16
            elements = min(_MAX_CHUNK_ELEMENTS, max(_MIN_CHUNK_ELEMENTS, elements))
        return max(1, min(num_rows, elements // half))

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> Self:
        """Apply ``fn`` as nn.Module does, but keep ``cos_sin_cache`` fp32.

        A conversion that would change the cache's dtype only moves it to the target device.
        """
        cache = self._buffers.get("cos_sin_cache")
        if cache is not None:
            self._buffers["cos_sin_cache"] = None  # hidden from the generic conversion
        try:
            super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        finally:
            if cache is not None:
                self._buffers["cos_sin_cache"] = cache
        if cache is not None:
            probe = fn(cache.new_empty(0))
            if probe.dtype == cache.dtype:
                self._buffers["cos_sin_cache"] = fn(cache)
            else:
                self._buffers["cos_sin_cache"] = cache.to(device=probe.device)
        return self

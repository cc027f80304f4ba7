"""Rotary embedding base class: cos/sin cache and the out-of-place rotation."""

import torch
from torch import nn

_INDEX_DTYPES = (torch.int32, torch.int64)


def _check_config(head_size: int, rotary_dim: int, max_position_embeddings: int) -> None:
    """Raise ValueError for sizes that cannot describe a rotary embedding."""
    if max_position_embeddings < 1:
        raise ValueError(f"max_position_embeddings must be >= 1, got {max_position_embeddings}")
    if rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(f"rotary_dim must be a positive even number, got {rotary_dim}")
    if rotary_dim > head_size:
        raise ValueError(f"rotary_dim ({rotary_dim}) must not exceed head_size ({head_size})")


def _resolve_positions(
    positions: torch.Tensor, offsets: torch.Tensor | None, num_rows: int
) -> torch.Tensor:
    """Return positions (+ offsets) as an index tensor, checked against the cache length."""
    for name, tensor in (("positions", positions), ("offsets", offsets)):
        if tensor is not None and (tensor.is_floating_point() or tensor.is_complex()):
            raise ValueError(f"{name} must be an integer tensor, got {tensor.dtype}")
        if tensor is not None and tensor.dtype == torch.bool:
            raise ValueError(f"{name} must be an integer tensor, got torch.bool")
    index = positions
    if offsets is not None:
        index = positions + offsets
        if index.shape != positions.shape:
            raise ValueError(
                f"offsets of shape {tuple(offsets.shape)} do not match positions of shape "
                f"{tuple(positions.shape)}"
            )
    if index.dtype not in _INDEX_DTYPES:
        index = index.long()
    if index.numel():
        low, high = torch.stack(torch.aminmax(index)).tolist()
        if low < 0 or high >= num_rows:
            what = "positions + offsets" if offsets is not None else "positions"
            raise ValueError(
                f"{what} must lie in [0, {num_rows}) (the cos/sin cache has {num_rows} rows), "
                f"got values in [{low}, {high}]"
            )
    return index


def _split_heads(
    x: torch.Tensor, lead_shape: torch.Size, flat_head_size: int, name: str
) -> torch.Tensor:
    """View ``x`` as [*lead_shape, num_heads, head_size].

    ``x`` is either flat, [*lead_shape, num_heads * flat_head_size], or already split,
    [*lead_shape, num_heads, head_size] (the head size is then ``x.size(-1)``).
    """
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got {x.dtype}")
    rank = len(lead_shape)
    if x.dim() == rank + 1:
        if x.size(-1) % flat_head_size:
            raise ValueError(
                f"flat {name} of shape {tuple(x.shape)}: last dim {x.size(-1)} is not a "
                f"multiple of head_size ({flat_head_size})"
            )
        heads = x.reshape(*x.shape[:-1], x.size(-1) // flat_head_size, flat_head_size)
    elif x.dim() == rank + 2:
        heads = x
    else:
        raise ValueError(
            f"{name} of shape {tuple(x.shape)} does not match positions of shape "
            f"{tuple(lead_shape)}: expected rank {rank + 1} ([..., num_heads * head_size]) "
            f"or rank {rank + 2} ([..., num_heads, head_size])"
        )
    if heads.shape[:rank] != lead_shape:
        raise ValueError(
            f"{name} of shape {tuple(x.shape)} does not match positions of shape "
            f"{tuple(lead_shape)} in the leading dims"
        )
    return heads


class RotaryEmbeddingBase(nn.Module):
    """Rotary positional embedding with a precomputed cos/sin cache.

    With ``init_cache=True`` the constructor computes the cache through the (virtual)
    ``_compute_cos_sin_cache``, casts it to ``dtype`` and registers it as the non-persistent
    buffer ``cos_sin_cache``: row p is ``[cos(p * inv_freq) | sin(p * inv_freq)]``.
    """

    cos_sin_cache: torch.Tensor
    # Which channels of a head rotate: the first ``rotary_dim`` (False) or the last (True).
    rotates_last_channels: bool = False

    def __init__(
        self,
        head_size: int,
        rotary_dim: int,
        max_position_embeddings: int,
        base: float,
        is_neox_style: bool,
        dtype: torch.dtype,
        init_cache: bool = True,
    ) -> None:
        _check_config(head_size, rotary_dim, max_position_embeddings)
        super().__init__()
        self.head_size = head_size
        self.rotary_dim = rotary_dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        self.is_neox_style = is_neox_style
        self.dtype = dtype
        if init_cache:
            cache = self._compute_cos_sin_cache()
            cache = cache.to(dtype)
            self.register_buffer("cos_sin_cache", cache, persistent=False)

    def _compute_inv_freq(self, base: float) -> torch.Tensor:
        """Return theta_j = base ** (-2j / rotary_dim) in fp32, j in [0, rotary_dim / 2)."""
        exponents = torch.arange(0, self.rotary_dim, 2, dtype=torch.float32) / self.rotary_dim
        return 1.0 / torch.pow(base, exponents)

    def _compute_cos_sin_cache(self) -> torch.Tensor:
        """Return the fp32 cache [max_position_embeddings, rotary_dim]."""
        inv_freq = self._compute_inv_freq(self.base)
        t = torch.arange(self.max_position_embeddings, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        return torch.cat((freqs.cos(), freqs.sin()), dim=-1)

    def forward(
        self,
        positions: torch.Tensor,
        query: torch.Tensor,
        key: torch.Tensor | None = None,
        offsets: torch.Tensor | None = None,
        inverse: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Rotate ``query`` (and ``key``) by their positions; inputs are never modified.

        ``positions`` has shape P (usually [T]) and integer dtype; ``offsets``, if given, is
        added to it. ``query`` and ``key`` are either flat, [*P, num_heads * head_size], split
        with ``self.head_size``, or [*P, num_heads, head_size], whose head size is
        ``size(-1)``; the key's head size must equal the query's. Only ``rotary_dim`` channels
        of each head rotate (see ``rotates_last_channels``); the others are copied unchanged.
        neox style pairs channel i with i + rotary_dim / 2, gptj style pairs 2i with 2i + 1.
        ``inverse=True`` negates sin, undoing the rotation. Half-precision inputs are
        computed in fp32 and cast back once.

        Returns ``(query_out, key_out)``, with ``key_out`` None when ``key`` is None.
        """
        cache = self._buffers.get("cos_sin_cache")
        if cache is None:
            raise RuntimeError(
                f"{type(self).__name__} has no cos_sin_cache (built with init_cache=False)"
            )
        index = _resolve_positions(positions, offsets, cache.size(0))
        rows = cache.index_select(0, index.reshape(-1)).view(*index.shape, cache.size(1))
        query_heads = _split_heads(query, index.shape, self.head_size, "query")
        query_out = self._rotate(query_heads, rows, inverse).reshape(query.shape)
        if key is None:
            return query_out, None
        key_heads = _split_heads(key, index.shape, self.head_size, "key")
        if key_heads.size(-1) != query_heads.size(-1):
            raise ValueError(
                f"key head size {key_heads.size(-1)} differs from query head size "
                f"{query_heads.size(-1)}"
            )
        return query_out, self._rotate(key_heads, rows, inverse).reshape(key.shape)

    def _rotate(self, heads: torch.Tensor, rows: torch.Tensor, inverse: bool) -> torch.Tensor:
        """Rotate ``heads`` [*P, H, h] with cache rows [*P, rotary_dim], out of place."""
        dim, head_size = self.rotary_dim, heads.size(-1)
        if dim > head_size:
            raise ValueError(f"rotary_dim ({dim}) exceeds the head size of the input ({head_size})")
        half = dim // 2
        compute_dtype = torch.promote_types(heads.dtype, torch.float32)
        rows = rows.to(compute_dtype).unsqueeze(-2)
        cos, sin = rows[..., :half], rows[..., half:]
        if inverse:
            sin = -sin
        if self.rotates_last_channels:
            passed, rotated = heads[..., : head_size - dim], heads[..., head_size - dim :]
        else:
            rotated, passed = heads[..., :dim], heads[..., dim:]
        x = rotated.to(compute_dtype)
        if self.is_neox_style:
            x1, x2 = x[..., :half], x[..., half:]
        else:
            x1, x2 = x[..., 0::2], x[..., 1::2]
        y1 = x1 * cos - x2 * sin
        y2 = x2 * cos + x1 * sin
        if self.is_neox_style:
            y = torch.cat((y1, y2), dim=-1)
        else:
            y = torch.stack((y1, y2), dim=-1).flatten(-2)
        y = y.to(heads.dtype)
        if dim == head_size:
            return y
        return torch.cat((passed, y) if self.rotates_last_channels else (y, passed), dim=-1)

    def extra_repr(self) -> str:
        return (
            f"head_size={self.head_size}, rotary_dim={self.rotary_dim}, "
            f"max_position_embeddings={self.max_position_embeddings}, base={self.base}, "
            f"is_neox_style={self.is_neox_style}"
        )

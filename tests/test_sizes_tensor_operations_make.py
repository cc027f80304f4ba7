"""What tensor operations make, priced by the sizes they make, not by the tensors they start
from: a broadcast of two tensors viewed with new dimensions (``t[:, None] * f[None, :]``: a
table as big as the product of their sizes, as ``torch.outer`` builds), a range of
written-out bounds (``torch.arange(512)``: 512 numbers), a tensor's own factories
(``seed.new_zeros(4096, 4096)``: the sizes given) and repeats (``row.repeat(1024, 1024)``).
A rotary cache rebuilt is an error, a short index range a warning."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, max_pos, dim, base=10000.0):
        super().__init__()
        t = torch.arange(max_pos)
        inv = 1.0 / (base ** (torch.arange(0, dim, 2) / dim))
        self.register_buffer("cache", {value})
        self.register_buffer("cache", torch.ones(3))
"""


@pytest.mark.parametrize(
    ("value", "severity"),
    [
        # sizes not known here, broadcast into a table: heavy, as torch.outer(t, inv) is
        ("(t[:, None] * inv[None, :]).cos()", "error"),
        ("t[..., None, :] * inv[..., None]", "error"),
        ("torch.outer(t, inv)", "error"),
        # written-out sizes: their product, against a mebibyte of numbers
        ("torch.arange(4096)[:, None] * torch.arange(64)[None, :]", "error"),
        ("torch.arange(64)[:, None] * torch.arange(64)[None, :]", "warning"),
        # a column and a row however viewed, and vectors however made or cast
        ("t.unsqueeze(1) * inv.unsqueeze(0)", "error"),
        ("torch.arange(512).view(-1, 1) - torch.arange(512).view(1, -1)", "error"),
        ("torch.ones(512).unsqueeze(1) - torch.ones(512).unsqueeze(0)", "error"),
        ("torch.arange(2048).float()[:, None] * torch.arange(2048).float()[None, :]", "error"),
        # views along any two different axes; a view scaled, cast or taken by a method
        ("t[:, None, None] * inv[None, :]", "error"),
        ("t[..., None] * inv[None, ...]", "error"),
        ("2.0 * t[:, None] * inv[None, :]", "error"),
        ("t[:, None].mul(inv[None, :])", "error"),
        ("t.unsqueeze(dim=1) * inv.unsqueeze(dim=0)", "error"),
        # a comparison makes a table of bools, a byte each: a causal mask
        ("torch.arange(2048)[:, None] >= torch.arange(2048)[None, :]", "error"),
        ("torch.arange(512)[:, None] >= torch.arange(512)[None, :]", "warning"),
        # numbers counted in the room they take: int64 twice a float32, a cast's own
        ("torch.arange(256)[:, None] - torch.arange(256)[None, :]", "warning"),
        ("torch.arange(512)[:, None] - torch.arange(512)[None, :]", "error"),
        ("torch.arange(256).float()[:, None] * torch.arange(256).float()[None, :]", "warning"),
        ("torch.linspace(0, 1, 500).double()[:, None] * torch.ones(500).double()[None]", "error"),
        # the same new dimension on both sides, or one side a number: no table
        ("t[:, None] * inv[:, None]", "warning"),
        ("t[:, None] * 2.0", "warning"),
        # no table either: views that broadcast elementwise, a side that is not a vector,
        # a side of one number
        ("torch.arange(1024)[None, None] * torch.arange(1024)[None]", "warning"),
        ("torch.ones(512, 64)[:, None] * torch.ones(64)[None, :]", "warning"),
        ("torch.zeros((512, 64))[:, None] * torch.ones(64)[None, :]", "warning"),
        ("torch.ones(1)[:, None] * t[None, :]", "warning"),
        # a side whose size is not carried here (a slice, a handed-in value): not known
        ("torch.arange(64)[:16][:, None] * torch.arange(64)[None, :]", "warning"),
        ("max_pos[:, None] * dim[None, :]", "warning"),
        # a range of written-out bounds holds what they count
        ("torch.arange(512)", "warning"),
        ("torch.arange(0, 1024, 4)", "warning"),
        ("torch.arange(300_000)", "error"),
        ("torch.linspace(0.0, 1.0, 100)", "warning"),
        ("torch.arange(max_pos)", "warning"),
        # an integer range is int64: 200,000 of them hold 1.5 MiB; bounds by keyword count
        ("torch.arange(200_000)", "error"),
        ("torch.arange(200_000, dtype=torch.float16)", "warning"),
        ("torch.arange(200_000, dtype=torch.float64)", "error"),
        ("torch.arange(200_000, dtype=max_pos)", "error"),
        ("torch.arange(0, -300_000, -1)", "error"),
        ("torch.arange(64, 0, step=-1)", "warning"),
        ("torch.arange(0, 1_000_000, step=1000)", "warning"),
        ("torch.arange(start=0, end=64)", "warning"),
        ("torch.linspace(0, 1, steps=100)", "warning"),
        ("torch.arange(0, 200_000, step=0.5)", "error"),
        ("torch.arange(64).repeat(100_000)", "error"),
        # a tensor's own factories make the sizes they are given, whatever it holds
        ("inv.new_zeros(4096, 4096)", "error"),
        ("inv.new_full((1024, 1024), 0.5)", "error"),
        ("inv.new_ones(64, 64)", "warning"),
        ("torch.ones(4, 1).new_empty(max_pos, dim)", "error"),
        # a repeat holds at least as many numbers as it repeats the tensor
        ("torch.ones(2).repeat(1024, 1024)", "error"),
        ("torch.ones(2).tile((1024, 512))", "error"),
        ("torch.ones(2).repeat(4, 4)", "warning"),
        ("torch.arange(32).float().repeat(4096)", "warning"),
        ("torch.empty(0).repeat(1000, 1000)", "warning"),
        ("torch.randn(2048, 2048).new_zeros(16)", "error"),
    ],
)
def test_a_buffer_replaced_is_priced_by_what_its_value_holds(
    check_source: Callable[..., Report], value: str, severity: str
) -> None:
    found = check_source(SOURCE.format(value=value)).diagnostics
    assert [(d.code, d.line, d.severity) for d in found] == [("IL005", 12, severity)]


def test_the_sizes_claimed_hold_at_runtime() -> None:
    torch = pytest.importorskip("torch")
    t, inv = torch.arange(4096), torch.arange(64)
    assert (t[:, None] * inv[None, :]).numel() == 4096 * 64 == 1 << 18
    assert (t[:, None] * t[:, None]).numel() == 4096  # (the same new dimension: no table)
    assert t[..., None, :].shape == (1, 4096) and inv[..., None].shape == (64, 1)
    assert torch.arange(0, 1024, 4).numel() == 256
    assert torch.ones(2).new_zeros(4096, 4096).numel() == 1 << 24
    assert torch.ones(2).repeat(1024, 1024).numel() == 2 << 20
    assert (torch.arange(1024)[None, None] * torch.arange(1024)[None]).numel() == 1024
    assert (torch.ones(512, 64)[:, None] * torch.ones(64)[None, :]).numel() == 512 * 64
    assert torch.arange(200_000).element_size() * 200_000 > 1 << 20

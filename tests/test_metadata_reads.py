"""What reading a value's kind or size is, for a value replaced later: asking a tensor for its
device, dtype or shape (``dev = self.freqs.device``) reads none of its numbers, so the build
it asks about is still thrown away when the value is replaced unread (IL005), as for a part;
a read of its numbers keeps it, and so does a test against None (what follows may depend on
which value is there). And a test of a value against itself (``seq_len >
self.max_positions`` where both hold the argument the construction was given) comes out as
Python's would, whatever the value."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

READS = """
import torch
from torch import nn


class Rope(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.register_buffer("freqs", self._make(n))
        self.reset()

    def reset(self, device=None):
        {read}
        with torch.device(device):
            self.freqs = self._make(self.n)

    def _make(self, n):
        return torch.randn(n, n)
"""


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ("device = device or self.freqs.device", 1),
        ("rows = self.freqs.shape[0]", 1),
        ("kind = self.freqs.dtype", 1),
        ("total = self.freqs.sum()", 0),  # (its numbers read: the build was used)
        # (a test against None: what runs after may depend on which value is there)
        ("missing = self.freqs is None", 0),
        ("self.first = self.freqs", 0),
    ],
)
def test_asking_a_value_what_it_is_does_not_use_it(
    check_source: Callable[..., Report], read: str, expected: int
) -> None:
    found = check_source(READS.format(read=read)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL005", "error")] * expected


ITSELF = """
import torch
from torch import nn


class Rope(nn.Module):
    def __init__(self, n, max_positions):
        super().__init__()
        self.max_positions = max_positions
        self.register_buffer("inv", torch.randn(n, n))
        self._cache(seq_len=max_positions)

    def _cache(self, seq_len):
        if seq_len {op} self.max_positions:
            self.register_buffer("inv", torch.randn(seq_len, seq_len))
"""


@pytest.mark.parametrize(("op", "expected"), [(">", 0), ("<", 0), (">=", 1), ("<=", 1)])
def test_a_value_against_itself_is_decided(
    check_source: Callable[..., Report], op: str, expected: int
) -> None:
    found = check_source(ITSELF.format(op=op)).diagnostics
    assert [(d.code, d.confidence) for d in found] == [("IL005", "definite")] * expected

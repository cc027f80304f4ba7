"""Random draws are a fill: a tensor made with ``torch.randn(...)`` (also inside
``nn.Parameter``, or as the items of an ``nn.ParameterList``) holds numbers already, so a
pass that fills it whole before anything reads it (``for p in self.parameters()``, or a
loop over the list's items) throws the draws away, as a direct fill of it does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
import torch.nn as nn
from torch.nn import Parameter, ParameterList


class Memory(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        dims = (dim,) * (depth + 1)
        {make}
        {fill}
"""

LIST = "self.weights = ParameterList([Parameter({factory}(a, b)) for a, b in zip(dims, dims)])"
LOOP = "for weight in self.weights:\n            nn.init.xavier_uniform_(weight)"
PASS = "for p in self.parameters():\n            nn.init.xavier_uniform_(p)"


@pytest.mark.parametrize(
    ("make", "fill", "what"),
    [
        (LIST.format(factory="torch.randn"), LOOP, "the items of `self.weights` were made with"),
        (LIST.format(factory="torch.randn"), PASS, "the items of `self.weights` were made with"),
        ("self.proj = Parameter(torch.randn(dim, dim))", PASS, "`self.proj` was made with"),
        (
            "self.weights = ParameterList([Parameter(torch.randn(dim, dim)), "
            "Parameter(torch.rand(dim, dim))])",
            LOOP,
            "the items of `self.weights` were made with",
        ),
        # a placeholder, not draws: the fill is the first
        (LIST.format(factory="torch.empty"), LOOP, ""),
        ("self.proj = Parameter(torch.empty(dim, dim))", PASS, ""),
        # one item not drawn: the list's numbers are not all thrown away
        (
            "self.weights = ParameterList([Parameter(torch.randn(dim, dim)), "
            "Parameter(torch.empty(dim, dim))])",
            LOOP,
            "",
        ),
        # the loop reads the numbers it replaces
        (
            LIST.format(factory="torch.randn"),
            "for weight in self.weights:\n            weight.data.copy_(weight * 2)",
            "",
        ),
    ],
)
def test_random_draws_filled_again_by_a_pass(
    check_source: Callable[..., Report], make: str, fill: str, what: str
) -> None:
    found = check_source(CASE.format(make=make, fill=fill)).diagnostics
    assert [(d.code, d.severity) for d in found] == ([("IL005", "error")] if what else [])
    for d in found:
        assert d.message.startswith(f"the random values {what}")
        assert "those draws are thrown away" in d.message

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


HELD = """
import math
import torch
import torch.nn as nn


class Lin(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.weights = nn.ParameterList([])
        for dim_in, dim_out in dims:
            self.weights.append(nn.Parameter({draw}))

    def init_zero_(self):
        for weight in self.weights:
            weight.data.zero_()

    def scale_(self):
        for weight in self.weights:
            weight.data.mul_(weight.abs().max())


class FeedForward(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.project_out = Lin(dims)
        self.project_out.{method}()
"""


@pytest.mark.parametrize(
    ("draw", "method", "found"),
    [
        ("torch.randn(dim_in, dim_out) / math.sqrt(dim_in)", "init_zero_", True),
        ("torch.randn(dim_in, dim_out)", "init_zero_", True),
        # a placeholder: the method's fill is the first
        ("torch.empty(dim_in, dim_out)", "init_zero_", False),
        # the method reads the numbers it replaces
        ("torch.randn(dim_in, dim_out)", "scale_", False),
    ],
)
def test_a_held_modules_method_fills_what_its_construction_drew(
    check_source: Callable[..., Report], draw: str, method: str, found: bool
) -> None:
    """``self.project_out = Lin(dims)`` then ``self.project_out.init_zero_()``, where
    ``Lin`` drew its weights at random: the draws are thrown away by a method its
    construction never ran (so it is run, not run again)."""
    diagnostics = check_source(HELD.format(draw=draw, method=method)).diagnostics
    assert [d.code for d in diagnostics] == (["IL005"] if found else [])
    for d in diagnostics:
        assert d.message.startswith("the random values the items of `self.project_out.weights`")
        assert f"by `{method}()`, before" in d.message

"""Two pieces of work under tests that want one argument to hold two values that share
none (``mode == "zeros"`` and ``mode == "orthogonal"``, two ``if``s rather than an
``if``/``else``) never both run in one construction: neither throws the other away."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

FILLS = """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, d, output_init="zeros"):
        super().__init__()
        self.output_init = output_init
        self.lin = nn.Linear(d, d, bias=False)
        self.reset_parameters()

    def reset_parameters(self):
        if self.output_init == "zeros":
            self.lin.weight.data.fill_(0)
        if self.output_init {test}:
            nn.init.orthogonal_(self.lin.weight)
"""

BUILDS = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, d, mode="dense"):
        super().__init__()
        if mode == "dense":
            self.table = torch.randn(d, d)


class Child(Base):
    def __init__(self, d, mode="dense"):
        super().__init__(d, mode)
        if mode {test}:
            self.table = torch.randn(d, d)
"""


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ('== "orthogonal"', []),
        ('in ("orthogonal", "normal")', []),
        # values that may meet: the second fill may follow the first
        ('in ("zeros", "normal")', ["IL005"]),
        ('!= "normal"', ["IL005"]),
    ],
)
def test_fills_under_values_that_share_none_never_both_run(
    check_source: Callable[..., Report], test: str, expected: list[str]
) -> None:
    found = check_source(FILLS.format(test=test)).diagnostics
    assert [d.code for d in found] == expected


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ('== "sparse"', []),
        ('in ("sparse", "mixed")', []),
        ('in ("dense", "mixed")', ["IL003"]),
    ],
)
def test_builds_under_values_that_share_none_never_both_run(
    check_source: Callable[..., Report], test: str, expected: list[str]
) -> None:
    found = check_source(BUILDS.format(test=test)).diagnostics
    assert [d.code for d in found] == expected

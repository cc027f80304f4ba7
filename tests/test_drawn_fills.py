"""A tensor made from random draws (``nn.Parameter(torch.randn(a, b))``) and then filled
whole before anything reads it: the draws are thrown away (IL005); ``torch.empty`` would
hold the place."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
import torch.nn as nn


class Kernel(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.weight = {made}
        {between}
        nn.init.kaiming_normal_(self.weight)
"""


@pytest.mark.parametrize(
    ("made", "between", "expected"),
    [
        ("nn.Parameter(torch.randn(b, a))", "pass", [("IL005", "error")]),
        ("nn.Parameter(torch.rand(b, a, 3, 3))", "pass", [("IL005", "error")]),
        # a placeholder: no draws to lose
        ("nn.Parameter(torch.empty(b, a))", "pass", []),
        # the draws are read in between: used
        ("nn.Parameter(torch.randn(b, a))", "self.scale = self.weight.std()", []),
        # what it is, not its numbers: still thrown away
        ("nn.Parameter(torch.randn(b, a))", "n = self.weight.shape[0]", [("IL005", "error")]),
    ],
)
def test_random_draws_filled_again(
    check_source: Callable[..., Report], made: str, between: str, expected: list[tuple[str, str]]
) -> None:
    found = check_source(CASE.format(made=made, between=between)).diagnostics
    assert [(d.code, d.severity) for d in found] == expected
    for d in found:
        assert d.message.startswith("the random values `self.weight` was made with")
        assert "those draws are thrown away" in d.message

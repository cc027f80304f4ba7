"""A function handed a module the object holds (``init_attenuated(self.lin)``) fills the
parts of it that its body fills whole on every path: those are the class's fills of
``self.lin.weight``, thrown away by a later fill of them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


def init_linear(linear, gain=1.0):
    {body}


class Proj(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        init_linear(self.lin)


class Sub(Proj):
    def __init__(self, d):
        super().__init__(d)
        nn.init.xavier_uniform_(self.lin.weight)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("nn.init.kaiming_uniform_(linear.weight)", ["IL005"]),
        ("linear.weight.data.normal_(0, 0.02)\n    nn.init.zeros_(linear.bias)", ["IL005"]),
        # on some paths only: not claimed
        ("if gain > 1:\n        nn.init.kaiming_uniform_(linear.weight)", []),
        # another part: the weight keeps torch's default, then one fill of the class's
        ("nn.init.zeros_(linear.bias)", []),
        # part of it
        ("nn.init.zeros_(linear.weight[0])", []),
    ],
)
def test_a_helpers_fills_of_a_held_module_are_the_classs(
    check_source: Callable[..., Report], body: str, expected: list[str]
) -> None:
    found = check_source(CASE.format(body=body)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.lin.weight` by Proj.__init__" in d.message

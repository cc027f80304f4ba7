"""A pass or a loop that picks items by ``hasattr(m, "<name>")``: a fill of ``m.weight``
under ``hasattr(m, "weight")`` reaches every module's weight; a method run under
``hasattr(layer, "reset_parameters")`` reaches the modules whose class defines it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

PASS = """
from torch import nn


class Init(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = nn.Linear(c, c)
        nn.init.zeros_(self.a.weight)
        for m in self.modules():
            if {test}:
                nn.init.normal_(m.weight)
"""


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ('hasattr(m, "weight")', [("IL005", 12)]),
        ('hasattr(m, "weight") and m.weight is not None', [("IL005", 12)]),
        # a test of another part: which modules hold a weight too is not known here
        ('hasattr(m, "bias")', []),
        ('not hasattr(m, "weight")', []),
    ],
)
def test_a_pass_under_hasattr_of_the_part_filled(
    check_source: Callable[..., Report], test: str, expected: list[tuple[str, int]]
) -> None:
    found = check_source(PASS.format(test=test)).diagnostics
    assert [(d.code, d.line) for d in found] == expected


RERUN = """
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.layers = nn.Sequential(*[Layer(d) for _ in range(n)])
        for layer in self.layers:
            if hasattr(layer, "{method}"):
                layer.reset_parameters()
"""


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("reset_parameters", [("IL005", 22)]),
        # a method the class does not define: whether the test holds is not known
        ("init_weights", []),
    ],
)
def test_a_method_run_again_under_hasattr(
    check_source: Callable[..., Report], method: str, expected: list[tuple[str, int]]
) -> None:
    found = check_source(RERUN.format(method=method)).diagnostics
    assert [(d.code, d.line) for d in found] == expected
    for d in found:
        assert "`self.layers.*.weight`" in d.message

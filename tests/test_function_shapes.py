"""A shape a call writes out as a tuple (``init((n_out,))``), or passes in a local holding
one, sizes what the project function it calls makes of it: a vector of a size not known here
is of unknown cost, a matrix heavy."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import numpy as np
from torch import nn


def uniform(shape, scale=1.0):
    return np.random.uniform(-scale, scale, size=shape)


class Base(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = uniform((n_in, n_out))
        self.bias = uniform((n_out,))
        shape = (n_in, n_out)
        self.held = uniform(shape)


class Child(Base):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.weight = uniform((n_in, 4 * n_out))
        self.bias = uniform((4 * n_out,))
        self.held = uniform((n_in, n_out))
"""


def test_a_shape_passed_in_sizes_the_draw(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE)
    found = {d.message.split("`")[1]: d for d in report.diagnostics}
    assert found["self.weight"].severity == "error"
    assert found["self.held"].severity == "error"  # a local holding the shape
    assert found["self.bias"].severity == "warning"
    assert "not known here" in found["self.bias"].message

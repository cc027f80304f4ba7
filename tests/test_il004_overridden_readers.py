"""IL004: setup switched off is missing only where a method the object runs reads it. A
read in an ancestor's method that the class overrides (without calling it) never runs on
the object: not a reader."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n, create_cache=True):
        super().__init__()
        if create_cache:
            self.register_buffer("cache", torch.zeros(n, n))

    def forward(self, x):
        return x @ self.cache

    def shape(self):
        return len(self)


class Layer(Base):
    def __init__(self, n):
        super().__init__(n, create_cache=False)

{override}
"""


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        # the only reader overridden: nothing is missing
        ("    def forward(self, x, cache):\n        return x @ cache", []),
        # no override: Base.forward reads it
        ("", ["IL004"]),
        # the override runs Base.forward: it reads it
        ("    def forward(self, x):\n        return super().forward(x) * 2", ["IL004"]),
        ("    def forward(self, x):\n        return Base.forward(self, x) * 2", ["IL004"]),
        # another method overridden: Base.forward still runs
        ("    def shape(self):\n        return 1", ["IL004"]),
    ],
)
def test_a_reader_the_class_overrides_reads_nothing(
    check_source: Callable[..., Report], override: str, expected: list[str]
) -> None:
    found = check_source(SOURCE.format(override=override)).diagnostics
    assert [d.code for d in found] == expected

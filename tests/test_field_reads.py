"""A rebuild computed from the fields of the plain value it replaces
(``self.spec = Spec(self.spec.channels, ...)``) uses what built that value: no repeat. A
module's weights are not read by reading its configuration (``self.head.in_features``,
``self.norm.eps``): rebuilding it from that stays a repeat."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
from torch import nn


class Spec:
    def __init__(self, channels, strides, eps=1e-5):
        self.channels = channels
        self.strides = strides
        self.eps = eps


class Base(nn.Module):
    def __init__(self, channels=(64, 128), width=512):
        super().__init__()
        self.spec = Spec(channels=list(channels), strides=[2, 4])
        self.head = nn.Linear(width, 1000)
        self.norm = nn.LayerNorm(8, elementwise_affine=False)
        self.drop = nn.Dropout(0.1)


class Child(Base):
    def __init__(self, channels=(64, 128), width=512):
        super().__init__(channels, width)
        {statement}
"""


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("self.spec = Spec(self.spec.channels, [s // 2 for s in self.spec.strides])", []),
        ("self.spec = Spec(channels=self.spec.channels, strides=[])", []),
        ("self.spec = Spec(channels=[1], strides=[])", [("IL003", "warning")]),
        ("self.head = nn.Linear(self.head.in_features, 10)", [("IL003", "error")]),
        # a parameterless module's configuration is no part its construction made
        ("self.norm = nn.LayerNorm(8, eps=self.norm.eps)", [("IL003", "warning")]),
        ("self.drop = nn.Dropout(self.drop.p)", [("IL003", "warning")]),
        # a plain value's field, whatever its name
        ("self.spec = Spec([1], [2], eps=self.spec.eps)", []),
    ],
)
def test_a_rebuild_from_the_fields_of_a_plain_value_uses_it(
    check_source: Callable[..., Report], statement: str, expected: list[tuple[str, str]]
) -> None:
    found = [
        (d.code, d.severity) for d in check_source(CASE.format(statement=statement)).diagnostics
    ]
    assert found == expected

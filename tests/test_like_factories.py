"""``torch.ones_like(t)`` makes a tensor as big as ``t``: it costs what making ``t`` did
(a self attribute's or a local's build), and is of a size not known here when ``t`` was
made elsewhere (an argument): a copy of a 1-D norm weight is no heavy buffer."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, d, x):
        super().__init__()
        self.w = nn.Parameter({weight})
        local = torch.zeros(d, d)
        self.register_buffer("a", torch.ones_like({like}))


class Sub(Base):
    def __init__(self, d, x):
        super().__init__(d, x)
        self.register_buffer("a", torch.ones_like({like}))
"""


@pytest.mark.parametrize(
    ("weight", "like", "severity"),
    [
        ("torch.zeros(d, d)", "self.w", "error"),
        # one dimension of a size not known here: a norm's weight, or a table
        ("torch.zeros(d)", "self.w", "warning"),
        ("torch.zeros(1)", "self.w", "warning"),
        ("torch.zeros(d)", "local", "error"),
        # made by the caller: its size is not known here
        ("torch.zeros(d)", "x", "warning"),
    ],
)
def test_a_tensor_like_another_costs_what_that_one_did(
    check_source: Callable[..., Report], weight: str, like: str, severity: str
) -> None:
    found = check_source(CASE.format(weight=weight, like=like)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL001", severity)]

"""A factory whose local is bound on several branches (``out = layer`` on one, ``out =
nn.Linear(...)`` on another, then ``out.weight = layer``) is followed from each binding: the
part its build makes and the branch replaces is thrown away there (IL005, possibly)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, v, d):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(v, d))


def make(layer, v, d):
    if isinstance(layer, nn.Module):
        out = layer
    elif torch.is_tensor(layer):
        out = Table(v, d)
        {after}
    else:
        out = Table(v, d)
    return out


class Model(nn.Module):
    def __init__(self, v, d, layer=None):
        super().__init__()
        self.out = make(layer, v, d)
"""


@pytest.mark.parametrize(
    ("after", "found"),
    [
        ("out.weight = nn.Parameter(layer)", ["possible"]),
        # the object is used before its part is replaced
        ("out.scale = float(out.weight.sum())\n        out.weight = nn.Parameter(layer)", []),
        ("pass", []),
    ],
)
def test_a_part_replaced_on_one_branch_of_a_factory(
    check_source: Callable[..., Report], after: str, found: list[str]
) -> None:
    diags = check_source(CASE.format(after=after)).diagnostics
    assert [(d.code, d.confidence) for d in diags] == [("IL005", c) for c in found]

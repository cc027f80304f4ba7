"""A project function that builds an object, fills a tensor of it and returns it
(``def linear(i, o): m = nn.Linear(i, o); nn.init.xavier_uniform_(m.weight); return m``)
makes part of that object's construction: a class that stores the object and fills the
tensor again before anything reads it throws the function's fill away (IL005). Only a fill
the function makes whole, last and on every path before returning the object counts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
from torch import nn


def linear(i, o):
    m = nn.Linear(i, o)
{body}


class Model(nn.Module):
    def __init__(self, d, flag=False):
        super().__init__()
        self.fc = linear(d, d)
        nn.init.orthogonal_(self.fc.weight)
"""


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("    nn.init.xavier_uniform_(m.weight)\n    return m", 1),
        ("    m.weight.data.normal_(0, 0.02)\n    return m", 1),
        # a fill of the bias only: the weight is torch's own default
        ("    nn.init.zeros_(m.bias)\n    return m", 0),
        # filled on some paths only
        ("    if i > 4:\n        nn.init.xavier_uniform_(m.weight)\n    return m", 0),
        # read after the fill
        ("    nn.init.xavier_uniform_(m.weight)\n    m.s = float(m.weight.sum())\n    return m", 0),
        # another object returned
        ("    nn.init.xavier_uniform_(m.weight)\n    m = nn.Linear(i, o)\n    return m", 0),
        ("    nn.init.xavier_uniform_(m.weight)\n    return nn.Sequential(m)", 0),
        # the filled tensor replaced in the factory: that fill is lost there, not here
        (
            "    nn.init.xavier_uniform_(m.weight)\n    m.weight = nn.Parameter(torch.eye(o, i))\n"
            "    return m",
            0,
        ),
        (
            "    nn.init.xavier_uniform_(m.weight)\n    m.weight.data = torch.eye(o, i)\n"
            "    return m",
            0,
        ),
        # a part of the tensor filled only
        ("    with torch.no_grad():\n        m.weight[0].zero_()\n    return m", 0),
        # returned on some paths only
        (
            "    nn.init.xavier_uniform_(m.weight)\n    if o > i:\n        return None\n"
            "    return m",
            0,
        ),
    ],
)
def test_a_fill_the_factory_made_is_thrown_away_by_a_later_one(
    check_source: Callable[..., Report], body: str, found: int
) -> None:
    diags = check_source(CASE.format(body=body)).diagnostics
    assert [d.code for d in diags] == ["IL005"] * found
    text = CASE.format(body=body).splitlines()
    for d in diags:
        assert "orthogonal_" in text[d.line - 1] and "by m.linear at m.py:" in d.message
        assert d.no_fix is not None and "`linear()` fills it as it builds the object" in d.no_fix

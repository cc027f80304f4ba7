"""A function that ``self.apply`` runs may fill through a function it defines (``def
normal_(data): data.copy_(data.cpu().normal_(std=0.02).to(data.device))``): a call of one
that does nothing but fill its one argument whole, from none of its numbers, is that fill of
what it is given, so a pass written so throws away a fill made before it as one written
with torch's own functions does."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import pytest

from initlint.api import Report
from initlint.facts.passes import fill_helpers

SOURCE = """
import torch
from torch import nn


def init_params(module):
    def normal_(data):
{helper}

    if isinstance(module, nn.Linear):
        normal_(module.weight.data)


class Encoder(nn.Module):
    def __init__(self, dim, vocab):
        super().__init__()
        self.proj = nn.Linear(dim, vocab)
        nn.init.normal_(self.proj.weight, std=dim**-0.5)
        self.apply(init_params)
"""

FILLS = [
    "data.copy_(data.cpu().normal_(mean=0.0, std=0.02).to(data.device))",
    "data.normal_(mean=0.0, std=0.02)",
    "data.copy_(torch.randn(data.shape) * 0.02)",
    "data.data.uniform_(-0.1, 0.1)",
]
NOT_FILLS = [
    # its numbers read: the earlier fill is used
    "data.copy_(data * 0.5)",
    "data.copy_(data.cpu().mul(2).to(data.device))",
    # more than one statement, or a part of what it is given
    "data.normal_()\n        data.mul_(0.5)",
    "data[0].normal_()",
    # a fill whose arguments read the numbers, or what the visitor holds
    "data.copy_(data.cpu().normal_(data.mean().item(), 0.02))",
    "data.copy_(module.weight.data * 0.5)",
]


@pytest.mark.parametrize("helper", FILLS)
def test_a_fill_through_a_helper_is_a_fill(
    check_source: Callable[..., Report], helper: str
) -> None:
    found = check_source(SOURCE.format(helper="        " + helper)).diagnostics
    assert [(d.code, d.line) for d in found] == [("IL005", 19)]


@pytest.mark.parametrize("helper", NOT_FILLS)
def test_a_helper_that_reads_what_it_fills_is_no_fill(
    check_source: Callable[..., Report], helper: str
) -> None:
    assert check_source(SOURCE.format(helper="        " + helper)).diagnostics == ()


def test_which_functions_are_fill_helpers() -> None:
    visitor = ast.parse(
        textwrap.dedent(
            """
            def init(module):
                def normal_(data):
                    data.copy_(data.cpu().normal_(std=0.02).to(data.device))
                def zero(t):
                    t.data.zero_()
                def scaled(t, s):
                    t.normal_(std=s)
                def twice(t):
                    t.normal_()
                    t.normal_()
                def centred(t):
                    t.copy_(t.cpu().normal_(t.mean().item(), 0.02))
                def borrowed(t):
                    t.copy_(module.weight.data[:, 0])
                def drawn(t):
                    t.bernoulli_(t.sigmoid())
                def again(t):
                    t.normal_()
                again = None
                if module is None:
                    def maybe(t):
                        t.zero_()
                def maybe(t):
                    t.normal_()
            """
        )
    ).body[0]
    assert isinstance(visitor, ast.FunctionDef)
    assert fill_helpers(visitor) == {"normal_": "normal_", "zero": "zero_"}


def test_the_copy_a_fill_overwrites_holds_none_of_the_old_numbers() -> None:
    torch = pytest.importorskip("torch")
    data = torch.full((4, 4), 7.0)
    torch.manual_seed(0)
    data.copy_(data.cpu().normal_(mean=0.0, std=0.02).to(data.device))
    torch.manual_seed(0)
    fresh = torch.empty(4, 4).normal_(mean=0.0, std=0.02)
    assert torch.equal(data, fresh)

"""A class built by a call costs what its ``__init__`` does with the parameters the call
leaves out at their defaults: ``conv_block=None``, then ``if conv_block is None:
conv_block = BasicConv2d``, builds a ``BasicConv2d``, and work under a test those defaults
rule out is not done. A parameter the call gives, or a ``**`` pack that may give any, stays
unknown. An item of a list of classes picked by a written-out index is that item."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class BasicConv2d(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3)


class Block(nn.Module):
    def __init__(self, c, conv_block=None):
        super().__init__()
        if conv_block is None:
            conv_block = BasicConv2d
        self.body = conv_block(c, c)
        self.act = nn.GELU()


class Light(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.act = nn.GELU()


class Net(nn.Module):
    def __init__(self, given, kw, blocks=None):
        super().__init__()
        if blocks is None:
            blocks = [Block, Light]
        first = blocks[{index}]
        self.b1 = {call}


class Sub(Net):
    def __init__(self, given, kw):
        super().__init__(given, kw)
        self.b1 = Block(64)
"""


@pytest.mark.parametrize(
    ("index", "call", "severity"),
    [
        ("0", "Block(64)", "error"),  # (conv_block left None: a BasicConv2d is built)
        ("0", "Block(64, conv_block=given)", "warning"),  # (what it was given: not known)
        ("0", "Block(64, given)", "warning"),  # (given by position)
        ("0", "Block(64, **kw)", "warning"),  # (a pack may give it)
        ("0", "first(64)", "error"),  # (item 0 of the list: a Block)
        ("1", "first(64)", "warning"),  # (item 1: a Light, parameterless)
    ],
)
def test_a_build_takes_the_defaults_its_call_leaves(
    check_source: Callable[..., Report], index: str, call: str, severity: str
) -> None:
    report = check_source(CASE.format(index=index, call=call))
    found = [(d.code, d.severity) for d in report.diagnostics]
    assert found == [("IL003", severity)]


WIDE = """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, c, wide=False):
        super().__init__()
        self.act = nn.GELU()
        if wide:
            self.extra = nn.Linear(c, 4 * c)


class Net(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.head = {first}


class Sub(Net):
    def __init__(self, c):
        super().__init__(c)
        self.head = Head(c, wide=True)
"""


@pytest.mark.parametrize(
    ("first", "severity"),
    [
        ("Head(c)", "warning"),  # (``wide`` left False: only a GELU is built)
        ("Head(c, wide=True)", "error"),  # (a Linear too)
    ],
)
def test_work_the_defaults_rule_out_is_not_counted(
    check_source: Callable[..., Report], first: str, severity: str
) -> None:
    report = check_source(WIDE.format(first=first))
    found = [(d.code, d.severity) for d in report.diagnostics]
    assert found == [("IL003", severity)]

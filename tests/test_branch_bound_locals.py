"""A local bound on each branch to an object built there (``proj = Lin(...)`` under ``if``
and under ``else``), a part of one of them replaced before any use: that part's build is
thrown away on that branch (IL005, possibly); each binding is followed from where it is
made, and a use of one does not count for the other."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Lin(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i))


class Enc(nn.Module):
    def __init__(self, vocab, d, share):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        if share:
            proj = Lin(d, vocab)
            {first}
        else:
            proj = Lin(d, vocab)
            {second}
        self.proj = proj
"""

REPLACED = "proj.weight = self.embed.weight"
READ = "n = proj.weight.sum()"


@pytest.mark.parametrize(
    ("first", "second", "lines"),
    [
        (REPLACED, "pass", [18]),
        ("pass", REPLACED, [21]),
        # the object read first: its part is used
        (READ + "; " + REPLACED, "pass", []),
        # a read on the other branch does not keep this one's part
        (REPLACED, READ, [18]),
    ],
)
def test_a_part_replaced_on_one_branch(
    check_source: Callable[..., Report], first: str, second: str, lines: list[int]
) -> None:
    found = check_source(SOURCE.format(first=first, second=second)).diagnostics
    assert [(d.code, d.line) for d in found] == [("IL005", n) for n in lines]
    for d in found:
        assert "`proj.weight`" in d.message and "possibly replaced" in d.message


PARTS = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.features = nn.Linear(d, d)
        self.fc = nn.Linear(d, 4 * d)


class Other(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.features = nn.Linear(d, d)
        self.fc = nn.Linear(d, 8 * d)


def make():
    net = Net()
    return net


class Encoder(nn.Module):
    def __init__(self, fid=True):
        super().__init__()
        {bind}
        self.body = nn.Sequential(net.features)
        {after}
"""

BRANCHES = "if fid:\n            net = make()\n        else:\n            net = Other()"


@pytest.mark.parametrize(
    ("bind", "after", "lines"),
    [
        # each branch's object keeps only ``features``: its ``fc`` goes with the local
        (BRANCHES, "", [28, 30]),
        # the object is kept whole on every path
        (BRANCHES, "self.net = net", []),
        # one binding over another on some paths only: the first may be kept whole
        ("net = Net()\n        if fid:\n            net = Other()", "", []),
        # the part is replaced, not left: that replacement is the finding (on the latest
        # binding's object)
        (BRANCHES, "net.fc = nn.Identity()", [32]),
    ],
)
def test_objects_built_on_each_branch_kept_in_part(
    check_source: Callable[..., Report], bind: str, after: str, lines: list[int]
) -> None:
    """``if fid: net = make() else: net = Other()`` and only ``net.features`` kept: on
    each branch, the ``fc`` that branch's construction built is thrown away."""
    found = check_source(PARTS.format(bind=bind, after=after)).diagnostics
    assert [(d.code, d.line) for d in found if d.code == "IL005"] == [("IL005", n) for n in lines]
    for d in found:
        assert d.message.startswith("`net.fc`" if after else "`fc` of the object")

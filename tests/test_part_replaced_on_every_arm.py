"""A part of an object replaced on each arm of a branch (``if tie: self.emb.weight = p`` /
``else: self.emb.weight = q``) is replaced on every path the object's build runs: one
finding, definite. A read of the object on one arm before its replacement there is a use:
only the other arm's replacement throws the build away, on its paths alone."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, tie=True, vocab=1000, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        w = torch.empty(vocab, d)
        if tie:
            self.emb.weight = nn.Parameter(w)
        else:
            {other}
"""


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        ("self.emb.weight = nn.Parameter(w.clone())", [(12, "definite")]),
        ("pass", [(12, "possible")]),
        (
            "self.saved = self.emb(torch.zeros(1, dtype=torch.long))\n"
            "            self.emb.weight = nn.Parameter(w.clone())",
            [(12, "possible")],
        ),
    ],
)
def test_a_part_replaced_on_every_arm(
    check_source: Callable[..., Report],
    monkeypatch: pytest.MonkeyPatch,
    other: str,
    expected: list[tuple[int, str]],
) -> None:
    pytest.importorskip("torch")  # (Embedding's weight read from torch's sources)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    found = check_source(SOURCE.format(other=other)).diagnostics
    assert [(d.code, d.line, d.confidence) for d in found] == [
        ("IL005", line, confidence) for line, confidence in expected
    ]


READ_FIRST = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, tie=True, vocab=1000, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        if tie:
            self.saved = self.emb(torch.zeros(1, dtype=torch.long))
            self.emb.weight = nn.Parameter(torch.empty(vocab, d))
"""


def test_a_read_before_the_replacement_inside_the_same_branch_is_a_use(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    assert check_source(READ_FIRST).diagnostics == ()

"""A weight tied into a second module is filled once through each module by a walk over
the modules: checked against construction, the tied tensor reported is the one the code
fills at two lines; a walk over the parameters, or untied weights, fill each tensor once."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, filled_twice  # noqa: E402

SOURCE = """
from torch import nn


def _init(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, std=0.02)


class Tied(nn.Module):
    def __init__(self, vocab=16, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        self.apply(_init)


class ByParameters(nn.Module):
    def __init__(self, vocab=16, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        for p in self.parameters():
            nn.init.normal_(p, std=0.02)


class Untied(nn.Module):
    def __init__(self, vocab=16, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.apply(_init)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("tied_fills", SOURCE)


def test_the_tied_tensor_reported_is_the_one_filled_twice(module: Path) -> None:
    found = {
        d.class_name.rsplit(".", 1)[-1]
        for d in diagnostics(module)
        if "reaches it through both modules" in d.message
    }
    assert found == {"Tied"}
    m = importlib.import_module("tied_fills")
    path = str(module / "tied_fills.py")
    assert filled_twice(m.Tied, path) == {"embed.weight"}
    assert filled_twice(m.ByParameters, path, same_line=True) == set()
    assert filled_twice(m.Untied, path, same_line=True) == set()

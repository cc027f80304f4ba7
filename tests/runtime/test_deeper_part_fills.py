"""A whole fill of a tensor of a module a held project module holds
(``nn.init.zeros_(self.block.ada.weight)``) after a pass over the object filled it throws
the pass's fill away (IL005), as one of a held module's own tensor (``self.ada.weight``)
does.
Reading the tensor in between uses the pass's numbers: nothing is claimed. Checked against
construction: the tensors reported are those filled twice by the module's own lines."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, reported  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.ada = nn.Linear(d, 6 * d)


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


class Held(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.block = Block(d)
        self.apply(init)
        nn.init.zeros_(self.block.ada.weight)


class ReadBetween(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.block = Block(d)
        self.apply(init)
        self.scale = float(self.block.ada.weight.abs().max())
        nn.init.zeros_(self.block.ada.weight)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("deeper_part_fills", SOURCE)


def test_a_deeper_part_filled_after_a_pass(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    assert reported(module) == {
        ("Held", "IL005", "error", "self.block.ada.weight"),
    }
    m = importlib.import_module("deeper_part_fills")
    path = str(module / "deeper_part_fills.py")
    assert filled_twice(m.Held, path) == {"block.ada.weight"}
    assert filled_twice(m.ReadBetween, path) == {"block.ada.weight"}

"""A whole fill of a tensor of a module a held project module holds
(``nn.init.zeros_(self.block.ada.weight)``, also of an item of one by a written-out
number, ``self.t.mlp[0].weight``, or counted from the end where the items are known by
number, ``self.final_layer.adaLN_modulation[-1].weight``) after a pass over the object
filled it throws the pass's fill away (IL005), as one of a held module's own tensor
(``self.ada.weight``) does; a fill of some rows of it (``self.t.mlp[0].weight[0]``) does
not. Reading the tensor in between uses the pass's numbers: nothing is claimed. Checked
against construction: the tensors reported are those filled twice by the module's own
lines."""

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
    def __init__(self, d=512):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.ada = nn.Linear(d, 6 * d)


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


class Held(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.block = Block(d)
        self.apply(init)
        nn.init.zeros_(self.block.ada.weight)


class Embedder(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))


class Numbered(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.t = Embedder(d)
        self.apply(init)
        nn.init.normal_(self.t.mlp[0].weight, std=0.02)
        nn.init.normal_(self.t.mlp[2].weight, std=0.02)


class Rows(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.t = Embedder(d)
        self.apply(init)
        nn.init.normal_(self.t.mlp[0].weight[0], std=0.02)


class Final(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.linear = nn.Linear(d, d)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))


class FromEnd(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.final_layer = Final(d)
        self.head = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))
        self.apply(init)
        nn.init.constant_(self.final_layer.adaLN_modulation[-1].weight, 0)
        nn.init.constant_(self.head[-1].weight, 0)


class UnsizedEnd(nn.Module):
    def __init__(self, d=512, extra=()):
        super().__init__()
        self.head = nn.Sequential(*extra, nn.Linear(d, d))
        self.apply(init)
        nn.init.constant_(self.head[-1].weight, 0)


class ReadBetween(nn.Module):
    def __init__(self, d=512):
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
        ("Numbered", "IL005", "error", "self.t.mlp.0.weight"),
        ("Numbered", "IL005", "error", "self.t.mlp.2.weight"),
        ("FromEnd", "IL005", "error", "self.final_layer.adaLN_modulation.1.weight"),
        ("FromEnd", "IL005", "error", "self.head.2.weight"),
    }
    m = importlib.import_module("deeper_part_fills")
    path = str(module / "deeper_part_fills.py")
    assert filled_twice(m.Held, path) == {"block.ada.weight"}
    assert filled_twice(m.Numbered, path) == {"t.mlp.0.weight", "t.mlp.2.weight"}
    # (``Rows`` fills one row again: not reported; the tracer, which sees fills of a
    # tensor's storage, counts it as a second fill of the whole)
    assert filled_twice(m.FromEnd, path) == {
        "final_layer.adaLN_modulation.1.weight",
        "head.2.weight",
    }
    # (the last item of a container of a number of items not known here: not claimed)
    assert filled_twice(m.UnsizedEnd, path) == {"head.0.weight"}
    assert filled_twice(m.ReadBetween, path) == {"block.ada.weight"}

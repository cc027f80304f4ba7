"""``nn.ModuleDict`` holds each module of a dict written out under its key, as
``nn.ModuleList`` holds its items by number: a pass over the object reaches the project
modules in it, containers within containers too, so a second pass that fills again what
the first filled (GPT-2's scaled init of the residual projections, after ``self.apply``)
throws the first fill away (IL005). Checked against construction: the tensors reported
are those the module's own lines filled twice."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, reported  # noqa: E402

SOURCE = """
import math

import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = Attn(d)


class Base(nn.Module):
    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)


class Literal(Base):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.transformer = nn.ModuleDict(
            {"wte": nn.Embedding(32, d), "layers": nn.ModuleList([Block(d) for _ in range(n)])}
        )
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n))


class Called(Base):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.transformer = nn.ModuleDict(
            dict(wte=nn.Embedding(32, d), layers=nn.ModuleList([Block(d) for _ in range(n)]))
        )
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n))


class Other(Base):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.transformer = nn.ModuleDict({"layers": nn.ModuleList([Block(d) for _ in range(n)])})
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.bias"):
                torch.nn.init.zeros_(p)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("keyed_fills", SOURCE)


def test_a_module_dict_holds_its_modules_under_their_keys(module: Path) -> None:
    found = reported(module)
    scaled = "self.transformer.layers.*.attn.c_proj.weight"
    assert found == {("Literal", "IL005", "error", scaled), ("Called", "IL005", "error", scaled)}
    m = importlib.import_module("keyed_fills")
    path = str(module / "keyed_fills.py")
    twice = {"transformer.layers.*.attn.c_proj.weight"}
    assert filled_twice(m.Literal, path) == twice
    assert filled_twice(m.Called, path) == twice
    # (the bias the second pass fills is one the first left at torch's default)
    assert filled_twice(m.Other, path) == set()

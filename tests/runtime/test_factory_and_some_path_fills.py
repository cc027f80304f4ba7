"""Fills thrown away that a held object's making did outside its class's ``__init__``: in the
project function that built and returned it (``def linear(i, o): m = nn.Linear(i, o);
nn.init.xavier_uniform_(m.weight); return m``), filled again by the class; and in a held
model's own construction whose tensors are read on some paths only (``if
config.pruned_heads: self.prune_heads(...)``), filled again by the holder's pass. Checked
against construction: the tensors reported are those the module's code filled twice."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, filled_twice  # noqa: E402

SOURCE = """
import torch
from torch import nn


def linear(i, o, bias=True):
    m = nn.Linear(i, o, bias)
    nn.init.xavier_uniform_(m.weight)
    if bias:
        nn.init.zeros_(m.bias)
    return m


def read_linear(i, o):
    m = nn.Linear(i, o)
    nn.init.xavier_uniform_(m.weight)
    m.scale = float(m.weight.abs().max())
    return m


def _normal(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)


class Refilled(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc = linear(d, d)
        nn.init.orthogonal_(self.fc.weight)


class Applied(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc = linear(d, d)
        self.apply(_normal)


class ReadInFactory(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc = read_linear(d, d)
        nn.init.orthogonal_(self.fc.weight)


class Config:
    def __init__(self, pruned_heads=None):
        self.hidden = 8
        self.pruned_heads = pruned_heads or {}


class Pretrained(nn.Module):
    prefix = "body"

    def __init__(self, config):
        super().__init__()
        self.config = config

    def init_weights(self):
        self.apply(_normal)
        if self.config.pruned_heads:
            self.prune_heads(self.config.pruned_heads)

    def prune_heads(self, heads):
        base = getattr(self, self.prefix, self)
        base.prune(heads)


class Body(Pretrained):
    def __init__(self, config):
        super().__init__(config)
        self.enc = nn.Linear(config.hidden, config.hidden)
        self.init_weights()

    def prune(self, heads):
        with torch.no_grad():
            self.enc.weight.mul_(2.0)


class Head(Pretrained):
    def __init__(self, config):
        super().__init__(config)
        self.body = Body(config)
        self.cls = nn.Linear(config.hidden, 2)
        self.init_weights()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("factory_fills", SOURCE)


def test_fills_a_factory_made_are_thrown_away_by_the_class_filling_again(module: Path) -> None:
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.confidence)
        for d in diagnostics(module)
        if d.class_name.rsplit(".", 1)[-1] in ("Refilled", "Applied", "ReadInFactory")
    }
    assert found == {
        ("Refilled", "IL005", "error", "definite"),
        ("Applied", "IL005", "error", "definite"),
    }
    m = importlib.import_module("factory_fills")
    path = str(module / "factory_fills.py")
    assert filled_twice(m.Refilled, path) == {"fc.weight"}
    assert filled_twice(m.Applied, path) == {"fc.weight"}
    # (the factory's bias fill runs under its argument's test: not claimed, and not
    # filled again)
    # (ReadInFactory fills at two lines too, but reads the first fill's numbers between)


def test_fills_read_on_some_paths_are_thrown_away_on_the_others(module: Path) -> None:
    heads = [d for d in diagnostics(module) if d.class_name.endswith(".Pretrained")]
    assert [(d.code, d.severity, d.confidence) for d in heads] == [("IL005", "error", "possible")]
    assert "`self.body.enc.weight`" in heads[0].message and "in Head" in heads[0].message
    m = importlib.import_module("factory_fills")
    path = str(module / "factory_fills.py")
    # (the holder's pass and the held model's run at one line: ``init_weights``)
    assert filled_twice(lambda: m.Head(m.Config()), path, same_line=True) >= {"body.enc.weight"}

"""A pass over the object (``self.apply(init)``) fills again what a project module it holds
filled in its own construction, at any depth: a block's fill inside a stack inside the
model (``layers.*.mixer.proj.weight``) is thrown away (IL005), unless the module between
them read or filled that module after building it. Checked against construction: the
tensors reported are those filled twice by the module's own lines."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.gate = nn.Linear(d, d)
        nn.init.normal_(self.proj.weight, std=0.1)


class Block(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.mixer = Mixer(d)
        self.norm = nn.LayerNorm(d)


class Stack(nn.Module):
    def __init__(self, n=2, d=512):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])


class Model(nn.Module):
    def __init__(self, n=2, d=512):
        super().__init__()
        self.body = Stack(n, d)
        self.apply(init)


class ReadStack(nn.Module):
    def __init__(self, n=2, d=512):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])
        self.scale = float(self.layers[0].mixer.proj.weight.detach().norm())


class ReadModel(nn.Module):
    def __init__(self, n=2, d=512):
        super().__init__()
        self.body = ReadStack(n, d)
        self.apply(init)


def init(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("deep_own_fills", SOURCE)


def test_a_deep_fill_a_pass_fills_again(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = [(d.class_name.rsplit(".", 1)[-1], d.line, d.severity) for d in report.diagnostics]
    assert found == [("Model", 31, "error")]
    message = report.diagnostics[0].message
    assert message.startswith("the initialisation of `self.body.layers.*.mixer.proj.weight`")
    m = importlib.import_module("deep_own_fills")
    path = str(module / "deep_own_fills.py")
    assert filled_twice(m.Model, path) == {"body.layers.*.mixer.proj.weight"}
    # (read between the two fills: the first is used; the runtime fills it twice all the same)
    assert filled_twice(m.ReadModel, path) == {"body.layers.*.mixer.proj.weight"}

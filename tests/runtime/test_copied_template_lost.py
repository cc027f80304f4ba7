"""A template handed to a class that keeps only deep copies of it: IL005's finding against
what constructing the class registers and does not keep, for a project class shaped as
torch's ``nn.TransformerEncoder`` and for torch's own."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import copy

import torch.nn as nn


def _get_clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for i in range(n)])


class Layer(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = nn.Linear(d, 3 * d)


class Encoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = _get_clones(layer, n)
        self.fast = True
        if layer.attn.in_features % 2:
            self.fast = False


class Model(nn.Module):
    def __init__(self, d=512, n=2):
        super().__init__()
        layer = Layer(d)
        self.enc = Encoder(layer, n)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("copied_template", SOURCE)


def test_a_template_only_copied_is_lost(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    (found,) = report.diagnostics
    assert found.code == "IL005"
    assert "`attn` of the object `Layer(...)`, which Encoder only copies" in found.message
    m = importlib.import_module("copied_template")
    # the template's own weight is registered and not held: the copies are
    assert lost(m.Model) == {("weight", (1536, 512)), ("bias", (1536,))}
    # torch's encoder does the same with its template layer
    layer_lost = lost(
        lambda: torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False
        )
    )
    assert ("in_proj_weight", (24, 8)) in layer_lost
    assert ("weight", (16, 8)) in layer_lost  # (linear1)

"""An object built only to be handed to a class that keeps deep copies of it
(``nn.TransformerEncoder(layer, n)``, which clones ``layer`` ``n`` times) is thrown away
once copied: the template's construction is lost (IL005)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import copy

import torch.nn as nn


def _get_clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for i in range(n)])


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.Linear(d, 3 * d)
        self.norm = nn.LayerNorm(d)


class Encoder(nn.Module):
    def __init__(self, layer, n, norm=None):
        super().__init__()
        self.layers = {keeps}
        self.n = n
        if not isinstance(layer, Layer):
            self.fast = False
        elif layer.norm.eps > 1e-3:
            self.fast = False


class Model(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        {build}
"""


@pytest.mark.parametrize(
    ("keeps", "build", "expected"),
    [
        ("_get_clones(layer, n)", "layer = Layer(d)\n        self.enc = Encoder(layer, n)", 1),
        ("_get_clones(layer, n)", "self.enc = Encoder(Layer(d), n)", 1),
        ("copy.deepcopy(layer)", "self.enc = Encoder(Layer(d), n)", 1),
        # the template is used again after: kept
        (
            "_get_clones(layer, n)",
            "layer = Layer(d)\n        self.enc = Encoder(layer, n)\n        self.first = layer",
            0,
        ),
        # the class keeps the object itself
        ("nn.ModuleList([layer])", "self.enc = Encoder(Layer(d), n)", 0),
        # it runs a method of the object: it uses it
        (
            "_get_clones(layer, n)\n        layer.reset_parameters()",
            "self.enc = Encoder(Layer(d), n)",
            0,
        ),
    ],
)
def test_a_template_only_copied_is_thrown_away(
    check_source: Callable[..., Report], keeps: str, build: str, expected: int
) -> None:
    found = check_source(CASE.format(keeps=keeps, build=build)).diagnostics
    assert [d.code for d in found] == ["IL005"] * expected
    for d in found:
        assert "`attn` of the object `Layer(...)`, which Encoder only copies" in d.message
        assert d.severity == "error"

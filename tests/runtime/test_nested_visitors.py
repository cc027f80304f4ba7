"""A function defined in the method that runs it, ``def _basic_init(m): ...`` then
``self.apply(_basic_init)``, is the visitor ``apply`` runs, as a method or a module's
function is: a fill after the pass (``nn.init.zeros_(self.ada.weight)``, or a loop over the
blocks zeroing each block's modulation weight, as diffusion transformers do) throws the
pass's fill away (IL005). A nested function that reads the numbers it fills, or a name
bound again, is no visitor: nothing is claimed. Checked against construction: the tensors
reported are those filled twice by the module's own lines. A module's item taken from the
end by number (``block.adaLN_modulation[-1].weight``) is the item its construction keyed
so, where the container's items are known by number."""

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


class DiT(nn.Module):
    def __init__(self, d=512, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)

        self.apply(_basic_init)
        for block in self.blocks:
            nn.init.constant_(block.ada.weight, 0)


class Modulated(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d))


class Unsized(nn.Module):
    def __init__(self, d=512, layers=()):
        super().__init__()
        self.adaLN_modulation = nn.Sequential(*layers, nn.Linear(d, 6 * d))


class DiTLast(nn.Module):
    def __init__(self, d=512, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Modulated(d) for _ in range(depth)])

        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)

        self.apply(_basic_init)
        for block in self.blocks:
            nn.init.constant_(block.adaLN_modulation[-1].weight, 0)


class UnsizedLast(nn.Module):
    def __init__(self, d=512, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Unsized(d) for _ in range(depth)])

        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)

        self.apply(_basic_init)
        for block in self.blocks:
            nn.init.constant_(block.adaLN_modulation[-1].weight, 0)


class Flat(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.ada = nn.Linear(d, 6 * d)

        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)

        self.apply(init)
        nn.init.zeros_(self.ada.weight)


class Reads(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.ada = nn.Linear(d, 6 * d)
        self.total = []

        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                self.total.append(m.weight.sum())

        self.apply(init)
        nn.init.zeros_(self.ada.weight)


class BoundAgain(nn.Module):
    def __init__(self, d=512, plain=False):
        super().__init__()
        self.ada = nn.Linear(d, 6 * d)

        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)

        if plain:
            init = print
        self.apply(init)
        nn.init.zeros_(self.ada.weight)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("nested_visitors", SOURCE)


def test_a_nested_visitor_is_what_apply_runs(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    assert reported(module) == {
        ("DiT", "IL005", "error", "self.blocks.*.ada.weight"),
        ("DiTLast", "IL005", "error", "self.blocks.*.adaLN_modulation.1.weight"),
        ("Flat", "IL005", "error", "self.ada.weight"),
    }
    m = importlib.import_module("nested_visitors")
    path = str(module / "nested_visitors.py")
    assert filled_twice(m.DiT, path) == {"blocks.*.ada.weight"}
    assert filled_twice(m.DiTLast, path) == {"blocks.*.adaLN_modulation.1.weight"}
    # (the last item of a container of a number of items not known here: not claimed)
    assert filled_twice(m.UnsizedLast, path) == {"blocks.*.adaLN_modulation.0.weight"}
    assert filled_twice(m.Flat, path) == {"ada.weight"}

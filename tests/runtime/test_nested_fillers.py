"""A function defined in the method, that does nothing but fill parts of the module it is
handed (``def _constant_init(module, i): ...``), called with a module of each item of a
loop over held blocks after a pass over the object (``for block in self.blocks:
_constant_init(block.adaLN_modulation[-1], 0)``), fills what the pass filled: the pass's
fills are thrown away (IL005), as when the loop fills them itself. Its tests of the module
it is handed (``isinstance(module, nn.Linear)``, ``module.bias is not None``) are decided
for the module the item holds; one that fails (``nn.Conv2d``) fills nothing. Called outside
a loop, a filler that tests what it is handed is not claimed (its test stays undecided
there); one that tests nothing is. Checked against construction: the tensors reported are
those filled twice by the module's own lines."""

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
    def __init__(self, d=256):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d))


class Zeroed(nn.Module):
    def __init__(self, d=256, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.final = Block(d)
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.constant_(module.bias, 0)

        def _constant_init(module, i):
            if isinstance(module, nn.Linear):
                nn.init.constant_(module.weight, i)
                if module.bias is not None:
                    nn.init.constant_(module.bias, i)

        self.apply(_basic_init)
        for block in self.blocks:
            _constant_init(block.adaLN_modulation[-1], 0)
        _constant_init(self.final.adaLN_modulation[-1], 0)


class OtherKind(nn.Module):
    def __init__(self, d=256, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)

        def _conv_init(module):
            if isinstance(module, nn.Conv2d):
                nn.init.zeros_(module.weight)

        self.apply(_basic_init)
        for block in self.blocks:
            _conv_init(block.adaLN_modulation[-1])


class Untested(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.final = Block(d)
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)

        def _zero(module):
            nn.init.zeros_(module.weight)

        self.apply(_basic_init)
        _zero(self.final.adaLN_modulation[-1])
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("nested_fillers", SOURCE)


def test_a_nested_filler_over_held_blocks(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    assert reported(module) == {
        ("Zeroed", "IL005", "error", "self.blocks.*.adaLN_modulation.1.weight"),
        ("Untested", "IL005", "error", "self.final.adaLN_modulation.1.weight"),
    }
    m = importlib.import_module("nested_fillers")
    path = str(module / "nested_fillers.py")
    # (the final block's pair, filled by a call outside the loop, is not claimed)
    assert filled_twice(m.Zeroed, path) == {
        "blocks.*.adaLN_modulation.1.weight",
        "blocks.*.adaLN_modulation.1.bias",
        "final.adaLN_modulation.1.weight",
        "final.adaLN_modulation.1.bias",
    }
    assert filled_twice(m.OtherKind, path) == set()
    assert filled_twice(m.Untested, path) == {"final.adaLN_modulation.1.weight"}

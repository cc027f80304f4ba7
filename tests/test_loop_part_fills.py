"""A loop over the items of a container the object holds (``for block in self.blocks:``,
also ``self.transformer.h``) that fills a part of a module each item holds
(``nn.init.zeros_(block.mlp.proj.weight)``) fills ``blocks.*.mlp.proj.weight``: a fill
of it by an earlier pass is thrown away (IL005)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = MLP(d)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.transformer = nn.ModuleDict({{"h": nn.ModuleList([Block(d) for _ in range(n)])}})
        self.apply(self._init_weights)
        for block in self.{walked}:
            {loop}

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
"""


@pytest.mark.parametrize(
    ("walked", "loop", "expected"),
    [
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.weight)", "self.blocks.*.mlp.proj.weight"),
        (
            "transformer.h",
            "block.mlp.proj.weight.data.normal_(0.0, 0.01)",
            "self.transformer.h.*.mlp.proj.weight",
        ),
        # a part the pass did not fill, a test of the item, a slice: nothing claimed
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.bias)", ""),
        (
            "blocks",
            "if isinstance(block, Block):\n"
            "                torch.nn.init.zeros_(block.mlp.proj.weight)",
            "",
        ),
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.weight[0])", ""),
    ],
)
def test_a_loop_over_held_items_fills_a_part_each_holds(
    check_source: Callable[..., Report], walked: str, loop: str, expected: str
) -> None:
    found = check_source(CASE.format(walked=walked, loop=loop)).diagnostics
    assert [d.message.split("`")[1] for d in found if d.code == "IL005"] == (
        [expected] if expected else []
    )

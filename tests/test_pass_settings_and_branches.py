"""Two passes over the object's tensors (``self.apply(self._init_weights)``, then a loop
over ``self.named_parameters()`` that fills the output projections again, the nanoGPT
idiom): the first pass's fill of those tensors is thrown away (IL005), also when a fill
reads the object's settings (``std=self.config.base_std``, a number, no tensor) and when
the module holding them is built on one branch of several (each branch's module is
covered on its paths: "possibly")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import math

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.in_proj = nn.Linear(d, 2 * d)
        self.out_proj = nn.Linear(2 * d, d)


class Stack(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])


class LM(nn.Module):
    def __init__(self, d, n, cfg, kind):
        super().__init__()
        self.config = cfg
        {build}
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("out_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std={std} / math.sqrt(2 * n))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std={std})
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
"""

ON_EVERY_PATH = "self.body = Stack(d, n)"
ON_BRANCHES = """if kind == "a":
            self.body = Stack(d, n)
        elif kind == "b":
            self.body = Stack(d, 2 * n)
        else:
            raise ValueError(kind)"""


@pytest.mark.parametrize(
    ("build", "std", "possibly"),
    [
        (ON_EVERY_PATH, "0.02", False),
        (ON_EVERY_PATH, "self.config.base_std", False),  # (a setting read: no tensor)
        (ON_BRANCHES, "0.02", True),
        (ON_BRANCHES, "self.config.base_std", True),
    ],
)
def test_a_second_pass_throws_the_first_passs_fill_away(
    check_source: Callable[..., Report], build: str, std: str, possibly: bool
) -> None:
    report = check_source(CASE.format(build=build, std=std))
    found = [(d.code, d.severity, "possibly" in d.message) for d in report.diagnostics]
    assert found == [("IL005", "error", possibly)]
    assert "self.body.layers.*.out_proj.weight" in report.diagnostics[0].message

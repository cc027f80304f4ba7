"""A local module's fill is the fill of the part it becomes (``fc1`` filled, then held in
``self.fwd = nn.Sequential(fc1, ...)``); a pass over the owner after it overwrites those
numbers (IL005). Checked against the numbers the constructed object ends with."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402

SOURCE = """
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d=8, h=16, drop=0.0):
        super().__init__()
        fc1 = nn.Conv2d(d, h, 1)
        nn.init.constant_(fc1.weight, 0.5)
        fc2 = nn.Conv2d(h, d, 1)
        if drop > 0.0:
            self.fwd = nn.Sequential(fc1, nn.ReLU(), nn.Dropout2d(drop), fc2)
        else:
            self.fwd = nn.Sequential(fc1, nn.ReLU(), fc2)


class Owner(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.mlp = MLP(d, 2 * d, drop=0.0)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Conv2d):
            nn.init.trunc_normal_(m.weight, std=0.02)


class Keeps(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.mlp = MLP(d, 2 * d)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("carried_fills", SOURCE)


def test_a_pass_over_the_owner_overwrites_a_local_modules_fill(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = [(d.class_name.rpartition(".")[2], d.code) for d in report.diagnostics]
    assert found == [("Owner", "IL005")]
    assert "`self.mlp.fwd.0.weight`" in report.diagnostics[0].message
    m = importlib.import_module("carried_fills")
    torch.manual_seed(0)
    # the constant MLP gave fc1 is gone: the owner's pass drew new numbers over it
    assert not torch.any(m.Owner().mlp.fwd[0].weight == 0.5)
    # a pass that fills no Conv2d keeps it
    assert torch.all(m.Keeps().mlp.fwd[0].weight == 0.5)

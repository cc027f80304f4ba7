"""A pass whose loop skips some modules with ``if <test>: continue`` followed by ``elif``
or ``else`` (``if isinstance(m, nn.Embedding): continue`` / ``elif isinstance(m,
nn.Linear): ...``) fills what its ``elif`` and ``else`` fill, where the skip's test fails,
as it would with the skip alone and the rest after it: a second pass's fill of weights the
first filled throws the first away (IL005). Checked against construction: the tensors
reported are those the module's own lines filled twice."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, reported  # noqa: E402

SOURCE = """
from torch import nn


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


class Chain(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.emb = nn.Embedding(32, d)
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.apply(init)
        self.reset_parameters()

    def reset_parameters(self):
        for m in self.modules():
            if isinstance(m, nn.Embedding):
                continue
            elif isinstance(m, nn.LayerNorm):
                nn.init.constant_(m.weight, 0.1)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.1)


class SkipsLinear(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.emb = nn.Embedding(32, d)
        self.fc = nn.Linear(d, d)
        self.apply(init)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                continue
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, 0, 0.1)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("skip_chains", SOURCE)


def test_an_elif_after_a_skip_runs_where_the_skip_fails(module: Path) -> None:
    found = reported(module)
    assert found == {("Chain", "IL005", "error", "self.fc.weight")}
    m = importlib.import_module("skip_chains")
    path = str(module / "skip_chains.py")
    assert filled_twice(m.Chain, path) == {"fc.weight"}
    assert filled_twice(m.SkipsLinear, path) == set()

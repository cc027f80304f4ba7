"""A part of one item of a held container replaced by number (``self.to_logits[-1].weight
= self.token_emb.weight``, a tied output projection): the weight the item's construction
registered is not held by the object (IL005). Checked against the parameters the
construction registered and the object keeps."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch.nn as nn


class Tied(nn.Module):
    def __init__(self, d=512, n=1000):
        super().__init__()
        self.token_emb = nn.Embedding(n, d)
        self.to_logits = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, n, bias=False))
        self.to_logits[-1].weight = self.token_emb.weight
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("item_part_tied", SOURCE)


def test_a_tied_items_weight_is_lost(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (torch's sources read from the environment the tests run in: what ``nn.Linear``'s
    # construction builds is known from them)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    report = check([module], cwd=module, use_cache=False)
    (found,) = report.diagnostics
    assert (found.code, found.severity) == ("IL005", "error")
    assert found.message.startswith("`self.to_logits.1.weight`")
    m = importlib.import_module("item_part_tied")
    # the (1000, 512) weight the Linear registered is not held: the embedding's is
    assert lost(lambda: m.Tied()) == {("weight", (1000, 512))}

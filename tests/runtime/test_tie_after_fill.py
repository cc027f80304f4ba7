"""A project fill of a tensor (``nn.init.normal_(self.tgt.weight)``) reads nothing of the
module that holds it: when the tensor is replaced next (a tie, ``self.tgt.weight =
self.src.weight``), the build and the fill both go. Checked at runtime: the tensor the
fill drew is not the one the object ends with."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Tied(nn.Module):
    def __init__(self, vocab=4096, dim=256):
        super().__init__()
        self.src = nn.Embedding(vocab, dim)
        self.tgt = nn.Embedding(vocab, dim)
        nn.init.normal_(self.src.weight, std=0.02)
        nn.init.normal_(self.tgt.weight, std=0.02)
        self.tgt.weight = self.src.weight


class Emb(nn.Embedding):
    def init_std(self):
        self.built_norm = float(self.weight.detach().norm())  # (keeps what it read)
        return self.embedding_dim**-0.5


class ReadInFill(nn.Module):
    def __init__(self, vocab=4096, dim=256):
        super().__init__()
        self.src = nn.Embedding(vocab, dim)
        self.tgt = Emb(vocab, dim)
        nn.init.normal_(self.tgt.weight, std=self.tgt.init_std())
        self.tgt.weight = self.src.weight


class UsedFirst(nn.Module):
    def __init__(self, vocab=4096, dim=256):
        super().__init__()
        self.src = nn.Embedding(vocab, dim)
        self.tgt = nn.Embedding(vocab, dim)
        nn.init.normal_(self.tgt.weight, std=0.02)
        self.probe = self.tgt(torch.zeros(1, dtype=torch.long))
        self.tgt.weight = self.src.weight
"""


def test_a_fill_before_a_tie_is_thrown_away_with_the_part(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = source_module("tie_after_fill", SOURCE)
    m = importlib.import_module("tie_after_fill")
    drawn: list[torch.Tensor] = []
    real = torch.nn.init.normal_

    def kept(t: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
        drawn.append(t)
        return real(t, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(torch.nn.init, "normal_", kept)
    obj = m.Tied()
    # (torch's own draw of each embedding, then the two project fills)
    assert len(drawn) == 4 and obj.tgt.weight is obj.src.weight
    assert drawn[3] is drawn[1] and drawn[3] is not obj.tgt.weight  # (tgt's: both gone)
    # (torch's sources read from the environment the tests run in: what ``nn.Embedding``'s
    # construction builds)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    found = check([root], cwd=root, use_cache=False).diagnostics
    lines = SOURCE.splitlines()
    ties = [i + 1 for i, t in enumerate(lines) if t.endswith("self.tgt.weight = self.src.weight")]
    reported = {d.line: d for d in found if d.code == "IL005"}
    assert ties[0] in reported and reported[ties[0]].severity == "error"
    assert "self.tgt.weight" in reported[ties[0]].message
    assert ties[1] not in reported  # (the fill ran a method of the module, which read it)
    assert ties[2] not in reported  # (the module was run before: its weight was read)
    assert m.ReadInFill().tgt.built_norm > 0

"""A held module's tensor handed, as it is, to a constructor that ties it in
(``self.cls = Heads(cfg, self.bert.embeddings.word.weight)``, whose ``__init__`` hands it
on to a layer that stores it and reads only its shape) is no read of its numbers: the
holder's own init pass after it fills again what the held module's construction filled,
and that first fill is thrown away (IL005). A constructor that reads the numbers (a clone
of the tensor) keeps the first fill, and nothing is reported. Checked against
construction: the tensors reported are those the same line filled twice."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, reported  # noqa: E402

SOURCE = """
from torch import nn


class PreTrained(nn.Module):
    def init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)


class Embeddings(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.word = nn.Embedding(vocab, d)


class Encoder(PreTrained):
    def __init__(self, vocab=4096, d=512):
        super().__init__()
        self.embeddings = Embeddings(vocab, d)
        self.pooler = nn.Linear(d, d)
        self.apply(self.init_weights)


class Decoder(nn.Module):
    def __init__(self, d, weight):
        super().__init__()
        self.out = nn.Linear(weight.size(1), weight.size(0), bias=False)
        self.out.weight = weight


class Heads(nn.Module):
    def __init__(self, d, weight):
        super().__init__()
        self.predictions = Decoder(d, weight)


class ClonedHeads(nn.Module):
    def __init__(self, d, weight):
        super().__init__()
        self.out = nn.Linear(weight.size(1), weight.size(0), bias=False)
        self.out.weight = nn.Parameter(weight.detach().clone())


class Tied(PreTrained):
    def __init__(self, vocab=4096, d=512):
        super().__init__()
        self.bert = Encoder(vocab, d)
        self.cls = Heads(d, self.bert.embeddings.word.weight)
        self.apply(self.init_weights)


class Cloned(PreTrained):
    def __init__(self, vocab=4096, d=512):
        super().__init__()
        self.bert = Encoder(vocab, d)
        self.cls = ClonedHeads(d, self.bert.embeddings.word.weight)
        self.apply(self.init_weights)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("tied_reads", SOURCE)


def test_a_weight_tied_in_is_not_a_read_of_its_numbers(module: Path) -> None:
    found = {f for f in reported(module) if f[0] in ("Tied", "Cloned")}
    assert {(cls, code, severity) for cls, code, severity, _ in found} == {
        ("Tied", "IL005", "error")
    }
    m = importlib.import_module("tied_reads")
    path = str(module / "tied_reads.py")
    twice = filled_twice(m.Tied, path, same_line=True)
    assert {"bert.embeddings.word.weight", "bert.pooler.weight"} <= twice

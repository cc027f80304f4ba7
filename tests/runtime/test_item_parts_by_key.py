"""A part of an item stored at a key, replaced at that key before anything read the
container (``self.embeddings[name] = nn.EmbeddingBag(n, n)``, then
``self.embeddings[name].weight = nn.Parameter(...)``), is thrown away (IL005); checked
against construction: the class reported is the one whose construction registered
weights the object no longer holds, but for one that reads the container in between (a
use, by the rule's definition, though the weight is dropped all the same)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
import torch
from torch import nn

SIZES = {"a": 4, "b": 6}


class Keyed(nn.Module):
    def __init__(self, sizes=SIZES):
        super().__init__()
        self.embeddings = nn.ModuleDict()
        for name, size in sizes.items():
            self.embeddings[name] = nn.EmbeddingBag(size, size)
            self.embeddings[name].weight = nn.Parameter(torch.eye(size))


class OtherKeyBetween(nn.Module):
    def __init__(self, sizes=SIZES):
        super().__init__()
        self.embeddings = nn.ModuleDict()
        for name, size in sizes.items():
            self.embeddings[name] = nn.EmbeddingBag(size, size)
            self.embeddings["last"] = nn.Identity()
            self.embeddings[name].weight = nn.Parameter(torch.eye(size))


class Kept(nn.Module):
    def __init__(self, sizes=SIZES):
        super().__init__()
        self.embeddings = nn.ModuleDict()
        for name, size in sizes.items():
            self.embeddings[name] = nn.EmbeddingBag(size, size)
            self.embeddings[name].weight.requires_grad_(False)


class ReadBetween(nn.Module):
    def __init__(self, sizes=SIZES):
        super().__init__()
        self.embeddings = nn.ModuleDict()
        for name, size in sizes.items():
            self.embeddings[name] = nn.EmbeddingBag(size, size)
            self.first = self.embeddings[name]
            self.embeddings[name].weight = nn.Parameter(torch.eye(size))
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("item_parts_by_key", SOURCE)


def test_item_parts_replaced_at_their_key_at_construction(module: Path) -> None:
    part = "self.embeddings[name].weight"
    assert reported(module) == {
        ("Keyed", "IL005", "error", part),
        ("OtherKeyBetween", "IL005", "error", part),
    }
    m = importlib.import_module("item_parts_by_key")
    first = {("weight", (4, 4)), ("weight", (6, 6))}
    assert lost(m.Keyed) == first
    assert lost(m.OtherKeyBetween) == first
    assert lost(m.Kept) == set()
    assert lost(m.ReadBetween) == first

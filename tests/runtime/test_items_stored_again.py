"""An item stored into a held container and stored again at the same key before anything
read the container is thrown away (IL005); checked against construction: the classes
reported are those whose construction registered parameters the object no longer holds,
but for one that reads the container in between (a use, by the rule's definition, though
the item is dropped all the same)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
from torch import nn


class Keyed(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.heads["a"] = nn.Linear(d, 2 * d)


class OtherKey(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.heads["b"] = nn.Linear(d, 2 * d)


class Skipped(nn.Module):
    def __init__(self, kinds=(("x", "pair"), ("y", "full")), d=8):
        super().__init__()
        self.pools = nn.ModuleDict()
        for key, kind in kinds:
            if kind == "pair":
                self.pools[key] = nn.Linear(d, d)
                continue
            self.pools[key] = nn.Linear(d, 2 * d)


class Called(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.add("a", d)
        self.add("b", d)

    def add(self, name, d):
        self.heads[name] = nn.Linear(d, d)


class ReadBetween(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.size = sum(p.numel() for p in self.heads.parameters())
        self.heads["a"] = nn.Linear(d, 2 * d)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("items_stored_again", SOURCE)


def test_items_stored_again_at_construction(module: Path) -> None:
    assert reported(module) == {("Keyed", "IL005", "error", "self.heads['a']")}
    m = importlib.import_module("items_stored_again")
    first = {("weight", (512, 512)), ("bias", (512,))}
    assert lost(m.Keyed) == first
    assert lost(m.OtherKey) == set()
    assert lost(m.Skipped) == set()
    assert lost(m.Called) == set()
    assert lost(m.ReadBetween) == first

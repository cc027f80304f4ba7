"""A local built only to be deep-copied (``layer = Block(d)``, then
``nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])``) is dropped with the frame:
the copies are new objects, and the template's construction is thrown away (IL005), as
when a class keeps only copies of what it is handed. A template also kept, or handed on,
is not reported. Checked against construction: the parameters reported are those the
object registered and no longer holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
import copy
from copy import deepcopy

from torch import nn


class Block(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.fc = nn.Linear(d, d)


class Copied(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        layer = Block(d)
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])


class Twice(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        block = Block(d)
        self.k = deepcopy(block)
        self.v = deepcopy(block)


class KeptToo(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        layer = Block(d)
        self.layers = nn.ModuleList([layer] + [copy.deepcopy(layer) for _ in range(n - 1)])
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("copied_locals", SOURCE)


def test_a_local_only_copied_is_thrown_away(module: Path) -> None:
    found = reported(module)
    assert found == {("Copied", "IL005", "error", "fc"), ("Twice", "IL005", "error", "fc")}
    m = importlib.import_module("copied_locals")
    fc = {("weight", (512, 512)), ("bias", (512,))}
    assert lost(m.Copied) == fc
    assert lost(m.Twice) == fc
    assert lost(m.KeptToo) == set()

"""An object built into a local and moved or cast in place by one of torch's module methods
that return it (``Attn(d).to(dtype)``) is the object the call built: its parts replaced
before use are thrown away (IL005) as they are without the move. Checked against
construction: the parameters reported are those registered and no longer held."""

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


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q_proj = nn.Linear(d, d)
        self.k_proj = nn.Linear(d, d)


class Moved(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.q = nn.Linear(d, d)
        cross = Attn(d).to(dtype=torch.float64).eval()
        cross.q_proj = self.q
        self.cross = cross


class Kept(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        cross = Attn(d).to(dtype=torch.float64)
        self.cross = cross
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("moved_local", SOURCE)


def test_a_moved_local_is_the_object_built(module: Path) -> None:
    assert reported(module) == {("Moved", "IL005", "error", "cross.q_proj")}
    m = importlib.import_module("moved_local")
    assert lost(m.Moved) == {("weight", (512, 512)), ("bias", (512,))}
    assert lost(m.Kept) == set()

"""A tensor the class's own code fills whole twice, nothing reading it in between
(``nn.init.normal_(self.w)`` then ``nn.init.zeros_(self.w)``; also a held module's part,
``self.proj.weight``), throws the first fill away (IL005): possible where the second runs on
some paths only. A read in between (a copy kept), or a second fill of a part only
(``self.w[0].zero_()``), keeps the first. Checked against construction: the tensors
reported are those the module's own lines filled at two lines."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, filled_twice  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Twice(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        nn.init.normal_(self.w)
        nn.init.zeros_(self.w)


class Gated(nn.Module):
    def __init__(self, d=8, gating=True):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        nn.init.normal_(self.w)
        if gating:
            nn.init.zeros_(self.w)


class HeldPart(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)
        nn.init.xavier_uniform_(self.proj.weight)
        nn.init.zeros_(self.proj.weight)


class ReadBetween(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        nn.init.normal_(self.w)
        self.register_buffer("w0", self.w.detach().clone())
        nn.init.zeros_(self.w)


class PartAfter(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        nn.init.normal_(self.w)
        with torch.no_grad():
            self.w[0].zero_()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("own_fills", SOURCE)


def test_a_tensor_the_class_fills_twice_loses_the_first_fill(module: Path) -> None:
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.confidence)
        for d in diagnostics(module)
        if d.class_name.rsplit(".", 1)[-1]
        in ("Twice", "Gated", "HeldPart", "ReadBetween", "PartAfter")
    }
    assert found == {
        ("Twice", "IL005", "definite"),
        ("Gated", "IL005", "possible"),
        ("HeldPart", "IL005", "definite"),
    }
    m = importlib.import_module("own_fills")
    path = str(module / "own_fills.py")
    assert filled_twice(m.Twice, path) == {"w"}
    assert filled_twice(m.Gated, path) == {"w"}
    assert filled_twice(lambda: m.Gated(gating=False), path) == set()
    assert filled_twice(m.HeldPart, path) == {"proj.weight"}
    # (the runtime count cannot tell a part's fill from the whole's, nor a read between:
    # ReadBetween and PartAfter fill at two lines too, and keep the first fill's numbers)

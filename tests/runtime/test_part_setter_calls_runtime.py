"""A call of a function that only gives parts of the object it is handed new values
(``load(self.fc, w, b)``, ``load(layer, w, b)`` in a factory): checked at runtime, the
storage the module's construction made for the weight is gone from the object built, as
many bytes as the finding's severity says, at the call."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import storage_replaced  # noqa: E402

from initlint.api import check  # noqa: E402

MIB = 1 << 20

SOURCE = """
import torch
from torch import nn


def load(layer, weight, bias):
    layer.weight.data = torch.as_tensor(weight)
    if bias is not None:
        layer.bias.data = torch.as_tensor(bias)


class Held(nn.Module):
    def __init__(self, w, b=None):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)
        load(self.fc, w, b)


def make_linear(w, b):
    layer = nn.Linear(1024, 1024)
    load(layer, w, b)
    return layer


class Built(nn.Module):
    def __init__(self, w, b=None):
        super().__init__()
        self.fc = make_linear(w, b)
"""


def test_a_setter_call_throws_away_what_it_replaces(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Linear: what it builds)
    root = source_module("setter_calls", SOURCE)
    m = importlib.import_module("setter_calls")
    w = torch.randn(1024, 1024)
    assert storage_replaced(lambda: m.Held(w)) == 1024 * 1024 * 4 >= MIB
    assert storage_replaced(lambda: m.Built(w)) == 1024 * 1024 * 4
    lines = SOURCE.splitlines()
    calls = [i + 1 for i, t in enumerate(lines) if t.strip().startswith("load(") and "def" not in t]
    found = {
        d.line: (d.code, d.severity) for d in check([root], cwd=root, use_cache=False).diagnostics
    }
    assert found == {line: ("IL005", "error") for line in calls}

"""A local built in one arm of an ``if``, named nowhere else, and only deep-copied there or
only some parts taken: checked at runtime, constructing through that arm drops the
template's weights, or the parts left (lost), the other arm loses nothing, as the finding's
``possible`` says."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import copy
from torch import nn


class Layer(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.fc = nn.Linear(d, d)


class Encoder(nn.Module):
    def __init__(self, fast, n=2):
        super().__init__()
        if fast:
            self.layers = nn.ModuleList([Layer() for _ in range(n)])
        else:
            block = Layer()
            self.layers = nn.ModuleList([copy.deepcopy(block) for _ in range(n)])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.fc = nn.Linear(1024, 1024)


class Harvest(nn.Module):
    def __init__(self, deep):
        super().__init__()
        if deep:
            net = Net()
            self.body = net.body
"""


def test_the_template_of_one_arm_is_lost_when_that_arm_runs(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("copied_in_an_arm", SOURCE)
    m = importlib.import_module("copied_in_an_arm")
    assert ("weight", (1024, 1024)) in lost(lambda: m.Encoder(False))  # (4 MiB)
    assert lost(lambda: m.Encoder(True)) == set()
    assert ("weight", (1024, 1024)) in lost(lambda: m.Harvest(True))  # (``fc``, 4 MiB)
    assert lost(lambda: m.Harvest(False)) == set()
    found = check([root], cwd=root, use_cache=False).diagnostics
    lines = SOURCE.splitlines()
    assert [(d.line, d.code, d.severity, d.confidence) for d in found] == [
        (lines.index("            block = Layer()") + 1, "IL005", "error", "possible"),
        (lines.index("            net = Net()") + 1, "IL005", "error", "possible"),
    ]

"""A name imported on each arm of an ``if`` inside a constructor is one of the classes the
imports name: checked at runtime, replacing a part only one of them builds throws it away
on that arm alone (the finding's ``possible``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

BLOCKS = """
from torch import nn


class Encoder(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.{part} = nn.Linear(n_in, n_hidden)
"""

HEAD = """
from torch import nn


class Head(nn.Module):
    def __init__(self, fast, n_in=1024, n_hidden=1024):
        super().__init__()
        if fast:
            from arm_blocks import Encoder
        else:
            from arm_small import Encoder
        self.encoder = Encoder(n_in, n_hidden)
        self.encoder.fc = nn.Linear(n_in, 2 * n_hidden)
"""


def test_the_part_one_arm_builds_is_lost_on_that_arm(
    source_module: Callable[[str, str], Path],
) -> None:
    source_module("arm_blocks", BLOCKS.format(part="fc"))
    source_module("arm_small", BLOCKS.format(part="proj"))
    root = source_module("arm_head", HEAD)
    m = importlib.import_module("arm_head")
    assert ("weight", (1024, 1024)) in lost(lambda: m.Head(True))  # (4 MiB)
    assert lost(lambda: m.Head(False)) == set()
    found = [
        (d.code, d.severity, d.confidence)
        for d in check([root], cwd=root, use_cache=False).diagnostics
        if d.path.endswith("arm_head.py")
    ]
    assert found == [("IL005", "error", "possible")]

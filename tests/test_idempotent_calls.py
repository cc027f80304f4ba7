"""torch's own move, cast and mode methods are idempotent: ``self.to(device)`` called by the
base and again by the subclass moves only what was built in between, and redoes nothing
(IL002 reports no repeat). A project's own ``to`` may do anything, and stays a repeat."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.register_buffer("table", torch.zeros(64, 64))
        self.to(device)
        self.eval()


class Moved(Base):
    def __init__(self, device="cpu"):
        super().__init__(device)
        self.proj = nn.Linear(64, 64)
        self.to(device)
        self.eval()


class OwnTo(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.to(device)

    def to(self, device):
        self.table = torch.zeros(64, 64, device=device)
        return self


class OwnMoved(OwnTo):
    def __init__(self, device="cpu"):
        super().__init__(device)
        self.to(device)
"""


def test_a_move_again_is_no_repeat(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's ``Module.to`` read from source)
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.code)
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL002"
    }
    assert found == {("OwnMoved", "IL002")}

"""Deleting a subclass's redo of ancestor work is right only where the ancestor's work ran
on every path the redo runs: where the ancestor registers a buffer under a condition the
construction cannot decide, the redo is the only registration on the other paths. Checked at
runtime: after ``initlint fix`` both kinds of construction still end with the buffer."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check, fix  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        if cfg.build:
            self.register_buffer("t", torch.ones(4096, 1024))


class Child(Base):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.register_buffer("t", torch.ones(4096, 1024))


class Always(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.register_buffer("t", torch.ones(4096, 1024))


class AlwaysChild(Always):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.register_buffer("t", torch.ones(4096, 1024))
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    return source_module("delete_first", SOURCE)


def test_a_redo_of_conditional_work_is_not_deleted(module: Path) -> None:
    found = {
        d.class_name.rsplit(".", 1)[-1]: d
        for d in check([module], cwd=module, use_cache=False).diagnostics
    }
    assert found["AlwaysChild"].fix is not None  # (the ancestor's work ran on every path)
    assert found["AlwaysChild"].fix.message == "delete the repeated statement"
    assert found["Child"].fix is None or "delete" not in found["Child"].fix.message
    fix([module], cwd=module, use_cache=False)
    m = importlib.import_module("delete_first")
    for build in (True, False):
        cfg = SimpleNamespace(build=build)
        assert m.Child(cfg).t.shape == (4096, 1024)
        assert m.AlwaysChild(cfg).t.shape == (4096, 1024)

"""Work a construction does twice, against what constructing each class registers, keeps
and fills: an ancestor's ``__init__`` the class runs a second time (IL002 at the second
call: the first run's parameter is registered and not held), and a parent's reset that
runs its children's again, where they fill their weights through a function handed the
tensor (IL005: each weight filled twice)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.table = nn.Parameter(torch.randn(n, n))


class Twice(Base):
    def __init__(self, n=512):
        super().__init__(n)
        super().__init__(n)


class Left(Base):
    def __init__(self):
        Base.__init__(self)


class Right(Base):
    def __init__(self):
        Base.__init__(self)


class Diamond(Left, Right):
    def __init__(self):
        Left.__init__(self)
        Right.__init__(self)


class Arms(Base):
    def __init__(self, n=512, wide=False):
        if wide:
            super().__init__(2 * n)
        else:
            super().__init__(n)


def drawn_like(tensor, scale):
    if tensor is not None:
        tensor.data.normal_(0.0, scale)


class Residual(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.reset_parameters()

    def reset_parameters(self):
        drawn_like(self.lin.weight, 0.02)


class Stack(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.layers = nn.ModuleList([Residual(n) for _ in range(2)])
        self.reset_parameters()

    def reset_parameters(self):
        for layer in self.layers:
            layer.reset_parameters()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("run_twice", SOURCE)


def test_what_runs_twice_is_what_the_tracer_sees_twice(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {
        (d.class_name.rpartition(".")[2], d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {
        ("Twice", "IL002", "error", "Base.__init__()"),
        ("Diamond", "IL002", "error", "Base.__init__()"),
        ("Stack", "IL005", "error", "self.layers.*.lin.weight"),
    }
    m = importlib.import_module("run_twice")
    assert lost(m.Twice) == {("table", (512, 512))}
    assert lost(m.Diamond) == {("table", (512, 512))}
    assert lost(m.Arms) == set()
    path = str(module / "run_twice.py")
    assert filled_twice(m.Stack, path, same_line=True) == {"layers.*.lin.weight"}
    assert filled_twice(m.Residual, path, same_line=True) == set()

"""Deleting a repeated initialisation pass leaves the first pass's weights: the same kind of
values but other numbers, since fewer random draws are taken; the fix says so and is unsafe.
A repeated deterministic build stays a safe delete."""

from __future__ import annotations

import shutil
from pathlib import Path

from initlint.api import check

PASSES = Path(__file__).parent / "fixtures" / "check" / "init_pass_repeated"
TABLES = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.n = n
        self._build()

    def _build(self):
        self.register_buffer("table", torch.arange(self.n * self.n).reshape(self.n, self.n))


class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self._build()
"""


def test_a_repeated_initialisation_pass_is_an_unsafe_delete(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(PASSES, project, ignore=shutil.ignore_patterns(".initlint_cache"))
    report = check([project], cwd=project, use_cache=False)
    fixes = {d.class_name.rsplit(".", 1)[-1]: d.fix for d in report.diagnostics}
    for name in ("InitialisedAgain", "ScaledAgain"):
        fix = fixes[name]
        assert fix is not None and fix.applicability == "unsafe", name
        assert "the weights keep the first pass's draws" in fix.message


def test_a_repeated_deterministic_build_stays_a_safe_delete(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "tables"\n')
    (tmp_path / "tables.py").write_text(TABLES)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    (diagnostic,) = report.diagnostics
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "safe"


GROWN = """
import math

import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, n=1024, h=1024):
        super().__init__()
        self.h = h
        self.w_ih = nn.Parameter(torch.Tensor(4 * h, n))
        self.reset_parameters()

    def reset_parameters(self):
        stdev = 1.0 / math.sqrt(self.h)
        for param in self.parameters():
            param.data.uniform_(-stdev, stdev)


class MCell(Cell):
    def __init__(self, n=1024, h=1024):
        super().__init__(n, h)
        self.w_mih = nn.Parameter(torch.Tensor(h, n))
        self.reset_parameters()
"""


def test_a_pass_that_walks_a_tensor_made_since_is_not_deleted(tmp_path: Path) -> None:
    # deleting the second pass would leave ``w_mih`` as ``torch.Tensor`` made it: unfilled
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "cells"\n')
    (tmp_path / "cells.py").write_text(GROWN)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    (diagnostic,) = report.diagnostics
    assert diagnostic.code == "IL002"
    fix = diagnostic.fix
    assert fix is None or "delete" not in fix.message, fix

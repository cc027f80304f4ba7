"""``del self.x`` takes x away again: a later ``hasattr(self, "x")`` guard is not decided
true by the ancestor's earlier build (docs/design.md, "Guards")."""

from __future__ import annotations

from pathlib import Path

from initlint.driver import analyze

BASE = """\
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.cache = torch.zeros(n, n)


class Rebuilt(Table):
    def __init__(self, n):
        super().__init__(n)
        del self.cache
        if not hasattr(self, "cache"):
            self.cache = torch.ones(n, n)
"""


def test_a_guard_after_a_deletion_stays_open(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(BASE)
    found = analyze([tmp_path], cwd=tmp_path, jobs=1, use_cache=False).diagnostics
    # The ancestor's table is built, deleted and built again: the rebuild is reported.
    assert [(d.line, d.code, d.severity) for d in found] == [(16, "IL003", "error")]

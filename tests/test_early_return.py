"""A ``return`` ends its function: an ancestor's work after a return that surely runs
(``if not hasattr(self, "ready"): return`` during its ``__init__``) never happens, and work
after a return under an undecided guard happens only where that guard was false, so a
repeat of it is ``possibly``."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, d=4096, lazy=False):
        super().__init__()
        self.lazy = lazy
        self.setup(d)

    def setup(self, d):
        if self.lazy:
            return
        self.register_buffer("table", torch.zeros(d, d))


class Child(Base):
    def __init__(self, d=4096, lazy=False):
        super().__init__(d, lazy)
        self.register_buffer("table", torch.ones(d, d))


class Early(nn.Module):
    def __init__(self, d=4096):
        super().__init__()
        self.prepare(d)

    def prepare(self, d):
        if not hasattr(self, "ready"):
            return
        self.register_buffer("table", torch.zeros(d, d))


class EarlyChild(Early):
    def __init__(self, d=4096):
        super().__init__(d)
        self.register_buffer("table", torch.ones(d, d))
"""


def test_work_after_a_return_runs_only_where_it_did_not(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "tables"\n')
    (tmp_path / "tables.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.confidence)
        for d in report.diagnostics
    )
    # Early.prepare returns before registering: EarlyChild's table is the only one
    assert found == [("Child", "IL001", "error", "possible")]


BUILDS_EITHER_WAY = """
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, d=4096, tiny=False):
        super().__init__()
        if tiny:
            self.head = nn.Linear(2, 2)
            return
        self.head = nn.Linear(d, d)


class Sub(Base):
    def __init__(self, d=4096, tiny=False):
        super().__init__(d, tiny)
        self.head = nn.Linear(d, 4 * d)
"""


def test_a_flag_that_skips_one_of_the_builds_is_no_fix(tmp_path: Path) -> None:
    # the base builds a head on both paths: passing tiny=False only picks the other build
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "heads"\n')
    (tmp_path / "heads.py").write_text(BUILDS_EITHER_WAY)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    (found,) = report.diagnostics
    assert found.code == "IL003"
    assert "tiny" not in found.message
    assert found.fix is None or "tiny" not in str(found.fix)

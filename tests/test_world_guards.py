"""Heavy work redone only on a path that a state outside the construction decides (a file
on disk, an environment variable, what a file read gave) is a warning, not an error: not
every construction pays for it. A test of the class's own arguments keeps the error."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

CASE = """
import json
import os

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, path="cache.json", flag=False):
        super().__init__()
        self.table = torch.randn(4096, 4096)


class Child(Base):
    def __init__(self, path="cache.json", flag=False):
        super().__init__(path, flag)
        {setup}
        if {test}:
            self.table = torch.randn(4096, 4096)
"""


@pytest.mark.parametrize(
    ("setup", "test", "severity", "world"),
    [
        ("pass", "flag", "error", False),
        ("pass", "not os.path.exists(path)", "warning", True),
        ("pass", 'os.environ.get("REBUILD")', "warning", True),
        ("meta = json.load(open(path))", 'meta["version"] == 2', "warning", True),
        ("meta = {'version': 2}", 'meta["version"] == 2', "error", False),
    ],
)
def test_heavy_work_redone_only_where_the_world_decides_is_a_warning(
    tmp_path: Path, setup: str, test: str, severity: str, world: bool
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    (tmp_path / "model.py").write_text(CASE.format(setup=setup, test=test))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [d for d in report.diagnostics if d.path.endswith("model.py")]
    assert [(d.code, d.severity) for d in found] == [("IL003", severity)]
    assert ("a state outside the construction" in found[0].message) == world

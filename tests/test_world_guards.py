"""Heavy work redone only on a path that a state outside the construction decides (a file
on disk, an environment variable, what a file read gave) is a warning, not an error: not
every construction pays for it. A test of the class's own arguments keeps the error."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import json
import os
import os.path as osp

from pathlib import Path

import torch
from torch import nn


class Registry:
    def exists(self):
        return True


def files_exist(paths):
    return len(paths) != 0 and all(osp.isfile(p) for p in paths)


def no_files(paths):
    return not files_exist(paths)


def enabled(flag):
    return flag is True


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
        ("root = Path(path)", "not (root / 'table.pt').exists()", "warning", True),
        ("pass", "not Path(path).is_file()", "warning", True),
        # a method of a project object named like a path's is no test of the file system
        ("reg = Registry()", "reg.exists()", "error", False),
        # a probe under the name an import gives it, or returned by a function
        ("pass", "not osp.exists(path)", "warning", True),
        ("pass", "not files_exist([path])", "warning", True),
        ("pass", "no_files([path])", "warning", True),
        ("pass", "enabled(flag)", "error", False),
    ],
)
def test_heavy_work_redone_only_where_the_world_decides_is_a_warning(
    check_source: Callable[..., Report], setup: str, test: str, severity: str, world: bool
) -> None:
    found = check_source(CASE.format(setup=setup, test=test)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL003", severity)]
    assert ("a state outside the construction" in found[0].message) == world


BOTH = """
import os

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, cache="table.pt"):
        super().__init__()
        if os.path.exists(cache):
            self.register_buffer("table", torch.zeros(1024, 1024))
        else:
            self.register_buffer("table", torch.randn(1024, 1024))


class Child(Base):
    def __init__(self, cache="table.pt"):
        super().__init__(cache)
        self.register_buffer("table", torch.ones(1024, 1024))
"""


def test_a_world_test_that_only_picks_which_build_is_thrown_away_keeps_the_error(
    check_source: Callable[..., Report],
) -> None:
    """Both arms of the world test build the buffer: every construction pays for the
    repeat, whichever arm ran."""
    found = check_source(BOTH).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL001", "error")]
    assert "outside the construction" not in found[0].message

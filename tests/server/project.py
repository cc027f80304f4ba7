"""A three-file project: a swallowed flag in the middle class gives the subclass an IL001."""

from __future__ import annotations

from pathlib import Path

BASE = """\
import torch
from torch import nn


class RopeBase(nn.Module):
    def __init__(self, dim, init_cache=True):
        super().__init__()
        self.dim = dim
        if init_cache:
            self.register_buffer("cache", torch.zeros(dim, dim), persistent=False)
"""

# The intermediate class swallows ``init_cache``: its subclass's init_cache=False is lost.
MID = """\
from pkg.base import RopeBase


class Scaled(RopeBase):
    def __init__(self, dim, factor, **kwargs):
        super().__init__(dim)
        self.factor = factor
"""

MID_THREADED = MID.replace("super().__init__(dim)", "super().__init__(dim, **kwargs)")

SUB = """\
import torch

from pkg.mid import Scaled


class Rope4(Scaled):
    def __init__(self, dim, factor):
        super().__init__(dim, factor, init_cache=False)
        self.register_buffer("cache", torch.ones(dim, dim), persistent=False)
"""


def make_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fx"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(BASE)
    (root / "pkg" / "mid.py").write_text(MID)
    (root / "pkg" / "sub.py").write_text(SUB)
    return root


# A plugin class whose base comes from a package the environment does not hold.
PLUGIN_CHILD = """\
from enginelib.layers import Rotary


class Child(Rotary):
    def __init__(self, d):
        super().__init__(d)
"""
PLUGIN_CHILD_LINE = 4


def make_plugin(root: Path) -> Path:
    """A project holding ``PLUGIN_CHILD`` as ``child.py``; the file's path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "plugin"\n')
    child = root / "child.py"
    child.write_text(PLUGIN_CHILD)
    return child

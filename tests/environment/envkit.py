"""Fixture environments built in the test: venv-shaped folders with a small third-party
package in their ``site-packages``, and projects that subclass its classes."""

from __future__ import annotations

import hashlib
import os
import textwrap
from pathlib import Path

PY = "python3.11"

# A framework whose class chain has a cache behind ``init_cache``: ``Swallowing`` does not
# pass the flag on (the DeepSeek shape), ``Threading`` does.
ROPELIB = {
    "ropelib/__init__.py": """\
        from .base import CacheBase
        from .yarn import *
        """,
    "ropelib/base.py": """\
        import torch
        from torch import nn


        class CacheBase(nn.Module):
            def __init__(self, size, init_cache=True):
                super().__init__()
                self.size = size
                if init_cache:
                    self.register_buffer("cache", self._compute_cache(), persistent=False)

            def _compute_cache(self):
                return torch.arange(self.size).float().outer(torch.ones(8))
        """,
    "ropelib/yarn.py": """\
        from .base import CacheBase

        __all__ = ["Swallowing", "Threading"]


        class Swallowing(CacheBase):
            def __init__(self, size, scale=1.0):
                super().__init__(size)
                self.scale = scale


        class Threading(CacheBase):
            def __init__(self, size, scale=1.0, *, init_cache=True):
                super().__init__(size, init_cache=init_cache)
                self.scale = scale
        """,
    "ropelib-1.2.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: ropelib\nVersion: 1.2.0\n",
    "ropelib-1.2.0.dist-info/RECORD": "ropelib/__init__.py,,\nropelib/base.py,,\n",
}

# The project: a subclass of each, redoing the cache after super().__init__().
CHILD = """\
from ropelib import {parent}


class Child({parent}):
    def __init__(self, size):
        super().__init__(size, 2.0)
        self.register_buffer("cache", self._compute_cache(), persistent=False)
"""
CHILD_LINE = 7


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def make_venv(prefix: Path, files: dict[str, str] | None = None) -> Path:
    """A venv-shaped folder (pyvenv.cfg + lib/python3.11/site-packages); returns site."""
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "pyvenv.cfg").write_text(
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
        encoding="utf-8",
    )
    site = prefix / "lib" / PY / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    write_tree(site, files if files is not None else ROPELIB)
    return site


def make_project(
    root: Path, parent: str = "Swallowing", extra: dict[str, str] | None = None
) -> Path:
    write_tree(
        root,
        {
            "pyproject.toml": '[project]\nname = "plugin"\n',
            "plugin/__init__.py": "",
            "plugin/child.py": CHILD.format(parent=parent),
            **(extra or {}),
        },
    )
    return root


def tree_hash(folder: Path) -> str:
    """Every file's path, bytes and mode below ``folder``: any write shows."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted([*filenames, *dirnames]):
            path = Path(dirpath) / name
            h.update(str(path.relative_to(folder)).encode())
            if path.is_file():
                h.update(path.read_bytes())
                h.update(str(path.stat().st_mode).encode())
    return h.hexdigest()

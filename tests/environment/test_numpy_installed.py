"""Where numpy is installed, its sources wrap compiled code the simulation cannot follow
(``numpy.load`` ends in a C function): built-in knowledge of numpy judges its own
callables there, as it does where numpy is absent, and as knowledge of torch judges
torch's. A buffer read from a file again is I/O repeated, an error either way."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.settings import Settings

from .envkit import make_venv, write_tree

# numpy as installed: Python wrappers over functions of a compiled module.
NUMPY = {
    "numpy/__init__.py": """\
        from ._core import empty, _load_impl


        def ones(shape, dtype=None):
            a = empty(shape, dtype)
            a.fill(1)
            return a


        def load(file):
            return _load_impl(file)
        """,
    "numpy-2.0.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: numpy\nVersion: 2.0.0\n",
    "numpy-2.0.0.dist-info/RECORD": "numpy/__init__.py,,\n",
}

MODELS = """\
import numpy as np
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, path, n):
        super().__init__()
        self.register_buffer("table", torch.from_numpy(np.load(path)))
        self.register_buffer("mask", torch.from_numpy(np.ones((n, n))))


class Child(Base):
    def __init__(self, path, n):
        super().__init__(path, n)
        self.register_buffer("table", torch.from_numpy(np.load(path)))
        self.register_buffer("mask", torch.from_numpy(np.ones((n, n))))
"""


@pytest.mark.parametrize("installed", [True, False])
def test_numpy_is_judged_by_what_initlint_knows(tmp_path: Path, installed: bool) -> None:
    env = tmp_path / "env"
    make_venv(env, NUMPY if installed else {})
    write_tree(tmp_path / "p", {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/m.py": MODELS})

    def over(s: Settings) -> Settings:
        return replace(s, python=str(env))

    analysis = analyze(
        [tmp_path / "p"], cwd=tmp_path / "p", overrides=over, jobs=1, use_cache=False
    )
    found = sorted(
        (d.message.split("`")[1], d.severity, "not known" in d.message)
        for d in analysis.diagnostics
    )
    assert found == [("mask", "error", False), ("table", "error", False)]

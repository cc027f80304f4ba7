"""A tensor made from an empty list (``torch.tensor([])``, ``np.array([])``) holds no
numbers: a placeholder, like ``torch.empty(0)``, whose replacement throws nothing away. One
made from a list of values is a build."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import numpy as np
import torch
from torch import nn


class Loader(nn.Module):
    def __init__(self, n=1024):
        super().__init__()
        self.samples = torch.tensor([])
        self.frames = np.array([])
        self.scale = torch.tensor([0.5, 2.0])
        self.samples = torch.randn(n, n)
        self.frames = np.zeros((n, n))
        self.scale = torch.ones(2)
"""


def test_an_empty_list_is_a_placeholder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "loader"\n')
    (tmp_path / "loader.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted((d.code, d.message.split("`")[1]) for d in report.diagnostics)
    assert found == [("IL005", "self.scale")]

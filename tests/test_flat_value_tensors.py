"""A tensor made from a flat display of values (``torch.tensor([alpha] * n)``,
``torch.tensor([0.5, beta])``) is a 1-D vector, one number per item, however many items a
repeat gives it: light work, so its replacement is a warning."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, n, alpha, beta):
        super().__init__()
        self.alpha = torch.tensor([alpha] * n, dtype=torch.float32)
        self.beta = torch.tensor([0.5, beta])
        self.alpha = torch.full((n,), 2.0)
        self.beta = None
"""


def test_a_flat_display_makes_a_vector(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "experts"\n')
    (tmp_path / "experts.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted((d.code, d.severity, d.message.split("`")[1]) for d in report.diagnostics)
    assert found == [("IL005", "warning", "self.alpha"), ("IL005", "warning", "self.beta")]

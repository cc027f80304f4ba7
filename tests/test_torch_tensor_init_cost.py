"""Re-running an initialisation over a tensor torch's own class registered (``nn.Linear``'s
weight, ``nn.Embedding``'s table) costs what that tensor holds: a matrix or a table is heavy
work, a vector light. A subclass whose ``reset_parameters`` runs the torch class's again,
called a second time after ``nn.Linear.__init__`` ran it, repeats heavy work (IL002)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import math

from torch import nn


class LoraLinear(nn.Linear):
    def __init__(self, d_in, d_out, r=4):
        nn.Linear.__init__(self, d_in, d_out)
        self.r = r
        self.reset_parameters()

    def reset_parameters(self):
        nn.Linear.reset_parameters(self)


class LoraEmbedding(nn.Embedding):
    def __init__(self, n, d):
        nn.Embedding.__init__(self, n, d)
        self.reset_parameters()

    def reset_parameters(self):
        nn.Embedding.reset_parameters(self)


class BiasOnly(nn.Linear):
    def __init__(self, d_in, d_out):
        nn.Linear.__init__(self, d_in, d_out)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.zeros_(self.bias)
"""


def _found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # torch's own classes are ancestors here
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "lora"\n')
    (tmp_path / "lora.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rsplit(".", 1)[-1]: d.severity for d in report.diagnostics}


def test_reinitialising_torchs_weight_matrix_or_table_is_heavy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _found(tmp_path, monkeypatch)
    assert found["LoraLinear"] == "error"
    assert found["LoraEmbedding"] == "error"


def test_reinitialising_torchs_bias_vector_is_light(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _found(tmp_path, monkeypatch).get("BiasOnly") == "warning"

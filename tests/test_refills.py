"""IL005 on a tensor's numbers: an ancestor's initialisation pass over ``self.weight`` that
the class's own code does again, every number of it, before anything reads them, is thrown
away; it costs what the tensor is. A read in between, a fill of a part, or a tensor built
anew in between is no refill; reading only the shape (``_calculate_fan_in_and_fan_out``) is
no read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, d=4096):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        self.bias = nn.Parameter(torch.empty(d))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight)
        fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
        nn.init.uniform_(self.bias, -1 / fan_in, 1 / fan_in)


class Refilled(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        nn.init.xavier_uniform_(self.weight)
        self.bias.data.zero_()


class ReadFirst(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        self.saved = self.weight.detach().clone()
        nn.init.xavier_uniform_(self.weight)


class PartOnly(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        with torch.no_grad():
            self.weight[0].zero_()


class Normalised(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        with torch.no_grad():
            self.weight.copy_(nn.functional.normalize(self.weight, dim=1))


class Diagonal(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        with torch.no_grad():
            self.weight.fill_diagonal_(1.0)


class Rebuilt(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        self.weight = nn.Parameter(torch.empty(d, 2 * d))
        nn.init.xavier_uniform_(self.weight)


class FromTorch(nn.Linear):
    def __init__(self, a=4096, b=4096):
        super().__init__(a, b)
        nn.init.orthogonal_(self.weight)
"""


def _found(tmp_path: Path) -> dict[str, list[tuple[str, str, str]]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "refills"\n')
    (tmp_path / "refills.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    out: dict[str, list[tuple[str, str, str]]] = {}
    for d in report.diagnostics:
        if d.code == "IL005":
            out.setdefault(d.class_name.rsplit(".", 1)[-1], []).append(
                (d.severity, d.confidence, d.message)
            )
    return out


def test_an_ancestors_pass_filled_again_is_thrown_away(tmp_path: Path) -> None:
    found = _found(tmp_path)
    refilled = sorted(found["Refilled"])
    # the 2-D weight: heavy; the bias: a vector, light
    assert [(s, c) for s, c, _ in refilled] == [("error", "definite"), ("warning", "definite")]
    message = refilled[0][2]
    assert "initialisation of `self.weight` by Base.reset_parameters" in message
    assert "filled again here before anything reads it" in message


def test_a_read_a_part_or_a_new_tensor_is_no_refill(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert "ReadFirst" not in found
    assert "PartOnly" not in found
    assert "Normalised" not in found  # made from the ancestor's numbers
    assert "Diagonal" not in found  # the rest of the numbers kept
    assert "Rebuilt" not in found


def test_torchs_own_initialisation_filled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")  # torch's Linear is read from its installed source:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # the environment the tests run in
    found = _found(tmp_path)
    assert [(s, c) for s, c, _ in found["FromTorch"]] == [("error", "definite")]
    assert "by Linear.reset_parameters" in found["FromTorch"][0][2]

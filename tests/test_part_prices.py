"""A part of an object replaced before anything used it (IL005) costs what building it
cost, and never more than building the whole object: the weight of `nn.Linear(width, 1)`
or of a one-channel filter, `nn.Conv1d(1, 1, taps)`, is a vector, so throwing it away is
light work, as building the module is (docs/design.md, "Cost classes")."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Scores(nn.Module):
    def __init__(self, w=None):
        super().__init__()
        self.linear = nn.Linear(118, 1, bias=False)
        if w is not None:
            self.linear.weight.data = torch.tensor(w)


class Taps(nn.Module):
    def __init__(self, coef=0.85):
        super().__init__()
        self.fir = nn.Conv1d(1, 1, kernel_size=3, bias=False, padding=1)
        self.fir.weight.data = torch.tensor([1, -coef, 0]).view(1, 1, -1)


class Table(nn.Module):
    def __init__(self, w=None):
        super().__init__()
        self.linear = nn.Linear(4096, 64, bias=False)
        if w is not None:
            self.linear.weight.data = torch.tensor(w)
"""


@pytest.mark.parametrize("torch_read", [False, True])
def test_a_part_costs_no_more_than_its_whole(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch, torch_read: bool
) -> None:
    if torch_read:  # (torch's classes read from the environment the tests run in)
        pytest.importorskip("torch")
        monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    found = {
        d.class_name.rsplit(".", 1)[-1]: d.severity
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL005"
    }
    if not torch_read:
        assert found == {}  # (what torch's modules build is read from torch's sources)
        return
    assert found == {"Scores": "warning", "Taps": "warning", "Table": "error"}

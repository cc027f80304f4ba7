"""An ancestor's fill made on each arm of a branch (torch's ``_ConvNd.reset_parameters``:
``if not self.weight.is_contiguous(): ... self.weight.copy_(t)`` / ``else:
init.kaiming_uniform_(self.weight)``) fills the tensor on every path: the subclass's fill
after it throws that away definitely, not on some paths. A tensor the ancestor fills on
one arm only (the bias, under ``if self.bias is not None``) stays possible."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

pytest.importorskip("torch")

SOURCE = """
from torch import nn


class Smooth(nn.Conv1d):
    def __init__(self, channels, window=3):
        super().__init__(channels, channels, kernel_size=1, groups=channels, bias=False)
        nn.init.constant_(self.weight, 1.0 / window)


class BiasZeroed(nn.Conv1d):
    def __init__(self, channels, bias=True):
        super().__init__(channels, channels, kernel_size=3, bias=bias)
        nn.init.zeros_(self.bias)
"""

BRANCHES = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, d, flag):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        if flag:
            nn.init.normal_(self.w)
        else:
            nn.init.uniform_(self.w)


class BothArms(Base):
    def __init__(self, d, flag):
        super().__init__(d, flag)
        nn.init.zeros_(self.w)


class OneArm(nn.Module):
    def __init__(self, d, flag):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        if flag:
            nn.init.normal_(self.w)


class AfterOneArm(OneArm):
    def __init__(self, d, flag):
        super().__init__(d, flag)
        nn.init.zeros_(self.w)
"""


def _found(check_source: Callable[..., Report], source: str) -> dict[str, str]:
    return {d.class_name.rsplit(".", 1)[-1]: d.confidence for d in check_source(source).diagnostics}


@pytest.fixture(autouse=True)
def _torch_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # torch's own classes are ancestors here


def test_a_fill_on_every_arm_is_refilled_definitely(check_source: Callable[..., Report]) -> None:
    found = _found(check_source, BRANCHES)
    assert found == {"BothArms": "definite", "AfterOneArm": "possible"}


def test_torchs_convolution_weight_is_filled_on_every_path(
    check_source: Callable[..., Report],
) -> None:
    found = _found(check_source, SOURCE)
    assert found["Smooth"] == "definite"
    assert found["BiasZeroed"] == "possible"

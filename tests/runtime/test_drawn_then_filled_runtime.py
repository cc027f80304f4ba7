"""Random draws filled again by a pass or a loop over a ``ParameterList`` (IL005), checked
at construction: every tensor a finding names was made by a random factory and then filled
whole in place by the class's code; and the classes with no finding have none such."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import Draws  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import math

import torch
from torch import nn


class Looped(nn.Module):
    def __init__(self, d=16, depth=3):
        super().__init__()
        self.weights = nn.ParameterList([nn.Parameter(torch.randn(d, d)) for _ in range(depth)])
        for weight in self.weights:
            nn.init.xavier_uniform_(weight)


class Passed(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(d, d))
        for p in self.parameters():
            nn.init.xavier_uniform_(p)


class Lin(nn.Module):
    def __init__(self, d=16, depth=2):
        super().__init__()
        self.weights = nn.ParameterList([])
        for _ in range(depth):
            self.weights.append(nn.Parameter(torch.randn(d, d) / math.sqrt(d)))

    def init_zero_(self):
        for weight in self.weights:
            weight.data.zero_()


class Held(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.project_out = Lin(d)
        self.project_out.init_zero_()


class Placeholder(nn.Module):
    def __init__(self, d=16, depth=3):
        super().__init__()
        self.weights = nn.ParameterList([nn.Parameter(torch.empty(d, d)) for _ in range(depth)])
        for weight in self.weights:
            nn.init.xavier_uniform_(weight)
"""

# The tensors each finding names, as the object names its parameters (``*``: every item).
EXPECTED = {"Looped": {"weights.*"}, "Passed": {"proj"}, "Held": {"project_out.weights.*"}}


def _drawn_then_filled(module: object, cls: str) -> set[str]:
    with Draws() as seen:
        built = getattr(module, cls)()
    return {
        re.sub(r"weights\.\d+$", "weights.*", name)
        for name, p in built.named_parameters()
        if p.untyped_storage().data_ptr() in seen.refilled
    }


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("drawn_blocks", SOURCE)


def test_draws_a_pass_or_a_loop_throws_away(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in report.diagnostics}
    assert {c: d.code for c, d in found.items()} == dict.fromkeys(EXPECTED, "IL005")
    assert "the items of `self.weights`" in found["Looped"].message
    assert "`self.proj`" in found["Passed"].message
    assert "by `init_zero_()`, before" in found["Held"].message
    loaded = importlib.import_module("drawn_blocks")
    for cls, names in EXPECTED.items():
        assert _drawn_then_filled(loaded, cls) == names, cls
    assert _drawn_then_filled(loaded, "Placeholder") == set()

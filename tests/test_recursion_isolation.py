"""A class whose check runs out of stack is one IL902 on its file: the run goes on with the
next class and reports nothing else for that one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from initlint.api import Report
from initlint.pipeline import check as pipeline_check

SOURCE = """
import torch
from torch import nn


class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
        self.w = nn.Parameter(torch.randn(4, 4))


class Fine(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
        self.w = nn.Parameter(torch.randn(4, 4))
"""


def test_a_recursion_error_is_that_class_s_alone(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = pipeline_check.check_class

    def deep_first(sim: Any, info: Any) -> Any:
        if info.qualname.endswith(".Deep"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(sim, info)

    monkeypatch.setattr(pipeline_check, "check_class", deep_first)
    found = check_source(SOURCE).diagnostics
    assert sorted(d.code for d in found) == ["IL005", "IL902"]
    for d in found:
        if d.code == "IL005":
            assert d.class_name.endswith(".Fine")
        else:
            assert "RecursionError" in d.message

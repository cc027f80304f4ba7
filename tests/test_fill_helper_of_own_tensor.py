"""A function handed a tensor the object itself holds (``glorot(self.weight)`` after
``self.weight = nn.Parameter(...)``) fills it as the class would where it fills its parameter
whole on every path a tensor takes: unguarded, under ``is not None``, or under
``isinstance(value, Tensor)``. A holder that runs the module's ``reset_parameters()`` again
throws that fill away. What is not surely a tensor, or a fill on some paths only, claims
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

HELPERS = """
import math
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import Parameter


def glorot(value: Any):
    if isinstance(value, Tensor):
        stdv = math.sqrt(6.0 / (value.size(-2) + value.size(-1)))
        value.data.uniform_(-stdv, stdv)
    else:
        for v in value.parameters() if hasattr(value, "parameters") else []:
            glorot(v)


def plain(value):
    value.data.normal_(0.0, 0.02)


def unless_none(value):
    if value is not None:
        nn.init.xavier_uniform_(value)


def modules_only(value):
    if isinstance(value, nn.Module):
        value.weight.data.normal_()


def doubled(value):
    value.data.copy_(value * 2)


def sometimes(value, flag):
    if flag:
        value.data.normal_()


def none_first(value):
    if value is None:
        return
    nn.init.xavier_uniform_(value)


def rebinds(value):
    value = torch.empty(4, 4)
    nn.init.xavier_uniform_(value)


def generator(value):
    yield value
    nn.init.xavier_uniform_(value)


def parameters_only(value):
    if not isinstance(value, nn.Parameter):
        return
    nn.init.xavier_uniform_(value)


def own_tensor_class(value, Tensor=nn.Module):
    if isinstance(value, Tensor):
        value.data.normal_()


def rebound(value):
    value.data.normal_()


rebound = lambda value: None
"""

CONV = """

class Conv(nn.Module):
    def __init__(self, a, b, flag=False):
        super().__init__()
{store}
        self.reset_parameters()

    def reset_parameters(self):
        {fill}


class Net(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.conv = Conv(a, b)
        self.conv.reset_parameters()
"""

PARAM = "        self.weight = Parameter(torch.empty(a, b))"

FOUND = {
    "isinstance_tensor": (PARAM, "glorot(self.weight)"),
    "unguarded": (PARAM, "plain(self.weight)"),
    "unless_none": (PARAM, "unless_none(self.weight)"),
    "none_returns_first": (PARAM, "none_first(self.weight)"),
    "registered": (
        '        self.register_parameter("weight", Parameter(torch.empty(a, b)))',
        "glorot(self.weight)",
    ),
}

SILENT = {
    "a_module_held": ("        self.weight = nn.Linear(a, b)", "glorot(self.weight)"),
    "registered_none": ('        self.register_parameter("weight", None)', "glorot(self.weight)"),
    "a_tensor_on_some_paths": (
        "        self.weight = nn.Linear(a, b)\n        if flag:\n" + "    " + PARAM,
        "glorot(self.weight)",
    ),
    "another_class_tested": (PARAM, "modules_only(self.weight)"),
    "its_own_numbers_read": (PARAM, "doubled(self.weight)"),
    "a_fill_on_some_paths": (PARAM, "sometimes(self.weight, True)"),
    "the_name_rebound": (PARAM, "rebinds(self.weight)"),
    "a_generator": (PARAM, "generator(self.weight)"),
    "a_return_before_the_fill": (
        '        self.register_buffer("weight", torch.empty(a, b))',
        "parameters_only(self.weight)",
    ),
    "a_class_the_function_binds": (PARAM, "own_tensor_class(self.weight)"),
    "a_name_bound_again": (PARAM, "rebound(self.weight)"),
    "a_local_of_that_name": (PARAM, "glorot = lambda value: None\n        glorot(self.weight)"),
}


def _found(tmp_path: Path, store: str, fill: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(HELPERS + CONV.format(store=store, fill=fill))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return [
        f"{d.code} {d.severity} {d.message.split('`')[1]}"
        for d in report.diagnostics
        if d.class_name.endswith(".Net")
    ]


@pytest.mark.parametrize("case", sorted(FOUND))
def test_the_rerun_throws_the_helpers_fill_away(tmp_path: Path, case: str) -> None:
    assert _found(tmp_path, *FOUND[case]) == ["IL005 error self.conv.weight"]


@pytest.mark.parametrize("case", sorted(SILENT))
def test_what_is_not_surely_a_whole_fill_of_a_tensor_claims_nothing(
    tmp_path: Path, case: str
) -> None:
    assert _found(tmp_path, *SILENT[case]) == []

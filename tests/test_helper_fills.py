"""A function handed a module the object holds (``init_attenuated(self.lin)``) fills the
parts of it that its body fills whole on every path: those are the class's fills of
``self.lin.weight``, thrown away by a later fill of them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


def init_linear(linear, gain=1.0):
    {body}


class Proj(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        init_linear(self.lin)


class Sub(Proj):
    def __init__(self, d):
        super().__init__(d)
        nn.init.xavier_uniform_(self.lin.weight)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("nn.init.kaiming_uniform_(linear.weight)", ["IL005"]),
        ("linear.weight.data.normal_(0, 0.02)\n    nn.init.zeros_(linear.bias)", ["IL005"]),
        # on some paths only: not claimed
        ("if gain > 1:\n        nn.init.kaiming_uniform_(linear.weight)", []),
        # another part: the weight keeps torch's default, then one fill of the class's
        ("nn.init.zeros_(linear.bias)", []),
        # part of it
        ("nn.init.zeros_(linear.weight[0])", []),
    ],
)
def test_a_helpers_fills_of_a_held_module_are_the_classs(
    check_source: Callable[..., Report], body: str, expected: list[str]
) -> None:
    found = check_source(CASE.format(body=body)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.lin.weight` by Proj.__init__" in d.message


TENSOR = """
import torch
import torch.nn as nn


def fill(tensor, scale=2.0):
    {body}


class Proj(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        fill(self.lin.weight{data})


class Sub(Proj):
    def __init__(self, d):
        super().__init__(d)
        nn.init.xavier_uniform_(self.lin.weight)
"""


@pytest.mark.parametrize(
    ("body", "data", "expected"),
    [
        ("torch.nn.init.orthogonal_(tensor)", "", ["IL005"]),
        ("torch.nn.init.orthogonal_(tensor)", ".data", ["IL005"]),
        ("tensor.data.normal_(0, 0.02)", "", ["IL005"]),
        # filled wherever there is a tensor to fill
        (
            "if tensor is not None:\n        torch.nn.init.orthogonal_(tensor.data)\n"
            "        tensor.data *= scale",
            "",
            ["IL005"],
        ),
        # on some paths only, or part of it, or from its own numbers: not claimed
        ("if scale > 1:\n        torch.nn.init.orthogonal_(tensor)", "", []),
        ("if tensor is None:\n        torch.nn.init.orthogonal_(tensor)", "", []),
        ("torch.nn.init.zeros_(tensor[0])", "", []),
        ("tensor.data.copy_(tensor.data / tensor.norm())", "", []),
    ],
)
def test_a_helpers_fill_of_a_tensor_the_object_holds_is_the_classs(
    check_source: Callable[..., Report], body: str, data: str, expected: list[str]
) -> None:
    found = check_source(TENSOR.format(body=body, data=data)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.lin.weight` by Proj.__init__" in d.message


RESET = """
import torch
import torch.nn as nn


def glorot_like(tensor, scale):
    if tensor is not None:
        torch.nn.init.orthogonal_(tensor.data)
        tensor.data *= scale


class Residual(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lin = nn.Linear(hidden, hidden)
        self.reset_parameters()

    def reset_parameters(self):
        glorot_like(self.lin.weight, 2.0)
        self.lin.bias.data.fill_(0)


class Stack(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.layers = nn.ModuleList([Residual(hidden) for _ in range(3)])
        self.reset_parameters()

    def reset_parameters(self):
        for layer in self.layers:
            layer.reset_parameters()
"""


def test_a_parent_reset_rerunning_a_childs_helper_fill_is_heavy(
    check_source: Callable[..., Report],
) -> None:
    # the weights the children's construction filled through the helper are drawn again,
    # not only their biases
    (found,) = check_source(RESET).diagnostics
    assert (found.code, found.severity) == ("IL005", "error")
    assert "`self.layers.*.lin.weight`" in found.message

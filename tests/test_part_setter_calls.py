"""A project function that does nothing with an object it is handed but give parts of it
new values (``def load_params(layer, weight, bias): layer.weight.data = ...``): a call of it
replaces those parts as if the assignments were written at the call, for an object the
class holds (``load_params(self.fc, w, b)``) and for one a function built into a local
(``layer = nn.Linear(...)``, ``load_params(layer, w, b)``, ``return layer``)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report


@pytest.fixture(autouse=True)
def _torch_read_from_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Linear: what it builds)


SOURCE = """
import torch
from torch import nn


def {setter}


class Held(nn.Module):
    def __init__(self, w, b):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)
        load(self.fc, w, b)


def make_linear(w, b):
    layer = nn.Linear(1024, 1024)
    load(layer, w, b)
    return layer


class Built(nn.Module):
    def __init__(self, w, b):
        super().__init__()
        self.fc = make_linear(w, b)
"""

SETS_BOTH = """load(layer, weight, bias):
    layer.weight.data = torch.as_tensor(weight)
    if bias is not None:
        layer.bias.data = torch.as_tensor(bias)
"""


def _lines(report: Report) -> list[tuple[int, str, str]]:
    return [(d.line, d.code, d.severity) for d in report.diagnostics]


def _line(text: str, setter: str = SETS_BOTH) -> int:
    return SOURCE.format(setter=setter).splitlines().index(text) + 1


def test_a_setter_call_replaces_the_parts_it_sets(check_source: Callable[..., Report]) -> None:
    found = _lines(check_source(SOURCE.format(setter=SETS_BOTH)))
    # (the 4 MiB weight, set on every path; the bias only when one is given)
    assert found == [
        (_line("        load(self.fc, w, b)"), "IL005", "error"),
        (_line("    load(layer, w, b)"), "IL005", "error"),
    ]


@pytest.mark.parametrize(
    "setter",
    [
        # the new numbers are made from the old ones
        "load(layer, weight, bias):\n    layer.weight.data = layer.weight.data * weight\n",
        # the function does more with the object: it may keep or read it
        "load(layer, weight, bias):\n    print(layer)\n    layer.weight.data = weight\n",
        # it may end before it sets anything
        "load(layer, weight, bias):\n    if weight is None:\n        return\n"
        "    layer.weight.data = weight\n",
        # set only on some paths
        "load(layer, weight, bias):\n    if weight is not None:\n"
        "        layer.weight.data = weight\n",
    ],
)
def test_no_replacement_claimed_for_any_other_function(
    check_source: Callable[..., Report], setter: str
) -> None:
    assert _lines(check_source(SOURCE.format(setter=setter))) == []

"""A whole fill of a held module's tensor that the module's own construction filled, by its
own code, throws that fill away (``self.proj = Proj(d)``, whose ``__init__`` ran
``trunc_normal_(self.weight)``, then ``nn.init.zeros_(self.proj.weight)``). torch's default
initialisation of a module the class builds, then one fill of its own, is not reported: that
is how a model chooses its initialisation."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
from functools import partial

import torch
from torch import nn


def trunc_init_(w, scale=1.0):
    with torch.no_grad():
        nn.init.trunc_normal_(w, std=scale)


class Proj(nn.Linear):
    def __init__(self, a, b, bias=True):
        super().__init__(a, b, bias=bias)
        trunc_init_(self.weight)


class Plain(nn.Linear):
    pass


ProjNoBias = partial(Proj, bias=False)


class Head(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.proj = {build}
        {between}
        nn.init.zeros_(self.proj.weight)
"""


@pytest.mark.parametrize(
    ("build", "between", "expected"),
    [
        ("Proj(d, d)", "pass", ["IL005"]),
        # a module-level ``functools.partial`` of the class builds that class
        ("ProjNoBias(d, d)", "pass", ["IL005"]),
        # torch's default initialisation, then the class's own: not reported
        ("nn.Linear(d, d)", "pass", []),
        ("Plain(d, d)", "pass", []),
        # the module is read in between: its fill was used
        ("Proj(d, d)", "self.scale = self.proj.weight.std()", []),
    ],
)
def test_a_fill_of_what_a_held_module_filled_throws_that_fill_away(
    check_source: Callable[..., Report], build: str, between: str, expected: list[str]
) -> None:
    found = check_source(CASE.format(build=build, between=between)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.proj.weight` by Proj.__init__" in d.message


PARTIAL_DEFAULT = """
from functools import partial

import torch
from torch import nn


class Norm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(d, d))


class Base(nn.Module):
    def __init__(self, d=64, norm_layer={default}):
        super().__init__()
        self.norm = norm_layer(d)


class Child(Base):
    def __init__(self, d=64):
        super().__init__(d)
        self.norm = Norm(d)
"""


@pytest.mark.parametrize(
    ("default", "severity"),
    [("Norm", "error"), ("partial(Norm, eps=1e-6)", "error"), ("nn.Identity", "warning")],
)
def test_a_partial_default_builds_what_it_names(
    check_source: Callable[..., Report], default: str, severity: str
) -> None:
    report = check_source(PARTIAL_DEFAULT.format(default=default))
    found = [(d.code, d.severity) for d in report.diagnostics]
    assert found == [("IL003", severity)]


SIZED = """
import torch
from torch import nn


class Inner(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        nn.init.xavier_uniform_(self.weight)


class Shaped(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.inner = Inner(d)
        self.width = self.inner.weight.shape[0]
        nn.init.zeros_(self.inner.weight)


class Summed(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.inner = Inner(d)
        self.total = self.inner.weight.sum()
        nn.init.zeros_(self.inner.weight)
"""


def test_a_shape_read_between_is_no_use_of_the_numbers(
    check_source: Callable[..., Report],
) -> None:
    found = [d.class_name.rsplit(".", 1)[-1] for d in check_source(SIZED).diagnostics]
    # (``.shape`` asks what the tensor is; ``.sum()`` reads its numbers)
    assert found == ["Shaped"]

"""A method run again on a module that is one of several classes (``Cls = A if fast else B``,
then ``self.emb = Cls(d)`` or ``nn.ModuleList(Cls(d) for ...)``) refills what the
construction of each of them filled: IL005, as for a module of one known class. When one
of the classes fills nothing there, nothing is reported. A ``torch.distributions`` object
holds the parameters it is given: rebuilding one from scalars is light (a warning)."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class A(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.lin.weight)


class B(A):
    pass


class Lazy(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.lin.weight)


class Net(nn.Module):
    def __init__(self, d, n, fast=False):
        super().__init__()
        Cls = A if fast else B
        self.emb = Cls(d)
        self.layers = nn.ModuleList(Cls(d) for _ in range(n))
        self.reset_parameters()

    def reset_parameters(self):
        self.emb.reset_parameters()
        for layer in self.layers:
            layer.reset_parameters()


class Mixed(nn.Module):
    def __init__(self, d, fast=False):
        super().__init__()
        Cls = A if fast else Lazy
        self.emb = Cls(d)
        self.emb.reset_parameters()


class Prior(nn.Module):
    def __init__(self, sigma=0.1):
        super().__init__()
        self.dist = torch.distributions.Normal(0, sigma)
        self.dist = torch.distributions.Normal(0, 2 * sigma)
"""


def _found(report: Report) -> list[tuple[str, str]]:
    """(severity, the statement's text) of each IL005 finding, in order."""
    lines = SOURCE.splitlines()
    return [
        (d.severity, lines[d.line - 1].strip()) for d in report.diagnostics if d.code == "IL005"
    ]


def test_a_module_of_one_of_several_classes_is_refilled(check_source: Callable[..., Report]):
    found = _found(check_source(SOURCE))
    assert ("error", "self.emb.reset_parameters()") in found
    assert ("error", "layer.reset_parameters()") in found


def test_no_refill_when_one_of_the_classes_filled_nothing(check_source):
    # (``Mixed``: ``Lazy`` fills nothing in its construction; the only statement of this
    # shape outside ``Net`` is its ``self.emb.reset_parameters()``)
    found = _found(check_source(SOURCE))
    assert found.count(("error", "self.emb.reset_parameters()")) == 1, found


def test_a_distribution_rebuilt_from_scalars_is_light(check_source):
    found = _found(check_source(SOURCE))
    assert ("warning", "self.dist = torch.distributions.Normal(0, 2 * sigma)") in found
    assert len(found) == 3, found

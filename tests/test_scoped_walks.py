"""A loop over a held container (``for linear in self.linears:``) walks its items, as
``self.linears.children()`` does; a walk scoped to one held module (``self.linears.modules()``)
reaches the modules under it. What such a pass fills in a module's construction is filled
again when its owner runs the method once more (IL005). A children walk does not reach
grandchildren: what it cannot fill is not reported as refilled."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
from torch import nn


class Iterated(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(d, d), nn.Linear(d, 2 * d)])
        self.reset_parameters()

    def reset_parameters(self):
        for linear in self.linears:
            nn.init.xavier_uniform_(linear.weight)


class Scoped(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d))
        self.reset_parameters()

    def reset_parameters(self):
        for m in self.body.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)


class Shallow(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(d, d))])
        self.reset_parameters()

    def reset_parameters(self):
        for block in self.blocks.children():
            if isinstance(block, nn.Linear):
                nn.init.xavier_uniform_(block.weight)


class Owner(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.a = Iterated(d)
        self.b = Scoped(d)
        self.c = Shallow(d)
        self.a.reset_parameters()
        self.b.reset_parameters()
        self.c.reset_parameters()
"""


def _found(report: Report) -> dict[str, str]:
    lines = SOURCE.splitlines()
    return {lines[d.line - 1].strip(): d.message for d in report.diagnostics if d.code == "IL005"}


def test_an_iterated_container_and_a_scoped_walk_fill_what_they_reach(
    check_source: Callable[..., Report],
) -> None:
    found = _found(check_source(SOURCE))
    assert (
        "`self.a.linears.0.weight` and `self.a.linears.1.weight`"
        in found["self.a.reset_parameters()"]
    )
    assert "`self.b.body.0.weight` and `self.b.body.2.weight`" in found["self.b.reset_parameters()"]


def test_a_children_walk_does_not_reach_grandchildren(check_source) -> None:
    found = _found(check_source(SOURCE))
    assert "self.c.reset_parameters()" not in found
    assert len(found) == 2, found

"""Parts left behind with a dropped local (IL005) that were unpacked from the same call as a
part kept: that call's work was needed anyway, so only what the part holds is lost, and its
size is not known (a warning); a part built by its own call stays priced by it."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


def grid(n):
    angles = torch.linspace(0, 1, n)
    table = torch.randn(n, n)
    return angles, table


class Grid(nn.Module):
    def __init__(self, n):
        super().__init__()
        angles, table = grid(n)
        self.register_buffer("angles", angles)
        self.register_buffer("table", table)
        self.register_buffer("weights", torch.randn(n, n))


class TakesTableAndWeights(nn.Module):
    def __init__(self, n):
        super().__init__()
        g = Grid(n)
        self.table = g.table
        self.weights = g.weights


class ReplacesTable(nn.Module):
    # Nothing the call made is kept: ``table`` is replaced, not taken.

    def __init__(self, n):
        super().__init__()
        g = Grid(n)
        g.table = torch.zeros(n, n)
        self.weights = g.weights


class TakesAngles(nn.Module):
    def __init__(self, n):
        super().__init__()
        g = Grid(n)
        self.angles = g.angles
"""


def test_a_part_sharing_its_call_with_a_kept_part(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE)
    left = [d for d in report.diagnostics if "`g.table`" not in d.message]
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in left}
    assert set(found) == {"TakesTableAndWeights", "TakesAngles", "ReplacesTable"}
    # (two findings there: the table replaced, and the angles left priced by their call)
    angles = [d for d in left if "`angles`" in d.message.split(" of the ")[0]]
    assert {d.class_name.rsplit(".", 1)[-1]: d.severity for d in angles} == {
        "TakesTableAndWeights": "warning",
        "ReplacesTable": "error",
    }
    # only ``angles`` is left, unpacked with the kept ``table``: its size is not known
    shared = found["TakesTableAndWeights"]
    assert shared.severity == "warning"
    assert "`angles`" in shared.message and "made parts that are kept too" in shared.message
    # ``weights`` is left too, built by a call of its own: the error is about it
    own = found["TakesAngles"]
    assert own.severity == "error"
    assert "leaves `weights` out" in own.no_fix

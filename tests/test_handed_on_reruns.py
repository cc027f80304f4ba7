"""A held module's method that its construction did not run, but that hands the run on to
modules it holds (``def reset_parameters(self): self.lin1.reset_parameters()``), run
again by the class: what those modules' constructions filled in that method is filled
anew (IL005), unless the method or the module's construction used them first."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Lin(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin1 = Lin(d, d)
        self.lin2 = Lin(d, d)
        {built}

    def reset_parameters(self):
        {before}
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = Block(d)
        for block in self.blocks:
            block.reset_parameters()
        self.head.reset_parameters()
"""


@pytest.mark.parametrize(
    ("built", "before", "expected", "refilled"),
    [
        ("pass", "pass", [35, 36], ["lin1", "lin2"]),
        # the method reads a part first: its numbers are used, the other's are not
        ("pass", "self.scale = self.lin1.weight.std()", [35, 36], ["lin2"]),
        # the block's construction filled the part again (its own finding): not followed
        ("nn.init.zeros_(self.lin1.weight)", "pass", [21, 35, 36], ["lin2"]),
        # the part replaced (its own finding): the one kept is filled again
        ("self.lin1 = Lin(d, 2 * d)", "pass", [21, 35, 36], ["lin1", "lin2"]),
    ],
)
def test_a_method_handing_the_run_on_refills_the_parts(
    check_source: Callable[..., Report],
    built: str,
    before: str,
    expected: list[int],
    refilled: list[str],
) -> None:
    found = check_source(SOURCE.format(built=built, before=before)).diagnostics
    assert [d.line for d in found] == expected
    assert {d.code for d in found} == {"IL005"}
    for d in found[-2:]:
        named = [p for p in ("lin1", "lin2") if f"{p}.weight`" in d.message]
        assert named == refilled


def test_a_guarded_hand_on_is_not_followed(check_source: Callable[..., Report]) -> None:
    source = SOURCE.format(built="pass", before="pass").replace(
        "        self.lin2.reset_parameters()",
        "        if self.lin2 is not None:\n            self.lin2.reset_parameters()",
    )
    found = check_source(source).diagnostics
    assert [d.code for d in found] == ["IL005", "IL005"]
    assert all("lin2" not in d.message and "lin1.weight" in d.message for d in found)

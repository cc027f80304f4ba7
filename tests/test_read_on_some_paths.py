"""A read of a tensor (or of the object holding it) that runs on some paths only keeps
the fill before it on those paths: on the others nothing read it, and a later fill or
replacement throws it away (IL005, possibly). A read on every path keeps it (no finding);
none at all leaves the finding definite. The same for the class's own fills, a held
module's own, a pass's and a part replaced."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

READ_ON_SOME = """
import torch
from torch import nn


class Held(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        nn.init.xavier_uniform_(self.fc.weight)
        {after}


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.held = Held(d)
        nn.init.orthogonal_(self.held.fc.weight)
"""


@pytest.mark.parametrize(
    ("after", "confidence"),
    [
        ("self.d = d", ["definite"]),
        # read on some paths of the held module's construction: thrown away on the others
        ("if d > 4:\n            self.s = float(self.fc.weight.sum())", ["possible"]),
        # read on every path: kept
        ("self.s = float(self.fc.weight.sum())", []),
    ],
)
def test_a_held_module_s_fill_read_on_some_paths_is_thrown_away_on_the_others(
    check_source: Callable[..., Report], after: str, confidence: list[str]
) -> None:
    diags = check_source(READ_ON_SOME.format(after=after)).diagnostics
    assert [(d.code, d.confidence) for d in diags] == [("IL005", c) for c in confidence]


PART_AFTER_SOME_READ = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, v, d):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(v, d))


class Model(nn.Module):
    def __init__(self, v, d, probe=False):
        super().__init__()
        self.emb = Table(v, d)
        self.out = Table(v, d)
        {between}
        self.out.weight = self.emb.weight
"""


@pytest.mark.parametrize(
    ("between", "confidence"),
    [
        ("pass", ["definite"]),
        # the replaced part's object used on some paths before: thrown away on the others
        ("if probe:\n            self.norm = float(self.out.weight.norm())", ["possible"]),
        ("self.norm = float(self.out.weight.norm())", []),
    ],
)
def test_a_part_replaced_after_a_use_on_some_paths_is_thrown_away_on_the_others(
    check_source: Callable[..., Report], between: str, confidence: list[str]
) -> None:
    diags = check_source(PART_AFTER_SOME_READ.format(between=between)).diagnostics
    assert [(d.code, d.confidence) for d in diags] == [("IL005", c) for c in confidence]


OWN = """
import torch
from torch import nn


def _init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight)


class Model(nn.Module):
    def __init__(self, d, probe=False):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        self.fc = nn.Linear(d, d)
        nn.init.normal_(self.w)
        nn.init.orthogonal_(self.fc.weight)
        {between}
        nn.init.zeros_(self.w)
        self.apply(_init)
"""


@pytest.mark.parametrize(
    ("between", "confidence"),
    [
        ("pass", ["definite", "definite"]),
        (
            "if probe:\n            self.s = float(self.w.sum() + self.fc.weight.sum())",
            ["possible", "possible"],
        ),
        ("if probe:\n            print(self.w, self.fc)", ["possible", "possible"]),
        ("self.s = float(self.w.sum() + self.fc.weight.sum())", []),
        # read in a loop's body: a loop is taken as run
        ("for k in range(2):\n            self.s = float(self.w.sum() + self.fc.weight.sum())", []),
    ],
)
def test_the_class_s_own_fills_read_on_some_paths_are_thrown_away_on_the_others(
    check_source: Callable[..., Report], between: str, confidence: list[str]
) -> None:
    diags = check_source(OWN.format(between=between)).diagnostics
    assert [(d.code, d.confidence) for d in diags] == [("IL005", c) for c in confidence]


SAME_BRANCH = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, d, probe=False):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d, d))
        nn.init.normal_(self.w)
        if probe:
            std = float(self.w.std())
            nn.init.normal_(self.w, std=std / d)
"""


def test_a_read_on_the_branch_of_the_second_fill_keeps_the_first(
    check_source: Callable[..., Report],
) -> None:
    # (the second fill runs only after the read: no path throws the first away)
    assert check_source(SAME_BRANCH).diagnostics == ()

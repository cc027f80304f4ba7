"""A fill of a local module's tensor is a fill of the part the module becomes
(``nn.init.normal_(fc.weight)``, then ``self.fc = fc`` or ``self.body = nn.Sequential(fc,
act)``); and an ancestor's fill of a part of a held module (``self.fc.weight``) is thrown
away by a later whole fill of it, as an ancestor's fill of the object's own tensor is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

OWNER_PASS = """
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d, h, deep=False):
        super().__init__()
        fc1 = nn.Conv2d(d, h, 1)
        {fill1}
        act = nn.ReLU()
        fc2 = nn.Conv2d(h, d, 1)
        {fill2}
        if deep:
            self.fwd = nn.Sequential(fc1, act, nn.Dropout2d(0.1), fc2)
        else:
            self.fwd = nn.Sequential(fc1, act, fc2)


class FFN(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.mlp = MLP(d, h)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Conv2d):
            nn.init.trunc_normal_(m.weight, std=0.02)
"""


@pytest.mark.parametrize(
    ("fill1", "fill2", "expected"),
    [
        ("nn.init.normal_(fc1.weight, std=0.1)", "nn.init.normal_(fc2.weight)", ["IL005"]),
        ("nn.init.normal_(fc1.weight, std=0.1)", "pass", ["IL005"]),
        # torch's default initialisation only: the pass is the one fill of the class's own
        ("pass", "pass", []),
        # part of the tensor: the rest keeps the default
        ("nn.init.zeros_(fc1.weight[0])", "pass", []),
        # under a test of its own: not on every path that stores the container
        ("if d > 4: nn.init.normal_(fc1.weight)", "pass", []),
    ],
)
def test_a_local_modules_fills_are_its_parts_fills(
    check_source: Callable[..., Report], fill1: str, fill2: str, expected: list[str]
) -> None:
    found = check_source(OWNER_PASS.format(fill1=fill1, fill2=fill2)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.mlp.fwd.0.weight`" in d.message


ANCESTOR_PART = """
import torch.nn as nn


class Proj(nn.Module):
    def __init__(self, d):
        super().__init__()
        {build}
        nn.init.zeros_(self.lin.bias)


class Sub(Proj):
    def __init__(self, d):
        super().__init__(d)
        {between}
        nn.init.{again}
"""


@pytest.mark.parametrize(
    ("build", "between", "again", "expected"),
    [
        (
            "self.lin = nn.Linear(d, d)\n        nn.init.xavier_uniform_(self.lin.weight)",
            "pass",
            "zeros_(self.lin.weight)",
            [("IL005", "error")],
        ),
        # through a local: the fill is the part's
        (
            "lin = nn.Linear(d, d)\n        nn.init.xavier_uniform_(lin.weight)\n"
            "        self.lin = lin",
            "pass",
            "zeros_(self.lin.weight)",
            [("IL005", "error")],
        ),
        # a vector: light
        (
            "self.lin = nn.Linear(d, d)",
            "pass",
            "constant_(self.lin.bias, 0.1)",
            [("IL005", "warning")],
        ),
        # what it is, not its numbers, read in between
        (
            "self.lin = nn.Linear(d, d)\n        nn.init.xavier_uniform_(self.lin.weight)",
            "n = self.lin.weight.shape[0]",
            "normal_(self.lin.weight, std=n ** -0.5)",
            [("IL005", "error")],
        ),
        # its numbers read in between: the fill was used
        (
            "self.lin = nn.Linear(d, d)\n        nn.init.xavier_uniform_(self.lin.weight)",
            "self.w0 = self.lin.weight.detach().clone()",
            "zeros_(self.lin.weight)",
            [],
        ),
        # torch's default initialisation only: one fill of the class's own
        ("self.lin = nn.Linear(d, d)", "pass", "zeros_(self.lin.weight)", []),
        # the module replaced in between (IL003's): another tensor, no refill
        (
            "self.lin = nn.Linear(d, d)\n        nn.init.xavier_uniform_(self.lin.weight)",
            "self.lin = nn.Linear(d, 2 * d)",
            "zeros_(self.lin.weight)",
            [("IL003", "error")],
        ),
    ],
)
def test_an_ancestors_fill_of_a_held_part_is_thrown_away_by_a_later_one(
    check_source: Callable[..., Report],
    build: str,
    between: str,
    again: str,
    expected: list[tuple[str, str]],
) -> None:
    source = ANCESTOR_PART.format(build=build, between=between, again=again)
    found = check_source(source).diagnostics
    assert [(d.code, d.severity) for d in found] == expected
    for d in found:
        assert d.code != "IL005" or "by Proj.__init__" in d.message


BRANCHES = """
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d, h, deep=False):
        super().__init__()
        fc1 = nn.Conv2d(d, h, 1)
        nn.init.normal_(fc1.weight, std=0.1)
        fc2 = nn.Conv2d(h, d, 1)
        if deep:
            self.fwd = nn.Sequential(fc1, nn.ReLU(), nn.Dropout2d(0.1), fc2)
        else:
            self.fwd = nn.Sequential(fc1, nn.ReLU(), fc2)


class FFN(nn.Module):
    def __init__(self, d, h, use_mlp=True):
        super().__init__()
        {build}
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Conv2d):
            nn.init.trunc_normal_(m.weight, std=0.02)
"""


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        # a constant equal to the default leaves the parameter at it: one branch is taken
        ("self.mlp = MLP(d, h, deep=False)", ["the initialisation of `self.mlp.fwd.0.weight`"]),
        ("self.mlp = MLP(d, h, False)", ["the initialisation of `self.mlp.fwd.0.weight`"]),
        # another value, not known to be either: which container is held is not known
        ("self.mlp = MLP(d, h, deep=d > 4)", []),
        # a module held on one branch of the class's own: possibly filled again
        (
            "if use_mlp:\n            self.mlp = MLP(d, h)\n        else:\n"
            "            self.mlp = nn.Conv2d(d, d, 1)",
            [
                "the initialisation of `self.mlp.fwd.0.weight` by MLP.__init__ at m.py:9 "
                "is possibly filled again"
            ],
        ),
    ],
)
def test_a_pass_over_modules_held_on_a_branch_or_built_with_defaults(
    check_source: Callable[..., Report], build: str, expected: list[str]
) -> None:
    found = check_source(BRANCHES.format(build=build)).diagnostics
    assert [d.code for d in found] == ["IL005"] * len(expected)
    for d, text in zip(found, expected, strict=True):
        assert d.message.startswith(text)

"""A method run again over the items of a container (``for b in self.body:
b.reset_parameters()``) reaches items however the container got them: a comprehension
starred into ``nn.Sequential(*[Block(d) for _ in range(n)])``, or appends of a local bound
on both branches of an ``if`` to calls of one class."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.lin.weight)


class Other(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.lin.weight)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        {build}
        self.reset_parameters()

    def reset_parameters(self):
        for block in self.body:
            block.reset_parameters()
"""

BRANCHES = """self.body = nn.ModuleList()
        for i in range(n):
            if i == 0:
                layer = {first}(d)
            else:
                layer = {second}(2 * d)
            self.body.append(layer)"""


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        ("self.body = nn.Sequential(*[Block(d) for _ in range(n)])", ["IL005"]),
        ("self.body = nn.ModuleList([Block(d) for _ in range(n)])", ["IL005"]),
        # a construction that never ran the method: nothing to throw away
        ("self.body = nn.Sequential(*[Other(d) for _ in range(n)])", []),
        (BRANCHES.format(first="Block", second="Block"), ["IL005"]),
        # which class an item is depends on the branch: not followed
        (BRANCHES.format(first="Block", second="Other"), []),
    ],
)
def test_a_method_run_again_over_container_items(
    check_source: Callable[..., Report], build: str, expected: list[str]
) -> None:
    found = check_source(CASE.format(build=build)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert "`self.body.*.lin.weight` by Block.reset_parameters" in d.message


INDEXED = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.lin.weight)


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.decoder = {container}
        self.decoder[{index}].reset_parameters()
"""


@pytest.mark.parametrize(
    ("container", "index", "expected"),
    [
        ("nn.Sequential(nn.ReLU(), Block(d))", "1", "`self.decoder.1.lin.weight`"),
        ("nn.Sequential(nn.ReLU(), Block(d))", "-1", "`self.decoder.1.lin.weight`"),
        # an index past the end, or items of no known number: nothing claimed
        ("nn.Sequential(nn.ReLU(), Block(d))", "2", ""),
        ("nn.ModuleList([Block(d) for _ in range(3)])", "0", ""),
    ],
)
def test_a_method_run_again_on_one_item(
    check_source: Callable[..., Report], container: str, index: str, expected: str
) -> None:
    found = check_source(INDEXED.format(container=container, index=index)).diagnostics
    assert [d.code for d in found] == (["IL005"] if expected else [])
    for d in found:
        assert expected in d.message

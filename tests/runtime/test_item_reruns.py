"""A method run again over the items of a container the class built (``for b in
self.blocks: b.reset()``), after each item's construction ran it: the parts that first run
built are built anew and the first ones thrown away (IL005), as for one held module. Items
put in with ``self.blocks += [block]`` are items as ``append`` puts them. Checked against
what constructing each class registers and ends up holding."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.reset()

    def reset(self):
        self.proj = nn.Linear(self.d, 4 * self.d)


class LazyBlock(nn.Module):
    # builds its part only where it has none: a second run keeps the first

    def __init__(self, d):
        super().__init__()
        self.d = d
        self.proj = None
        self.reset()

    def reset(self):
        if self.proj is None:
            self.proj = nn.Linear(self.d, 4 * self.d)


class AliasBlock(Block):
    # keeps the first run's part under a second name

    def __init__(self, d):
        super().__init__(d)
        self.first = self.proj


class Listed(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        for b in self.blocks:
            b.reset()


class Added(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(n):
            block = Block(d)
            self.blocks += [block]
        self.reset()

    def reset(self):
        for b in self.blocks:
            b.reset()


class LazyListed(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList([LazyBlock(d) for _ in range(n)])
        for b in self.blocks:
            b.reset()


class AliasListed(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList([AliasBlock(d) for _ in range(n)])
        for b in self.blocks:
            b.reset()


class UsedFirst(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.sizes = [b.proj.out_features for b in self.blocks]
        for b in self.blocks:
            b.reset()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("item_reruns", SOURCE)


def test_a_rerun_over_each_item_throws_away_what_the_first_run_built(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {
        d.class_name.rpartition(".")[2]: (d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {
        "Listed": ("IL005", "error", "self.blocks.*.proj"),
        "Added": ("IL005", "error", "self.blocks.*.proj"),
    }
    m = importlib.import_module("item_reruns")
    first = {("weight", (2048, 512)), ("bias", (2048,))}
    assert lost(m.Listed) == first
    assert lost(m.Added) == first
    # (UsedFirst throws the first parts away too, after reading them: not reported)
    assert lost(m.UsedFirst) == first
    # a part built only where there is none, or kept under another name, is not lost
    assert lost(m.LazyListed) == set()
    assert lost(m.AliasListed) == set()

"""A class held by a local (``build_block = SEBlock if se else Block``, or bound on two
branches) is the class a call of it builds: the items a container gets from it are
followed into their constructions like items built by the class's own name. Where the
local may hold several classes, a pass after them refills only what every one of them
filled. Checked at runtime: the weights are filled twice on every choice, or once on
one of them."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import fills_per_tensor  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


def init_linear(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)


class Mlp(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.apply(init_linear)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = Mlp(d)


class SEBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = Mlp(d)
        self.norm = nn.LayerNorm(d)


class PlainBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)


class Branches(nn.Module):
    def __init__(self, d=512, depth=2, se=False):
        super().__init__()
        if se:
            build_block = SEBlock
        else:
            build_block = Block
        self.blocks = nn.ModuleList([])
        for _ in range(depth):
            self.blocks.append(build_block(d))
        self.apply(init_linear)


class Aliased(nn.Module):
    def __init__(self, d=512, depth=2):
        super().__init__()
        build_block = Block
        self.blocks = nn.ModuleList([build_block(d) for _ in range(depth)])
        self.apply(init_linear)


class CondFill(nn.Module):
    def __init__(self, d, init=True):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, d))
        if init:
            self.apply(init_linear)


def make_nofill(d):
    return CondFill(d, init=False)


class FactoryAlias(nn.Module):
    def __init__(self, d=512, depth=2):
        super().__init__()
        build = make_nofill
        self.blocks = nn.ModuleList([build(d) for _ in range(depth)])
        self.apply(init_linear)


class OneFills(nn.Module):
    def __init__(self, d=512, depth=2, plain=False):
        super().__init__()
        build_block = PlainBlock if plain else Block
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(build_block(d))
        self.apply(init_linear)
"""


def _fills(make: Callable[[], object]) -> list[int]:
    """How many times each weight of the object ``make`` builds is drawn."""
    obj, fills = fills_per_tensor("trunc_normal_", make)
    weights = [p for n, p in obj.named_parameters() if n.endswith("weight") and p.dim() == 2]
    return [fills[id(w)] for w in weights]


def _outer_pass_lines(names: tuple[str, ...]) -> set[int]:
    """The line of the last ``self.apply(init_linear)`` of each class named."""
    lines = SOURCE.splitlines()
    out = set()
    for name in names:
        start = next(i for i, t in enumerate(lines) if t.startswith(f"class {name}("))
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("class ")), len(lines)
        )
        out.add(
            max(i for i in range(start, end) if lines[i].endswith("self.apply(init_linear)")) + 1
        )
    return out


def test_items_built_through_a_local_class_are_followed(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("aliased_blocks", SOURCE)
    m = importlib.import_module("aliased_blocks")
    # (runtime: every Mlp weight filled twice, on both choices and through the alias)
    assert set(_fills(lambda: m.Branches())) == {2}
    assert set(_fills(lambda: m.Branches(se=True))) == {2}
    assert set(_fills(lambda: m.Aliased())) == {2}
    found = [d for d in check([root], cwd=root, use_cache=False).diagnostics if d.code == "IL005"]
    outer = {d.line for d in found if "self.blocks.*.mlp.fc1.weight" in d.message}
    assert outer == _outer_pass_lines(("Branches", "Aliased"))
    assert all(d.severity == "error" for d in found if d.line in outer)


def test_a_choice_that_fills_nothing_keeps_the_pass_unreported(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("aliased_one_fills", SOURCE)
    m = importlib.import_module("aliased_one_fills")
    # (runtime: PlainBlock's weight is drawn once, by the pass: nothing thrown away there)
    assert set(_fills(lambda: m.OneFills(plain=True))) == {1}
    assert set(_fills(lambda: m.OneFills())) == {2}
    found = check([root], cwd=root, use_cache=False).diagnostics
    assert not [d for d in found if d.line in _outer_pass_lines(("OneFills",))]


def test_a_local_holding_a_factory_builds_what_the_factory_passes(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("aliased_factory", SOURCE)
    m = importlib.import_module("aliased_factory")
    # (runtime: the factory turns CondFill's own pass off: the outer pass is the only fill)
    assert set(_fills(lambda: m.FactoryAlias())) == {1}
    found = check([root], cwd=root, use_cache=False).diagnostics
    assert not [d for d in found if d.line in _outer_pass_lines(("FactoryAlias",))]

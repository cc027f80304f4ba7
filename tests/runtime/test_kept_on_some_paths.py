"""A local built on every path and kept only on some (``extra = Sep(n)``, stored under
``if arch in (1,)`` / ``elif arch in (2, 3)``, dropped on the ``else``), and a template
handed to a class that keeps only deep copies with the result bound back to its local
(``enc = Wrap(enc, ratios)`` under ``if multi:``): on the paths that drop the object, its
construction is thrown away (IL005, possible). Kept on every arm, or on every path that does
not raise, nothing is reported. Checked against construction, on each path: the parameters
reported are those the object registered and no longer holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, lost  # noqa: E402

SOURCE = """
from copy import deepcopy

from torch import nn


class Sep(nn.Module):
    def __init__(self, n=256):
        super().__init__()
        self.conv = nn.Conv2d(n, n, 3)


class Pyramid(nn.Module):
    def __init__(self, n=256, arch=0):
        super().__init__()
        extra = Sep(n)
        self.conv2 = nn.Conv2d(n, n, 1)
        if arch in (1,):
            self.conv6 = extra
        elif arch in (2, 3):
            self.conv6 = extra
            self.conv7 = extra


class EveryArm(nn.Module):
    def __init__(self, n=256, flag=False):
        super().__init__()
        extra = Sep(n)
        if flag:
            self.a = extra
        else:
            self.b = extra


class OrRaise(nn.Module):
    def __init__(self, n=256, flag=True):
        super().__init__()
        extra = Sep(n)
        if flag:
            self.a = extra
        else:
            raise ValueError(flag)


class Wrap(nn.Module):
    def __init__(self, layer, ratios):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(len(ratios) + 1):
            self.layers.append(deepcopy(layer))


class Encoder(nn.Module):
    def __init__(self, n=256, depth=2, multi=None):
        super().__init__()
        self.encoder = nn.ModuleList()
        for _ in range(depth):
            enc = Sep(n)
            if multi:
                enc = Wrap(enc, multi)
            self.encoder.append(enc)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("some_paths", SOURCE)


def test_an_object_kept_on_some_paths_is_thrown_away_on_the_others(module: Path) -> None:
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.confidence, d.message.split("`")[1])
        for d in diagnostics(module)
    }
    assert found == {
        ("Pyramid", "IL005", "possible", "conv"),
        ("Encoder", "IL005", "possible", "conv"),
    }
    m = importlib.import_module("some_paths")
    conv = {("weight", (256, 256, 3, 3)), ("bias", (256,))}
    assert lost(lambda: m.Pyramid(arch=0)) == conv
    assert lost(lambda: m.Pyramid(arch=2)) == set()
    assert lost(lambda: m.EveryArm(flag=True)) == set()
    assert lost(m.OrRaise) == set()
    assert lost(lambda: m.Encoder(multi=[0.5])) == conv  # (one per layer, the same shapes)
    assert lost(m.Encoder) == set()

"""A slice of the modules an object built into a local registers,
``nn.Sequential(*list(net.children())[:-2])``, keeps those children, in the order its
construction registered them, and drops the rest with the local (IL005), as taking
``net.layer4`` does; so does one that replaces the self attribute holding the object
(``self.net = nn.Sequential(*list(self.net.children())[:-2])``). The order comes from the
simulated construction: a module stored on some paths only, or a costly value that may or
may not be a module, leaves it unknown after that store, and a slice that reaches past it
claims nothing (one that ends before it keeps the children there). Checked against
construction: the parameters reported are those the object registered and no longer
holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width=8, classes=100, norm_layer=None, extra=False):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, 3)
        self.bn1 = norm_layer(width)
        self.relu = nn.ReLU()
        self.layer1 = self._make_layer(width)
        if extra:
            self.extra = nn.Conv2d(width, width, 3)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width, classes)

    def _make_layer(self, width):
        return nn.Sequential(nn.Conv2d(width, width, 3), nn.ReLU())


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        model = Net()
        self.body = nn.Sequential(*list(model.children())[:-2])


class Listed(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        modules = [*net.children()][:-1]
        self.body = nn.Sequential(*modules)


def trunk():
    model = Net()
    return nn.Sequential(*list(model.children())[:-2])


class FromFactory(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = trunk()


class Everything(nn.Module):
    def __init__(self):
        super().__init__()
        model = Net()
        self.body = nn.Sequential(*list(model.children())[0:])


class KeptWhole(nn.Module):
    def __init__(self):
        super().__init__()
        model = Net()
        self.body = nn.Sequential(*list(model.children())[:-2])
        self.full = model


class SomePaths(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        model = Net(extra=extra)
        self.body = nn.Sequential(*list(model.children())[:-2])


class Replaced(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net = nn.Sequential(*list(self.net.children())[:-2])


class ItemFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net.layer1[0] = nn.Conv2d(8, 8, 5)
        self.net = nn.Sequential(*list(self.net.children())[:-2])


class ReplacedKeepsFc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net = nn.Sequential(*list(self.net.children())[:-2], self.net.fc)


class Front(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        model = Net(extra=extra)
        self.body = nn.Sequential(*list(model.children())[:2])


class ReplacedOnSomePaths(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.net = Net(extra=extra)
        self.net = nn.Sequential(*list(self.net.children())[:-2])
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("children_slices", SOURCE)


def test_a_slice_of_children_keeps_those(module: Path) -> None:
    found = reported(module)
    # (the factory's finding is the function's own; where the extra module may be there,
    # which children the slice keeps is not known: nothing is claimed)
    assert found == {
        ("Trunk", "IL005", "error", "fc"),
        ("Listed", "IL005", "error", "fc"),
        ("trunk", "IL005", "error", "fc"),
        ("Replaced", "IL005", "error", "self.net.fc"),
        ("ItemFirst", "IL005", "error", "self.net.fc"),
        ("Front", "IL005", "error", "fc"),
    }
    m = importlib.import_module("children_slices")
    fc = {("weight", (100, 8)), ("bias", (100,))}
    assert lost(m.Trunk) == fc
    assert lost(m.Listed) == fc
    assert lost(m.FromFactory) == fc
    assert lost(m.Everything) == set()
    assert lost(m.KeptWhole) == set()
    # (on the path with the extra module, the slice keeps it and drops the pool and fc)
    assert lost(m.SomePaths) == fc
    # (the object a self attribute held, replaced by a slice of its own children)
    assert lost(m.Replaced) == fc
    # (an item of a part replaced first reads the object only to reach the part)
    assert lost(m.ItemFirst) == fc | {("weight", (8, 8, 3, 3)), ("bias", (8,))}
    assert lost(m.ReplacedKeepsFc) == set()
    assert lost(m.ReplacedOnSomePaths) == fc
    # (the two children before the one stored on some paths: the stage and fc are dropped)
    assert lost(m.Front) == fc | {("weight", (8, 8, 3, 3)), ("bias", (8,))}

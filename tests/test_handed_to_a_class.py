"""An object built into a local and handed to a class whose ``__init__`` only takes parts of
it (``ResnetDilated(orig_resnet)`` keeping its convolutions and layers) leaves the other
parts behind: the object itself goes nowhere, so their builds are thrown away (IL005).
A class that keeps the object, hands it on, runs a method of it or takes one (a bound
method holds the object) keeps it whole, and so does a construction that is more than its
``__init__`` chain (a ``__new__``, a metaclass, a dataclass's own ``__init__``), or a name the
function binds that only looks like the class. A
namespace's ``__dict__`` read with a literal key (``zoo.__dict__["backbone"]()``) is the
attribute it names, as Python finds it."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

ZOO = """
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.body = nn.Conv2d(64, 256, 3)
        self.fc = nn.Linear(2048, 1000)


def backbone():
    return Backbone()
"""

SOURCE = """
from dataclasses import dataclass

import torch.nn as nn

from pkg import zoo


class TakesParts(nn.Module):
    def __init__(self, net, scale=8):
        super().__init__()
        if scale == 8:
            net.body.apply(print)
        self.stem = net.stem
        self.body = net.body
        self.width = net.fc.in_features


class KeepsIt(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.stem = net.stem
        self.net = net


class RunsAMethod(nn.Module):
    def __init__(self, net):
        super().__init__()
        net.eval()
        self.stem = net.stem


def takes_parts(net):
    return nn.Sequential(net.stem, net.body)


class BoundMethod(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.stem = net.stem
        self.run_backbone = net.forward


class KeepsInNew(nn.Module):
    def __new__(cls, net):
        obj = super().__new__(cls)
        obj.__dict__["_orig"] = net
        return obj

    def __init__(self, net):
        super().__init__()
        self.stem = net.stem


class Meta(type):
    def __call__(cls, net):
        REGISTRY.append(net)
        return super().__call__(net)


REGISTRY = []


class Registered(nn.Module, metaclass=Meta):
    def __init__(self, net):
        super().__init__()
        self.stem = net.stem


class TakesStem:
    def __init__(self, net):
        self.stem = net.stem


@dataclass
class Holder(TakesStem):
    net: nn.Module


class ByParameter(nn.Module):
    def __init__(self, TakesParts=KeepsIt):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = TakesParts(net)


class ThroughBoundMethod(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = BoundMethod(net)


class ThroughNew(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = KeepsInNew(net)


class ThroughMetaclass(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = Registered(net)


class ThroughDataclass(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = Holder(net)


class Dilated(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.__dict__["backbone"]()
        self.encoder = TakesParts(net, scale=8)


class ByKeyword(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = TakesParts(scale=16, net=net)


class Kept(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = KeepsIt(net)


class MethodRun(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = RunsAMethod(net)


class ToAFunction(nn.Module):
    def __init__(self):
        super().__init__()
        net = zoo.Backbone()
        self.encoder = takes_parts(net)
"""


@pytest.fixture
def found(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch
) -> dict[str, list[str]]:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules, read from their source)
    check_source(ZOO, "pkg/zoo.py")
    report = check_source(SOURCE, "pkg/models.py")
    out: dict[str, list[str]] = {}
    for d in report.diagnostics:
        out.setdefault(d.class_name.rsplit(".", 1)[-1], []).append(f"{d.code} {d.message}")
    return out


def test_the_parts_a_class_leaves_of_an_object_handed_to_it_are_thrown_away(
    found: dict[str, list[str]],
) -> None:
    [dilated] = found["Dilated"]
    assert dilated.startswith("IL005 `fc` of the object `backbone(...)`")
    assert "`net`" in dilated and "never kept" in dilated
    [by_keyword] = found["ByKeyword"]
    assert by_keyword.startswith("IL005 `fc` of the object `Backbone(...)`")


@pytest.mark.parametrize(
    "name",
    [
        "Kept",
        "MethodRun",
        "ToAFunction",
        "ByParameter",
        "ThroughBoundMethod",
        "ThroughNew",
        "ThroughMetaclass",
        "ThroughDataclass",
    ],
)
def test_an_object_kept_or_used_whole_by_what_it_is_handed_to_is_kept(
    found: dict[str, list[str]], name: str
) -> None:
    assert name not in found

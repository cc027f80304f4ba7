"""A part replaced by a slice of its own items (``self.vgg.classifier =
nn.Sequential(*self.vgg.classifier[:-2])``) throws away the items the slice leaves out
(IL005), on an object stored on ``self`` and on one built into a local: checked against the
parameters the construction registered and the object does not hold."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=8, n=10):
        super().__init__()
        self.stem = nn.Linear(d, d)
        self.head = nn.Sequential(
            nn.Linear(d, 2 * d),
            nn.ReLU(),
            nn.Dropout(),
            nn.Linear(2 * d, n),
        )


def make(**kwargs):
    return Net(**kwargs)


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net.head = nn.Sequential(*self.net.head[:-2])


class LocalFeatures(nn.Module):
    def __init__(self):
        super().__init__()
        net = make(n=4)
        net.head = net.head[:3]
        self.net = net


class Light(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net.head = nn.Sequential(*self.net.head[:2], self.net.head[3])


def wrap(*modules):
    return nn.Sequential(*[m for m in modules if m is not None])


class Given(nn.Module):
    def __init__(self, net=None):
        super().__init__()
        if net is None:
            net = make()
            net.head = wrap(*net.head[:-1])
        self.net = net


class Whole(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.net.head = nn.Sequential(*self.net.head[:])
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("sliced_parts", SOURCE)


def test_the_items_a_slice_leaves_out_are_lost(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (d.line, d.code, d.severity, d.message.split(" of ")[0]) for d in report.diagnostics
    )
    # the last Linear left out, on self, on a local and on a parameter rebound by a call
    # (possibly: under its guard), a project function given the slice alone; not a value
    # that is no plain slice of the part, nor a slice that keeps every item
    assert found == [
        (25, "IL005", "error", "items 2, 3"),
        (32, "IL005", "error", "item 3"),
        (52, "IL005", "error", "item 3"),
    ]
    m = importlib.import_module("sliced_parts")
    assert lost(lambda: m.Features()) == {("weight", (10, 16)), ("bias", (10,))}
    assert lost(lambda: m.LocalFeatures()) == {("weight", (4, 16)), ("bias", (4,))}
    assert lost(lambda: m.Given()) == {("weight", (10, 16)), ("bias", (10,))}
    assert lost(lambda: m.Given(net=m.Net())) == set()
    assert lost(lambda: m.Whole()) == set()

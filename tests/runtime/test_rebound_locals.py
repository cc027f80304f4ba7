"""A local bound again on every path drops the object it held there: the parts of that
object the frame took until then are kept, the rest are thrown away (IL005), as at the
end of the frame. ``net = nn.Sequential(*list(net.children())[:-1])`` keeps the children
the slice names; ``net = net.body`` keeps the body. A local handed on whole (``net =
Wrap(net)``), moved in place (``net = net.to(...)``) or aliased before the rebinding keeps
the whole object, and nothing is claimed. Checked against construction: the parameters
reported are those the object registered and no longer holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
        self.fc = nn.Linear(512, 1000)


class Wrap(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner


class Sliced(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        net = nn.Sequential(*list(net.children())[:-1])
        self.backbone = net


class InHelper(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = self._backbone()

    def _backbone(self):
        net = Net()
        net = nn.Sequential(*list(net.children())[:-1])
        return net


class PartTaken(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        net = net.body
        self.body = net


class Wrapped(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        net = Wrap(net)
        self.net = net


class Moved(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        net = net.to("cpu")
        self.net = net


class Aliased(nn.Module):
    def __init__(self):
        super().__init__()
        net = Net()
        self.full = net
        net = net.body
        self.body = net
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("rebound_locals", SOURCE)


def test_a_local_bound_again_drops_what_it_held(module: Path) -> None:
    assert reported(module) == {
        ("Sliced", "IL005", "error", "fc"),
        ("InHelper", "IL005", "error", "fc"),
        ("PartTaken", "IL005", "error", "fc"),
    }
    m = importlib.import_module("rebound_locals")
    fc = {("weight", (1000, 512)), ("bias", (1000,))}
    assert lost(m.Sliced) == fc
    assert lost(m.InHelper) == fc
    assert lost(m.PartTaken) == fc
    assert lost(m.Wrapped) == set()
    assert lost(m.Moved) == set()
    assert lost(m.Aliased) == set()

"""What a factory the construction calls deletes or replaces of the object it builds, and
what each branch's object leaves behind when a local is bound on each branch and kept in
part (IL005): checked against the parameters the construction registered and the object
does not hold."""

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
    def __init__(self, d=512, n=1024):
        super().__init__()
        self.wte = nn.Embedding(n, d)
        self.features = nn.Linear(d, d)
        self.fc = nn.Linear(d, 4 * d)


def build(d=512):
    net = Net(d)
    del net.wte
    net.fc = nn.Linear(d, 2 * d)
    return net


class Model(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.net = build(d)


class Encoder(nn.Module):
    def __init__(self, fresh=True, d=512):
        super().__init__()
        if fresh:
            net = Net(d)
        else:
            net = build(d)
        self.body = nn.Sequential(net.features)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("factory_parts", SOURCE)


def test_a_factorys_and_each_branchs_lost_parts(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted((d.line, d.code, d.message.split(" ", 1)[0]) for d in report.diagnostics)
    # the factory's deletion and replacement (once, for every class that runs it), and the
    # ``fc`` each branch's object leaves: with ``wte`` for the class built here, ``fc`` alone
    # for the factory's object, which no longer holds the ``wte`` the factory deleted
    assert found == [
        (15, "IL005", "`net.wte`"),
        (16, "IL005", "`net.fc`"),
        (30, "IL005", "`fc`,"),
        (32, "IL005", "`fc`"),
    ]
    factory_left = next(d for d in report.diagnostics if d.line == 32)
    assert "wte" not in factory_left.message
    m = importlib.import_module("factory_parts")
    assert lost(lambda: m.Model()) == {
        ("weight", (1024, 512)),
        ("weight", (2048, 512)),
        ("bias", (2048,)),
    }
    fresh = lost(lambda: m.Encoder(fresh=True))
    assert {("weight", (2048, 512)), ("bias", (2048,))} <= fresh  # (the first branch's ``fc``)
    built = lost(lambda: m.Encoder(fresh=False))
    assert {("weight", (1024, 512)), ("bias", (1024,))} <= built  # (the factory's new ``fc``)

"""A ``raise`` statement ends the paths its guards take: work on every arm of ``if`` /
``elif`` / ``else: raise`` runs on every path that builds an object. A fill made on each
arm is then a fill on every path, and a pass that fills the tensor again throws it away
(IL005, not "possibly"); a build replaced on each arm is thrown away on every path (a safe
fix). A raise that may be caught (inside ``try``) ends no path. Checked against
construction: the tensors reported are filled twice, and the builds reported are lost."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, lost  # noqa: E402

from initlint.api import check, fix  # noqa: E402

SOURCE = """
from torch import nn


class Block(nn.Module):
    def __init__(self, d=512, rank=4, mode="random"):
        super().__init__()
        self.dt = nn.Linear(rank, d)
        std = rank ** -0.5
        if mode == "constant":
            nn.init.constant_(self.dt.weight, std)
        elif mode == "random":
            nn.init.uniform_(self.dt.weight, -std, std)
        else:
            raise NotImplementedError(mode)


class Open(nn.Module):
    def __init__(self, d=512, rank=4, mode="random"):
        super().__init__()
        self.dt = nn.Linear(rank, d)
        std = rank ** -0.5
        if mode == "constant":
            nn.init.constant_(self.dt.weight, std)
        elif mode == "random":
            nn.init.uniform_(self.dt.weight, -std, std)


class Caught(nn.Module):
    def __init__(self, d=512, rank=4, mode="random"):
        super().__init__()
        self.dt = nn.Linear(rank, d)
        std = rank ** -0.5
        try:
            if mode == "constant":
                nn.init.constant_(self.dt.weight, std)
            elif mode == "random":
                nn.init.uniform_(self.dt.weight, -std, std)
            else:
                raise NotImplementedError(mode)
        except NotImplementedError:
            pass


class Net(nn.Module):
    def __init__(self, n=2, mode="random"):
        super().__init__()
        self.layers = nn.ModuleList([Block(mode=mode) for _ in range(n)])
        self.apply(init)


class OpenNet(nn.Module):
    def __init__(self, n=2, mode="random"):
        super().__init__()
        self.layers = nn.ModuleList([Open(mode=mode) for _ in range(n)])
        self.apply(init)


class CaughtNet(nn.Module):
    def __init__(self, n=2, mode="random"):
        super().__init__()
        self.layers = nn.ModuleList([Caught(mode=mode) for _ in range(n)])
        self.apply(init)


def init(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)


class Head(nn.Module):
    def __init__(self, d=512, kind="wide"):
        super().__init__()
        self.proj = nn.Linear(d, 4 * d)
        if kind == "wide":
            self.proj = nn.Linear(d, 8 * d)
        elif kind == "narrow":
            self.proj = nn.Linear(d, 2 * d)
        else:
            raise ValueError(kind)


class OpenHead(nn.Module):
    def __init__(self, d=512, kind="wide"):
        super().__init__()
        self.proj = nn.Linear(d, 4 * d)
        if kind == "wide":
            self.proj = nn.Linear(d, 8 * d)
        elif kind == "narrow":
            self.proj = nn.Linear(d, 2 * d)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("raise_ends_paths", SOURCE)


def test_work_on_every_arm_that_does_not_raise(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (
            d.class_name.rsplit(".", 1)[-1],
            d.line,
            d.severity,
            d.fix is not None,
            "possibly" in d.message,
        )
        for d in report.diagnostics
    )
    # the fill on each arm, then the pass: on every path (not "possibly"); with no raise
    # on the last arm, or a raise that is caught, one path has no fill of the class's own:
    # the pass's fill is then torch's default and one project fill, not reported. The
    # build replaced on each arm: thrown away on every path, a safe fix; without the
    # raise, possibly, and no fix (the first build is what the third path keeps).
    assert found == [
        ("Head", 76, "error", True, False),
        ("Net", 49, "error", False, False),
        ("OpenHead", 88, "error", False, True),
    ]
    m = importlib.import_module("raise_ends_paths")
    path = str(module / "raise_ends_paths.py")
    for mode in ("constant", "random"):
        assert filled_twice(lambda mode=mode: m.Net(mode=mode), path) == {"layers.*.dt.weight"}
    assert filled_twice(lambda: m.OpenNet(mode="other"), path) == set()
    assert filled_twice(lambda: m.CaughtNet(mode="other"), path) == set()
    with pytest.raises(NotImplementedError):
        m.Net(mode="other")
    first = {("weight", (2048, 512)), ("bias", (2048,))}
    for kind in ("wide", "narrow"):
        assert lost(lambda kind=kind: m.Head(kind=kind)) == first
    assert lost(lambda: m.OpenHead(kind="other")) == set()


def test_the_fix_keeps_what_every_path_ends_with(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    m = importlib.import_module("raise_ends_paths")
    before = {kind: m.Head(kind=kind).proj.weight.shape for kind in ("wide", "narrow")}
    fix([module], cwd=module, use_cache=False)
    fixed = importlib.reload(m)
    # (Head's first build deleted; OpenHead's kept: it is what one path ends with)
    assert (module / "raise_ends_paths.py").read_text().count("nn.Linear(d, 4 * d)") == 1
    for kind, shape in before.items():
        assert fixed.Head(kind=kind).proj.weight.shape == shape
        assert lost(lambda kind=kind: fixed.Head(kind=kind)) == set()
    with pytest.raises(ValueError):
        fixed.Head(kind="other")
    assert fixed.OpenHead(kind="other").proj.weight.shape == (2048, 512)

"""Templates the construction builds only to deep-copy, in the shapes beside the plain
local: handed to a function of the project that returns copies of it
(``_get_clones(layer, n)``), built only where the caller gave none (``if mlp is None: mlp
= ...``), or one of torch's containers with its modules written out
(``nn.Sequential(nn.Linear(...), ...)``). Each template is dropped once copied (IL005).
A function that keeps the object itself among the copies, and a template also kept, are
not reported. Checked against construction: the parameters reported are those the object
registered and no longer holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, lost, reported  # noqa: E402

SOURCE = """
import copy

from torch import nn


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


def clones_keeping(module, n):
    return nn.ModuleList([module] + [copy.deepcopy(module) for _ in range(n - 1)])


class Block(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.fc = nn.Linear(d, d)


class ByFunction(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        layer = Block(d)
        self.layers = clones(layer, n)


class BuiltInTheCall(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        self.layers = clones(Block(d), n)


class FunctionKeepsIt(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        layer = Block(d)
        self.layers = clones_keeping(layer, n)


class WhereNoneGiven(nn.Module):
    def __init__(self, d=512, mlp=None):
        super().__init__()
        if mlp is None:
            mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.k = copy.deepcopy(mlp)
        self.v = copy.deepcopy(mlp)


class Container(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.k = copy.deepcopy(mlp)
        self.v = copy.deepcopy(mlp)


class ContainerKeptToo(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.k = mlp
        self.v = copy.deepcopy(mlp)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("copied_templates", SOURCE)


def test_templates_only_copied_are_thrown_away(module: Path) -> None:
    found = reported(module)
    assert found == {
        ("ByFunction", "IL005", "error", "fc"),
        ("BuiltInTheCall", "IL005", "error", "fc"),
        ("WhereNoneGiven", "IL005", "error", "0"),
        ("Container", "IL005", "error", "0"),
    }
    # (built only where the caller gave none: on some paths)
    assert {d.class_name.rsplit(".", 1)[-1]: d.confidence for d in diagnostics(module)} == {
        "ByFunction": "definite",
        "BuiltInTheCall": "definite",
        "WhereNoneGiven": "possible",
        "Container": "definite",
    }
    m = importlib.import_module("copied_templates")
    fc = {("weight", (512, 512)), ("bias", (512,))}
    assert lost(m.ByFunction) == fc
    assert lost(m.BuiltInTheCall) == fc
    assert lost(m.FunctionKeepsIt) == set()
    mlp = {("weight", (2048, 512)), ("bias", (2048,)), ("weight", (512, 2048)), ("bias", (512,))}
    assert lost(m.WhereNoneGiven) == mlp
    assert lost(m.Container) == mlp
    assert lost(m.ContainerKeptToo) == set()
    given = torch.nn.Linear(512, 512)
    assert lost(lambda: m.WhereNoneGiven(mlp=given)) == set()  # (the caller's to keep)

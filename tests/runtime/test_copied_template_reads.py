"""A template handed to a class that copies it and also reads its attributes, or kept on one
branch and only copied on the other (by a class that reads nothing of it: one that reads a
part may keep it, and is not followed there): IL005's findings against what constructing
the classes registers and does not keep."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import copy

import torch.nn as nn


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Layer(nn.Module):
    def __init__(self, size=512):
        super().__init__()
        self.size = size
        self.attn = nn.Linear(size, 3 * size)
        self.ff = nn.Linear(size, 4 * size)


class Sized(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)
        self.norm = nn.LayerNorm(layer.size)


class Copier(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)


class Sharing(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)
        self.shared = layer.attn


class ReadsSize(nn.Module):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.enc = Sized(Layer(d), n)


class KeepsAttn(nn.Module):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.enc = Sharing(Layer(d), n)


class OneArm(nn.Module):
    def __init__(self, d=512, n=2, shared=False):
        super().__init__()
        layer = Layer(d)
        if shared:
            self.layer = layer
        else:
            self.enc = Copier(layer, n)
"""

ATTN = {("weight", (1536, 512)), ("bias", (1536,))}
FF = {("weight", (2048, 512)), ("bias", (2048,))}


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("copied_template_reads", SOURCE)


def test_what_a_copier_reads_of_the_template_at_construction(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {
        d.class_name.rsplit(".", 1)[-1]: (d.confidence, d.message.split(" of the object")[0])
        for d in report.diagnostics
    }
    assert found == {
        "ReadsSize": ("definite", "`attn`, `ff`"),
        "KeepsAttn": ("definite", "`ff`"),
        "OneArm": ("possible", "`attn`, `ff`"),
    }
    m = importlib.import_module("copied_template_reads")
    assert lost(m.ReadsSize) == ATTN | FF  # (reading a field keeps no weight)
    assert lost(m.KeepsAttn) == FF  # (the part it stores stays)
    assert lost(m.OneArm) == ATTN | FF
    assert lost(lambda: m.OneArm(shared=True)) == set()

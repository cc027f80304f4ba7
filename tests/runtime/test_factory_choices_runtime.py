"""An object a factory picks from a table it writes out (``models[name](**kwargs)``), whose
part the class drops unread: checked at runtime, the part each choice builds is gone from
the object the class builds, for every name where every choice builds it (a definite error),
for some names only where only some do (a possible one)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class ResNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.fc = nn.Linear(2048, num_classes)


class Wide(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.fc = nn.Linear(4096, num_classes)


class Plain(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.head = nn.Linear(4096, num_classes)


def resnet50(**kwargs):
    return ResNet(**kwargs)


def wide50(**kwargs):
    model = Wide(**kwargs)
    return model


def plain(**kwargs):
    return Plain(**kwargs)


def every(name, **kwargs):
    models = {"resnet50": resnet50, "wide50": wide50}
    net = models[name](**kwargs)
    return net


def some(name, **kwargs):
    models = {"resnet50": resnet50, "plain": plain}
    return models[name](**kwargs)


class Every(nn.Module):
    def __init__(self, backbone="resnet50"):
        super().__init__()
        self.pretrained = every(backbone)
        self.pretrained.fc = None


class Some(nn.Module):
    def __init__(self, backbone="resnet50"):
        super().__init__()
        self.pretrained = some(backbone)
        self.pretrained.fc = None
"""


def test_the_part_each_choice_builds_is_thrown_away_as_reported(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("factory_choices", SOURCE)
    m = importlib.import_module("factory_choices")
    assert ("weight", (1000, 2048)) in lost(m.Every)  # (8 MiB)
    assert ("weight", (1000, 4096)) in lost(lambda: m.Every("wide50"))
    assert ("weight", (1000, 2048)) in lost(m.Some)
    assert not lost(lambda: m.Some("plain"))  # (its head is kept: no ``fc`` to drop)
    lines = SOURCE.splitlines()
    every, some = [i + 1 for i, t in enumerate(lines) if t.strip() == "self.pretrained.fc = None"]
    found = {
        d.line: (d.code, d.severity, d.confidence)
        for d in check([root], cwd=root, use_cache=False).diagnostics
    }
    assert found == {
        every: ("IL005", "error", "definite"),
        some: ("IL005", "error", "possible"),
    }

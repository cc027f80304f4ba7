"""An object built by a builder chosen from a table (``self.base_model = {...}[name]``), a
part of it replaced: IL005's finding against what constructing the class really registers
and does not keep."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.body = nn.Linear(d, d)
        self.fc = nn.Linear(d, 100)


class Vit(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.blocks = nn.Linear(d, d)


def resnet(d=8):
    return Net(d)


def vit(d=8):
    return Vit(d)


class Method(nn.Module):
    def __init__(self, encoder="resnet", d=8):
        super().__init__()
        self.base_model = {"resnet": resnet, "vit": vit}[encoder]
        self.encoder = self.base_model(d)
        if "resnet" in encoder:
            self.encoder.fc = nn.Identity()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("chosen_builders", SOURCE)


def test_a_part_of_a_chosen_builders_object_replaced(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    (found,) = report.diagnostics
    assert (found.code, found.severity) == ("IL005", "error")
    assert found.message.startswith("`self.encoder.fc`")
    assert "possibly replaced" in found.message  # (the table's other builder has no fc)
    m = importlib.import_module("chosen_builders")
    # the 100-row head the resnet builder made is registered and not kept
    assert lost(lambda: m.Method("resnet")) == {("weight", (100, 8)), ("bias", (100,))}
    assert lost(lambda: m.Method("vit")) == set()

"""A part of an object the class itself built, replaced or dropped before anything used the
object (``self.model = resnet50(); self.model.fc = nn.Linear(...)``), throws away the part
the object's own construction built: IL005, also when a factory built the object (its every
``return`` constructs one class). An object used in between (a checkpoint loaded into it)
is not reported; an ancestor's object whose part the class drops (``= None``) is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import torch.nn as nn


class ResNet(nn.Module):
    def __init__(self, layers, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.fc = nn.Linear(2048, num_classes)


def _resnet(layers, weights, **kwargs):
    model = ResNet(layers, **kwargs)
    if weights is not None:
        model.load_state_dict(weights)
    return model


def resnet50(weights=None, **kwargs):
    return _resnet([3, 4, 6, 3], weights, **kwargs)


class ByClass(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.model = ResNet([3, 4, 6, 3])
        self.model.fc = nn.Linear(2048, n)


class ByFactory(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.model = resnet50()
        self.model.fc = nn.Linear(2048, n)


class LoadedFirst(nn.Module):
    def __init__(self, n, state):
        super().__init__()
        self.model = resnet50()
        self.model.load_state_dict(state)
        self.model.fc = nn.Linear(2048, n)


class Wrapped(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = resnet50()
        self.model.fc = Head(self.model.fc)


class Resized(nn.Module):
    \"\"\"Reads how the head is shaped, then swaps it: the torchvision fine-tuning idiom.\"\"\"

    def __init__(self, n):
        super().__init__()
        self.model = resnet50()
        width = self.model.fc.in_features
        self.model.fc = nn.Linear(width, n)


class Copied(nn.Module):
    \"\"\"Reads the head's weight before swapping it: the old part is used.\"\"\"

    def __init__(self, n):
        super().__init__()
        self.model = resnet50()
        kept = self.model.fc.weight[:n].clone()
        self.model.fc = nn.Linear(2048, n)
        self.kept = kept


class Head(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = ResNet([2, 2, 2, 2])


class Headless(Backbone):
    def __init__(self):
        super().__init__()
        self.net.fc = None
"""


def _found(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rpartition(".")[2]: (d.code, d.severity) for d in report.diagnostics}


def test_a_part_of_an_object_built_here_replaced_unused_is_discarded(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert found["ByClass"] == ("IL005", "error")
    assert found["ByFactory"] == ("IL005", "error")


def test_a_part_of_an_ancestor_object_dropped_is_discarded(tmp_path: Path) -> None:
    assert _found(tmp_path)["Headless"] == ("IL005", "error")


def test_an_object_used_first_or_a_part_kept_is_not_reported(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert "LoadedFirst" not in found
    assert "Wrapped" not in found
    assert "Copied" not in found


def test_reading_how_a_part_is_shaped_is_no_use_of_it(tmp_path: Path) -> None:
    assert _found(tmp_path)["Resized"] == ("IL005", "error")


TIED = """
import torch.nn as nn


class Tied(nn.Module):
    def __init__(self, vocab, d, tie=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.head = nn.Linear(d, vocab, bias=False)
        if tie:
            self.head.weight = self.embed.weight
"""


def test_a_tied_weight_throws_away_the_one_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # torch's Linear, read from its source
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "tied"\n')
    (tmp_path / "tied.py").write_text(TIED)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [
        (d.code, d.severity, d.confidence, d.message.split("`")[1]) for d in report.diagnostics
    ]
    assert found == [("IL005", "error", "possible", "self.head.weight")]


NEW_NUMBERS = """
import torch
import torch.nn as nn


class Proj(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))


class Scaled(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.ms = Proj(n)
        self.ms.weight.data = torch.eye(n)


class Local(nn.Module):
    def __init__(self, n):
        super().__init__()
        layer = Proj(n)
        layer.weight.data = torch.eye(n)
        self.layer = layer


class FromItsOwn(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.ms = Proj(n)
        self.ms.weight.data = self.ms.weight.data * 2
"""


def test_new_numbers_in_a_part_s_tensor_throw_its_build_away(tmp_path: Path) -> None:
    """``m.weight.data = v`` drops what the part's build allocated and filled, as ``m.weight
    = v`` does; new numbers made from the old ones keep them."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "numbers"\n')
    (tmp_path / "numbers.py").write_text(NEW_NUMBERS)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = {
        d.class_name.rpartition(".")[2]: (d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {
        "Scaled": ("IL005", "error", "self.ms.weight"),
        "Local": ("IL005", "error", "layer.weight"),
    }


DEFAULTS = """
import torch
import torch.nn as nn


class Table(nn.Module):
    def __init__(self, n, _weight=None):
        super().__init__()
        if _weight is None:
            self.weight = nn.Parameter(torch.randn(n, n))
        else:
            self.weight = nn.Parameter(_weight)


class Tied(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = Table(n)
        self.table.weight = nn.Parameter(torch.eye(n))


class Given(nn.Module):
    def __init__(self, n, w):
        super().__init__()
        self.table = Table(n, _weight=w)
        self.table.weight = nn.Parameter(torch.eye(n))
"""


def test_a_parameter_the_call_leaves_out_holds_its_default(tmp_path: Path) -> None:
    """``Table(n)`` leaves ``_weight`` at None: the branch that builds the weight runs, and
    replacing it throws that build away. Given a weight, the object builds none."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "defaults"\n')
    (tmp_path / "defaults.py").write_text(DEFAULTS)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = {
        d.class_name.rpartition(".")[2]: (d.code, d.severity, d.confidence)
        for d in report.diagnostics
    }
    assert found == {"Tied": ("IL005", "error", "definite")}

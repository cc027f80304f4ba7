"""An object the class's own code builds into a local and keeps only in part throws the rest
away (IL005): the parts it takes (``self.body = net.layer4``) are kept, the others dropped
with the local; a part replaced before the object is used (``net.fc = nn.Linear(...)``) is
thrown away as it is on ``self.model``; a slice of its children keeps those (children
stored on some paths only leave a slice within the ones before them known). An object
handed on (its children walked whole), in a nested function too, or built on some paths
only, is not reported; nor is a parameterless part left behind."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class ResNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.pool = nn.MaxPool2d(2)
        self.body = nn.Conv2d(64, 64, 3)
        self.fc = nn.Linear(2048, num_classes)


def resnet50(weights=None):
    model = ResNet()
    if weights is not None:
        model.load_state_dict(weights)
    return model


class Harvested(nn.Module):
    def __init__(self):
        super().__init__()
        net = resnet50()
        net.eval()
        d = net.fc.in_features
        self.stem = net.stem
        self.body = nn.Sequential(net.body, nn.Linear(d, 10))
        del net


class Patched(nn.Module):
    def __init__(self, n):
        super().__init__()
        net = ResNet()
        net.fc = nn.Linear(net.fc.in_features, n)
        self.net = net


class LoadedThenPatched(nn.Module):
    def __init__(self, n, state):
        super().__init__()
        net = ResNet()
        net.load_state_dict(state)
        net.fc = nn.Linear(2048, n)
        self.net = net


class HandedOn(nn.Module):
    def __init__(self):
        super().__init__()
        net = ResNet()
        self.body = net.body
        register(net)


class InClosure(nn.Module):
    def __init__(self):
        super().__init__()
        net = ResNet()
        self.body = net.body
        self.hook = lambda: net


class Walked(nn.Module):
    def __init__(self):
        super().__init__()
        net = ResNet()
        self.layers = nn.Sequential(*list(net.children()))


class Sliced(nn.Module):
    def __init__(self):
        super().__init__()
        net = ResNet()
        self.layers = nn.Sequential(*list(net.children())[:-1])


class OnSomePaths(nn.Module):
    def __init__(self, deep):
        super().__init__()
        if deep:
            net = ResNet()
            self.body = net.body


class OnlyPoolLeft(nn.Module):
    def __init__(self):
        super().__init__()
        net = ResNet()
        self.stem, self.body, self.fc = net.stem, net.body, net.fc


def register(module):
    return module
"""


def _found(tmp_path: Path) -> dict[str, list[tuple[str, str, str]]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found: dict[str, list[tuple[str, str, str]]] = {}
    for d in report.diagnostics:
        cls = d.class_name.rpartition(".")[2]
        found.setdefault(cls, []).append((d.code, d.severity, d.message.split("`")[1]))
    return found


def test_parts_left_behind_with_a_dropped_local_are_discarded(tmp_path: Path) -> None:
    # (a factory's object; ``eval()`` and reading how ``fc`` is shaped take nothing)
    assert _found(tmp_path)["Harvested"] == [("IL005", "error", "fc")]


def test_a_part_of_a_local_replaced_before_use_is_discarded(tmp_path: Path) -> None:
    assert _found(tmp_path)["Patched"] == [("IL005", "error", "net.fc")]


def test_a_slice_of_a_local_s_children_keeps_only_those(tmp_path: Path) -> None:
    # (its children in the order the construction registered them: stem, pool, body, fc)
    assert _found(tmp_path)["Sliced"] == [("IL005", "error", "fc")]


def test_a_local_handed_on_or_used_first_is_not_reported(tmp_path: Path) -> None:
    found = _found(tmp_path)
    for cls in ("LoadedThenPatched", "HandedOn", "InClosure", "Walked"):
        assert cls not in found, cls


def test_a_local_built_and_dropped_in_one_block_leaves_its_parts_there(tmp_path: Path) -> None:
    # (``if deep: net = ResNet(); self.body = net.body``, ``net`` named nowhere else: the
    # parts left behind are thrown away whenever the block runs)
    assert _found(tmp_path)["OnSomePaths"] == [("IL005", "error", "fc")]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    (d,) = [d for d in report.diagnostics if d.class_name.endswith("OnSomePaths")]
    assert d.confidence == "possible"


def test_a_parameterless_part_left_behind_is_not_reported(tmp_path: Path) -> None:
    assert "OnlyPoolLeft" not in _found(tmp_path)


TOPPED = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, include_top=True, extra=False):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.body = nn.Conv2d(64, 512, 3)
        self.tail = nn.Conv2d(512, 512, 3)
        if extra:
            self.extra = nn.Conv2d(512, 512, 3)
        if include_top:
            self.fc = nn.Linear(2048, 1000)


def make_net(include_top=True):
    return Net(include_top=include_top)


class Head(nn.Module):
    # the first two children come before any store on some paths: the slice is known
    def __init__(self):
        super().__init__()
        net = make_net()
        self.features = nn.Sequential(*list(net.children())[:2])


class FromEnd(nn.Module):
    # a bound from the end depends on which of the later children were stored
    def __init__(self):
        super().__init__()
        net = make_net()
        self.features = nn.Sequential(*list(net.children())[:-1])


class PastKnown(nn.Module):
    # the fourth child is ``extra`` or ``fc``, depending on a flag
    def __init__(self):
        super().__init__()
        net = make_net()
        self.features = nn.Sequential(*list(net.children())[:4])


class Holed(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.body = nn.Conv2d(64, 512, 3)
        self.tail = nn.Conv2d(512, 512, 3)
        self.stem = None
        if extra:
            self.fc = nn.Linear(2048, 1000)


class HoledHead(nn.Module):
    # ``children()`` skips the stem set to None: the slice keeps body and tail
    def __init__(self):
        super().__init__()
        net = Holed()
        self.features = nn.Sequential(*list(net.children())[:2])


class Trimmed(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = make_net()
        self.net = nn.Sequential(*list(self.net.children())[:2])
"""


def test_a_slice_within_the_children_whose_order_is_known(tmp_path: Path) -> None:
    # children stored on some paths only come after the slice: the ones before it are
    # known, and the ones left out of it are thrown away
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "topped"\n')
    (tmp_path / "topped.py").write_text(TOPPED)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found: dict[str, list[str]] = {}
    for d in report.diagnostics:
        found.setdefault(d.class_name.rpartition(".")[2], []).append(d.message)
    assert [m.split("`")[1] for m in found["Head"]] == ["tail"]
    assert [m.split("`")[1] for m in found["Trimmed"]] == ["self.net.tail"]
    assert "FromEnd" not in found
    assert "PastKnown" not in found
    assert "HoledHead" not in found

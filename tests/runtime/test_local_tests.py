"""A local bound to a test holds its truth where the test's operands are known
(``has_separate = transform is not None`` with ``transform`` left at None: False): an
ancestor that builds only under ``if has_separate:`` built nothing the subclass replaces
(IL003). Checked against what constructing each class holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
from copy import deepcopy

from torch import nn


class Pair(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.a = a
        self.b = b


class Base(nn.Module):
    def __init__(self, transforms=None, transform=None, target_transform=None):
        super().__init__()
        has_separate = transform is not None or target_transform is not None
        if transforms is not None and has_separate:
            raise ValueError("transforms, or transform and target_transform")
        if has_separate:
            transforms = Pair(transform, target_transform)
        self.transforms = transforms


class Wrapped(Base):
    def __init__(self, core):
        super().__init__()
        self.transforms = deepcopy(core.transforms)


class WrappedGiven(Base):
    # (the test holds here: the ancestor builds a Pair, which this replaces)
    def __init__(self, core):
        super().__init__(transform=nn.Identity())
        self.transforms = deepcopy(core.transforms)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("local_tests", SOURCE)


def test_a_local_test_decides_the_arm(module: Path) -> None:
    found = {(cls, code) for cls, code, _, _ in reported(module)}
    assert found == {("WrappedGiven", "IL003")}
    m = importlib.import_module("local_tests")
    core = m.Base(transform=nn_identity())
    assert isinstance(core.transforms, m.Pair)
    assert m.Base().transforms is None  # (nothing built when no transform is given)
    assert lost(lambda: m.Wrapped(core)) == set()
    given = m.WrappedGiven(core)
    assert isinstance(given.transforms, m.Pair) and given.transforms is not core.transforms


def nn_identity() -> object:
    return torch.nn.Identity()

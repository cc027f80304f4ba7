"""``hasattr(self, "_hparams")`` is decided for a private name as for a public one when
torch's ``Module`` is read from its sources (its ``__init__`` then shows the private state
it sets), the other bases bind nothing of the kind (``abc.ABC``) and no class is decorated
or has a metaclass of its own (dunders stay undecided): a base that sets
``_hparams`` when absent has set it for sure, so a later ``if not hasattr(self,
"_hparams"):`` never runs, and the build under it is no repeat. Checked against
construction: the branch's module is registered once."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import diagnostics, lost  # noqa: E402

SOURCE = """
from abc import ABC

from torch import nn


class Base(nn.Module, ABC):
    def __init__(self, hparams=None):
        super().__init__()
        if not hasattr(self, "_hparams"):
            self._hparams = dict(hparams or {})
        self.proj = nn.Linear(8, 8)


class Loader(Base):
    def __init__(self, hparams=None):
        super().__init__(hparams)
        self.load()

    def load(self):
        if not hasattr(self, "_hparams"):
            self._hparams = {}
            self.proj = nn.Linear(8, 8)


def register(cls):
    cls._key = cls.__name__
    return cls


@register
class Decorated(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        if not hasattr(self, "_key"):
            self.proj = nn.Linear(8, 8)


class Dunder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        if not hasattr(self, "__dict__"):
            self.proj = nn.Linear(8, 8)


class Unset(nn.Module, ABC):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        if not hasattr(self, "_extra"):
            self.proj = nn.Linear(8, 8)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("private_hasattr", SOURCE)


def test_a_private_name_a_base_surely_set_makes_hasattr_true(module: Path) -> None:
    found = {(d.class_name.rsplit(".", 1)[-1], d.code, d.confidence) for d in diagnostics(module)}
    # (a decorator may stamp a private name on the class, and ``object`` gives the dunders:
    # not decided, so at most possibly)
    assert found == {
        ("Unset", "IL005", "definite"),
        ("Decorated", "IL005", "possible"),
        ("Dunder", "IL005", "possible"),
    }
    m = importlib.import_module("private_hasattr")
    assert lost(m.Loader) == set()
    assert lost(m.Decorated) == lost(m.Dunder) == set()
    assert lost(m.Unset) == {("weight", (8, 8)), ("bias", (8,))}

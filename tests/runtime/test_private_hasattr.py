"""``hasattr(self, "_hparams")`` is decided for a private name as for a public one when
torch's ``Module`` is read from its sources (its ``__init__`` then shows the private state
it sets) and the other bases bind nothing of the kind (``abc.ABC``): a base that sets
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
    assert found == {("Unset", "IL005", "definite")}
    m = importlib.import_module("private_hasattr")
    assert lost(m.Loader) == set()
    assert lost(m.Unset) == {("weight", (8, 8)), ("bias", (8,))}

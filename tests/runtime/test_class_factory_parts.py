"""A classmethod reached through a class whose every ``return`` is ``cls(...)``
(``Tower.from_config(cfg)``) builds an object of the class it was called through, as
Python binds ``cls``: a part of it dropped before anything reads it (``del
self.vision_tower.head``) throws away what that construction built there (IL005).
Checked against construction: the parameters reported are those the object registered
and no longer holds."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Tower(nn.Module):
    def __init__(self, dim=8, classes=100):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    @classmethod
    def from_config(cls, config):
        return cls(dim=config.dim, classes=config.classes)

    @classmethod
    def cached(cls, config):
        return _CACHE.setdefault(config.dim, cls(dim=config.dim))


class Sub(Tower):
    pass


_CACHE = {}


class Direct(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.vision_tower = Tower.from_config(config)
        del self.vision_tower.head


class Inherited(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.vision_tower = Sub.from_config(config)
        self.vision_tower.head = None


class NotAlwaysNew(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.vision_tower = Tower.cached(config)
        del self.vision_tower.head
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("class_factory_parts", SOURCE)


def test_a_part_of_an_object_a_class_factory_built(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {
        ("Direct", "IL005", "error", "self.vision_tower.head"),
        ("Inherited", "IL005", "error", "self.vision_tower.head"),
    }
    inherited = next(d for d in report.diagnostics if d.class_name.endswith("Inherited"))
    assert "(a part of the Sub that Inherited.__init__ stores in" in inherited.message
    m = importlib.import_module("class_factory_parts")
    config = SimpleNamespace(dim=8, classes=100)
    head = {("weight", (100, 8)), ("bias", (100,))}
    assert lost(lambda: m.Direct(config)) == head
    assert lost(lambda: m.Inherited(config)) == head

"""``self.<name>`` that nothing in the construction has set is what the first class of the
MRO binding the name gives it: a constant in a class body decides a guard, as Python's
lookup does. torch's own ``Module.__init__`` calls the next ``__init__`` of the MRO only
under ``if self.call_super_init:``, which its class body sets to False, so a module that
also derives from a plain mixin and runs the mixin's ``__init__`` itself runs it once
(checked at runtime here), and a guard on a class constant set to False builds nothing."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn

CALLS = []


class Mixin(object):  # (the root every class has: the MRO is known to its end)
    def __init__(self, n_dim):
        CALLS.append(n_dim)
        self.register_buffer("u", torch.randn(1, n_dim))


class Normed(nn.Linear, Mixin):
    def __init__(self, a, b):
        nn.Linear.__init__(self, a, b)
        Mixin.__init__(self, n_dim=b)


class Flagged:
    build = False

    def __init__(self):
        if self.build:
            self.t = torch.randn(1024, 1024)


class Off(Flagged):
    def __init__(self):
        super().__init__()
        self.t = torch.randn(1024, 1024)


class On(Flagged):
    build = True

    def __init__(self):
        super().__init__()
        self.t = torch.randn(1024, 1024)


class Given(Flagged):
    def __init__(self, build):
        self.build = build
        super().__init__()
        self.t = torch.randn(1024, 1024)


class Cached(nn.Module):
    use_cache: bool = True

    def __init__(self):
        super().__init__()
        if self.use_cache:
            self.register_buffer("cache", torch.randn(4096, 64))


class CachedAgain(Cached):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.randn(4096, 32))


class Uncached(Cached):
    use_cache = False

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.randn(4096, 32))
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    return source_module("class_constants", SOURCE)


def test_a_class_constant_decides_a_guard(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {d.class_name.rsplit(".", 1)[-1]: d.confidence for d in report.diagnostics}
    # (Normed: torch's Module.__init__ does not run Mixin.__init__; Off and Uncached: the
    # ancestor's guard reads a constant False)
    assert found == {"On": "definite", "Given": "possible", "CachedAgain": "definite"}


def test_torch_runs_the_mixin_once_and_the_guards_as_read(module: Path) -> None:
    m = importlib.import_module("class_constants")
    m.Normed(4, 8)
    assert m.CALLS == [8]
    assert not hasattr(m.Flagged(), "t")
    assert "cache" in dict(m.Cached().named_buffers())
    assert m.Uncached().cache.shape == (4096, 32)


PATCHED = """
import torch
from torch import nn


class Flagged(nn.Module):
    build = False
    __private = False

    def __init__(self):
        super().__init__()
        if self.build:
            self.register_buffer("t", torch.ones(2048, 1024))
        if self.__private:
            self.register_buffer("p", torch.ones(2048, 1024))


class Patched(Flagged):
    _Flagged__private = True

    def __init__(self):
        super().__init__()
        self.register_buffer("t", torch.ones(2048, 1024))
        self.register_buffer("p", torch.ones(2048, 1024))


def enable():
    Flagged.build = True


enable()
"""


def test_a_class_attribute_its_module_changes_stays_unknown(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (``Flagged.build = True`` at import, and the private name Python mangles per class:
    # both work done twice at runtime, both still "possibly")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    root = source_module("patched", PATCHED)
    report = check([root], cwd=root, use_cache=False)
    found = sorted((d.message.split("`")[1], d.confidence) for d in report.diagnostics)
    assert found == [("p", "possible"), ("t", "possible")]
    m = importlib.import_module("patched")
    built: list[str] = []
    monkeypatch.setattr(
        torch.nn.Module, "register_buffer", _recording(torch.nn.Module.register_buffer, built)
    )
    m.Patched()
    assert sorted(built) == ["p", "p", "t", "t"]


def _recording(register: Callable[..., None], built: list[str]) -> Callable[..., None]:
    def record(self: object, name: str, tensor: object, persistent: bool = True) -> None:
        built.append(name)
        register(self, name, tensor, persistent)

    return record

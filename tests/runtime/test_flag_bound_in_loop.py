"""A parameter that a loop of the ancestor's binds again is no flag of its test: passing it
changes nothing there (``use_bias=False`` is passed already, and the loop sets it
``True``). The finding names no flag and its fix adds a new one; applied, every class ends
with the same modules as before."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check, fix  # noqa: E402

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, extra=1, use_bias=True):
        super().__init__()
        if extra > 0:
            for _ in range(extra):
                use_bias = True
        self.bias = None
        if use_bias:
            self.bias = nn.Linear(1024, 1024)


class Child(Base):
    def __init__(self):
        super().__init__(extra=1, use_bias=False)
        self.bias = nn.Linear(1024, 512)
"""


def _modules(cls: type) -> list[tuple[str, str, tuple[int, ...]]]:
    return [(k, type(v).__name__, tuple(v.weight.shape)) for k, v in cls()._modules.items()]


def test_a_parameter_bound_again_in_a_loop_is_no_flag(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    root = source_module("loop_flag", SOURCE)
    (found,) = check([root], cwd=root, use_cache=False).diagnostics
    assert "flag `use_bias`" not in found.message
    assert found.fix is not None and "init_bias=False" in found.fix.message
    m = importlib.import_module("loop_flag")
    before = _modules(m.Child)
    fix([root], cwd=root, use_cache=False, unsafe=True)
    assert _modules(importlib.reload(m).Child) == before
    assert not check([root], cwd=root, use_cache=False).diagnostics


SKIPS_OWN = """
from torch import nn


class Base(nn.Module):
    def __init__(self, lite=False):
        super().__init__()
        self.lite = lite
        if not lite:
            self.head = nn.Linear(1024, 1024)


class Child(Base):
    def __init__(self):
        super().__init__()
        if not self.lite:
            self.head = nn.Linear(1024, 512)
"""


def test_a_flag_that_also_skips_the_rebuild_is_not_passed(
    source_module: Callable[[str, str], Path],
) -> None:
    # (``lite=True`` switches the ancestor's head off, and the subclass's own with it: the
    # class would end with no head at all)
    root = source_module("skips_own", SKIPS_OWN)
    (found,) = check([root], cwd=root, use_cache=False).diagnostics
    assert found.fix is None
    assert "passing it also changes what Child.__init__ builds itself" in found.no_fix

"""Two subclasses of one ancestor redo different parts of what it builds after one early
``return``: each new-flag fix adds the same constructor parameter, but switches off
different statements with it. Applied together, the merged guard would switch off, for
the subclass that redoes less, work it does not redo. One fix is applied; the other waits
for a run that sees the new parameter (and refuses it there). Checked at runtime: every
class ends with the same modules as before."""

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
    def __init__(self, size=16, lite=False):
        super().__init__()
        self.embed = nn.Linear(size, size)
        if lite:
            return
        self.head = nn.Linear(size, 4096)
        self.norm = nn.LayerNorm(size)


class RedoesBoth(Base):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 8)
        self.norm = nn.LayerNorm(16)


class RedoesHead(Base):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 8)
"""


def _modules(cls: type) -> list[tuple[str, str]]:
    return [(k, type(v).__name__) for k, v in cls()._modules.items()]


def test_fixes_that_share_a_new_parameter_switch_off_the_same_work(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    root = source_module("shared_flag", SOURCE)
    m = importlib.import_module("shared_flag")
    before = {name: _modules(getattr(m, name)) for name in ("RedoesBoth", "RedoesHead")}
    result = fix([root], cwd=root, use_cache=False, unsafe=True)
    assert {d.class_name.rsplit(".", 1)[-1] for d in result.applied} == {"RedoesBoth"}
    fixed = importlib.reload(m)
    for name, modules in before.items():
        assert _modules(getattr(fixed, name)) == modules, name
    (left,) = check([root], cwd=root, use_cache=False).diagnostics
    assert left.class_name.endswith("RedoesHead") and left.fix is None
    assert "also drops `self.norm`" in left.no_fix

"""A class an ancestor is handed by its subclass (``super().__init__(ConvClass=nn.Conv2d)``)
and builds, then replaces a part of: checked at runtime, the tensor the handed class's
construction made is gone from the object the subclass builds (its storage replaced, or the
part dropped), as many bytes as the finding's severity says, at the ancestor's line."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, storage_replaced  # noqa: E402

from initlint.api import check  # noqa: E402

MIB = 1 << 20

SOURCE = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)


class Base(nn.Module):
    def __init__(self, w, ConvClass, cin=256, cout=256):
        super().__init__()
        self.conv_r = ConvClass(cin, cout, 3)
        self.conv_r.weight.data = w


class Sub(Base):
    def __init__(self, w):
        super().__init__(w, ConvClass=nn.Conv2d)


class Dropping(nn.Module):
    def __init__(self, block_cls, d=1024):
        super().__init__()
        self.block = block_cls(d)
        self.block.proj = None


class Wide(Dropping):
    def __init__(self):
        super().__init__(block_cls=Block)
"""


def _line(text: str) -> int:
    return SOURCE.splitlines().index(f"        {text}") + 1


def test_the_handed_class_part_is_thrown_away_as_reported(
    source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Conv2d: what it builds)
    root = source_module("handed_parts", SOURCE)
    m = importlib.import_module("handed_parts")
    thrown = storage_replaced(lambda: m.Sub(torch.randn(256, 256, 3, 3)))
    assert thrown == 256 * 256 * 3 * 3 * 4 >= MIB
    dropped = lost(m.Wide)
    assert ("weight", (1024, 1024)) in dropped  # (4 MiB)
    found = {d.line: d for d in check([root], cwd=root, use_cache=False).diagnostics}
    replaced = found[_line("self.conv_r.weight.data = w")]
    assert (replaced.code, replaced.severity) == ("IL005", "error")
    assert "(in Sub)" in replaced.message
    gone = found[_line("self.block.proj = None")]
    assert (gone.code, gone.severity) == ("IL005", "error")
    assert "(in Wide)" in gone.message

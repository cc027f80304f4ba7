"""Severity against what constructing the class really throws away: a rebuild whose sizes
the code writes out is an error exactly when the tracer sees a mebibyte or more wasted
(``nn.Conv2d(3, 64, 7)``, 37 KiB, a warning; ``nn.Embedding(1024, 768)``, 3 MiB, an error),
and a block built with its ``conv_block=None`` default, which builds a ``BasicConv``, is
priced by that convolution (an error, as the bytes wasted say). A size read from an
attribute the construction set to a number written out is written out too; one set from an
argument with no number for its default stands for any size."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402

MIB = 1 << 20

SOURCE = """
import torch
from torch import nn


class BasicConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, bias=False)


class Block(nn.Module):
    def __init__(self, c, conv_block=None):
        super().__init__()
        if conv_block is None:
            conv_block = BasicConv
        self.body = conv_block(c, c)


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7, bias=False)
        self.head = nn.Linear(8 * 49 * 49, 3, bias=False)
        self.table = nn.Embedding(1024, 768)
        self.block = Block(256)


class Child(Base):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7, bias=False)
        self.head = nn.Linear(8 * 49 * 49, 3, bias=False)
        self.table = nn.Embedding(1024, 768)
        self.block = Block(256)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("written_sizes", SOURCE)


def test_an_error_is_a_mebibyte_or_more_thrown_away(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    rated = {d.message.split("`")[1].removeprefix("self."): d.severity for d in report.diagnostics}
    assert rated == {"stem": "warning", "head": "warning", "table": "error", "block": "error"}
    m = importlib.import_module("written_sizes")
    trace = trace_init(m.Child)
    wasted = {r.name: r.bytes for r in trace.repeated if r.kind == "attribute"}
    assert set(wasted) == set(rated)
    for name, severity in rated.items():
        assert (wasted[name] >= MIB) == (severity == "error"), (name, wasted[name])


ATTR_SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.inplanes = 64
        self.wide = 1024
        self.width = width
        self.stem = nn.Conv2d(3, self.inplanes, 7, bias=False)
        self.proj = nn.Linear(self.wide, self.wide, bias=False)
        self.head = nn.Linear(self.width, self.width, bias=False)


class Child(Base):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 64, 7, bias=False)
        self.proj = nn.Linear(1024, 1024, bias=False)
        self.head = nn.Linear(32, 32, bias=False)
"""


def test_a_size_read_from_an_attribute_set_to_a_number_is_written_out(
    source_module: Callable[[str, str], Path],
) -> None:
    path = source_module("written_attr_sizes", ATTR_SOURCE)
    report = check([path], cwd=path, use_cache=False)
    rated = {d.message.split("`")[1].removeprefix("self."): d.severity for d in report.diagnostics}
    # (``head`` is 4 KiB, but its size came from an argument: any size, as the rule says)
    assert rated == {"stem": "warning", "proj": "error", "head": "error"}
    m = importlib.import_module("written_attr_sizes")
    wasted = {r.name: r.bytes for r in trace_init(m.Child).repeated if r.kind == "attribute"}
    assert set(wasted) == set(rated)
    assert wasted["stem"] < MIB <= wasted["proj"]

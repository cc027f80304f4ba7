"""A method the construction runs again (IL002) is priced with the numbers written in the
code that the object's attributes it reads hold as each run starts, and reported at the
cost of the earlier run, whose work the later one throws away. A number stands only while
nothing else may have written the attribute: an augmented assignment, a write through
``self.__dict__``, ``object.__setattr__`` or ``super().__setattr__``, ``self`` handed on.
A local bound to a torch vector of written sizes carries how many numbers it holds, so a
table made from two such locals is priced by their product, as one written inline is."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from initlint.api import Report

RUN_AGAIN = """
import torch
from torch import nn


def grow(module):
    module.n = 8192


class Rope(nn.Module):
    def __init__(self):
        super().__init__()
{before}
        self._build()

    def _build(self):
{build}


class Child(Rope):
    def __init__(self):
        super().__init__()
{between}
        self._build()
"""

OUTER = """\
t = torch.arange(self.max_pos, dtype=torch.float32)
f = torch.arange(self.dim, dtype=torch.float32)
self.cos = torch.outer(t, f)
"""
BROADCAST = """\
t = torch.arange(self.max_pos, dtype=torch.float32)
f = torch.arange(self.dim, dtype=torch.float32)
self.cos = t[:, None] * f[None, :]
"""
SQUARE = "self.t = torch.zeros(self.n, self.n)\n"
SIZES = "self.max_pos = {}\nself.dim = {}\n"

CASES = [
    # the numbers the attributes hold as the helper runs: a small table, a large one
    (SIZES.format(64, 64), OUTER, "", "warning"),
    (SIZES.format(64, 64), BROADCAST, "", "warning"),
    (SIZES.format(8192, 1024), OUTER, "", "error"),
    (SIZES.format(8192, 1024), BROADCAST, "", "error"),
    # the earlier run's work is what is thrown away, whatever the later one builds
    (SIZES.format(8192, 1024), BROADCAST, "self.max_pos = 64", "error"),
    ("self.n = 8192", SQUARE, "self.n = 64", "error"),
    ("self.n = 64", SQUARE, "self.n = 8192", "warning"),
    # a number changed in place, or written some other way, is no longer known
    ("self.n = 64\nself.n *= 128", SQUARE, "", "error"),
    ("self.n = 64", "self.n *= 128\n" + SQUARE, "", "error"),
    ('self.n = 64\nself.__dict__["n"] = 8192', SQUARE, "", "error"),
    ('self.n = 64\nobject.__setattr__(self, "n", 8192)', SQUARE, "", "error"),
    ('self.n = 64\nsuper().__setattr__("n", 8192)', SQUARE, "", "error"),
    ("self.n = 64\ngrow(self)", SQUARE, "", "error"),
    ("s = self\nself.n = 64\ns.n = 8192", SQUARE, "", "error"),
    ('self.n = 64\nexec("self.n = 8192")', SQUARE, "", "error"),
    ('self.n = 64\ngetattr(self, "grow")()', SQUARE, "", "error"),
    # a write after the read, in a loop: a later pass reads what an earlier one wrote
    ("self.n = 64", "for _ in range(2):\n    " + SQUARE + "    self.n *= 128\n", "", "error"),
    # the method form of a table whose other side's size is not known here: heavy
    (
        "self.max_pos = 8192\nself.register_buffer('inv', torch.ones(64))",
        "t = torch.arange(self.max_pos, dtype=torch.float32)\nself.cos = t.outer(self.inv)\n",
        "",
        "error",
    ),
    # no number written: a size not known here
    ("self.n = torch.cuda.device_count() + 64", SQUARE, "", "error"),
]


def _source(before: str, build: str, between: str) -> str:
    if "grow" in before and "getattr" in before:  # (the object's own method, run by name)
        build += "\ndef grow(self):\n    self.n = 8192\n"
    return RUN_AGAIN.format(
        before=textwrap.indent(before, " " * 8),
        build=textwrap.indent(build, " " * 8),
        between=textwrap.indent(between, " " * 8) if between else "",
    )


@pytest.mark.parametrize(("before", "build", "between", "severity"), CASES)
def test_a_run_again_is_priced_with_the_numbers_of_the_run_thrown_away(
    check_source: Callable[..., Report], before: str, build: str, between: str, severity: str
) -> None:
    found = check_source(_source(before, build, between)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL002", severity)]


OWN_WAY = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 64
        self._build()

    def _build(self):
        self.t = torch.zeros(self.n, self.n)


class Child(Base):
{own}

    def __init__(self):
        super().__init__()
        self._build()
"""


@pytest.mark.parametrize(
    "own",
    [
        "    n = property(lambda self: 8192, lambda self, v: None)",
        "    def __setattr__(self, name, value):\n        super().__setattr__(name, value * 128)",
    ],
)
def test_a_class_that_writes_the_attribute_its_own_way_holds_no_written_number(
    check_source: Callable[..., Report], own: str
) -> None:
    found = check_source(OWN_WAY.format(own=own)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL002", "error")]


BUFFER = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
{set_n}
        self.register_buffer("t", torch.zeros(self.n, self.n))


class Child(Base):
    def __init__(self):
        super().__init__()
        self.register_buffer("t", torch.zeros(self.n, self.n))
"""


@pytest.mark.parametrize(
    ("set_n", "severity"),
    [
        ("self.n = 64", "warning"),
        ("self.n = 64\nself.n *= 128", "error"),
        ("self.n = 64\nif torch.cuda.is_available():\n    self.n += 8128", "error"),
        ("self.n = 64\ndel self.n\nself.n = 8192", "error"),
        ('self.n = 64\nsetattr(self, "n", 8192)', "error"),
        ('self.n = 64\nsetattr(self, "n", 32)', "warning"),
    ],
)
def test_a_number_changed_after_it_was_written_is_not_the_written_one(
    check_source: Callable[..., Report], set_n: str, severity: str
) -> None:
    source = BUFFER.format(set_n=textwrap.indent(set_n, " " * 8))
    found = check_source(source).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL001", severity)]


LOCALS = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange({a})
        b = torch.ones({b})
        self.register_buffer("cache", {value})
        self.register_buffer("cache", torch.ones(3))
"""


@pytest.mark.parametrize(
    ("a", "b", "value", "severity"),
    [
        ("64", "64", "a[:, None] * b[None, :]", "warning"),
        ("4096", "64", "a[:, None] * b[None, :]", "error"),
        ("64", "64", "torch.outer(a, b)", "warning"),
        ("4096", "512", "torch.outer(a, b)", "error"),
        ("64", "64", "a.float().outer(b)", "warning"),
        ("64", "64", "torch.outer(torch.arange(64), torch.ones(64))", "warning"),
        ("4096", "512", "torch.outer(torch.arange(4096), b)", "error"),
        # int64 numbers take twice a float32's room: 512 x 512 of them is a mebibyte
        ("512", "512", "a[:, None] - a[None, :]", "error"),
        ("256", "256", "a[:, None] - a[None, :]", "warning"),
        # an integer meets a float in the float's room; two floats in the wider's
        ("512", "256", "a[:, None] * b[None, :]", "warning"),
        ("512", "512", "a.double()[:, None] * b[None, :]", "error"),
        ("512", "512", "a.int()[:, None] * a.long()[None, :]", "error"),
        ("512", "512", "torch.outer(a.to(torch.complex128), b)", "error"),
        ("512", "256", "torch.outer(a.to(torch.float16), b)", "warning"),
        # a comparison's table holds a byte a pair, whatever it compares
        ("768", "1024", "a[:, None] < a[None, :]", "warning"),
    ],
)
def test_a_table_of_locals_is_priced_by_the_numbers_they_hold(
    check_source: Callable[..., Report], a: str, b: str, value: str, severity: str
) -> None:
    found = check_source(LOCALS.format(a=a, b=b, value=value)).diagnostics
    assert [(d.code, d.line, d.severity) for d in found] == [("IL005", 12, severity)]


EITHER = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, n, wide=False):
        super().__init__()
        a = torch.arange(64)
        if wide:
            a = torch.arange(n)
        self.register_buffer("cache", a[:, None] * a[None, :])
        self.register_buffer("cache", torch.ones(3))
"""


def test_a_local_bound_on_some_paths_holds_either_vector(
    check_source: Callable[..., Report],
) -> None:
    found = check_source(EITHER).diagnostics
    assert [(d.code, d.line, d.severity) for d in found] == [("IL005", 13, "error")]


@pytest.mark.parametrize("change", ["a.resize_(8192)", "a.data = torch.arange(8192)"])
def test_a_local_changed_in_place_holds_no_known_size(
    check_source: Callable[..., Report], change: str
) -> None:
    source = LOCALS.format(a="64", b="1024", value="torch.outer(a, b)")
    source = source.replace("        b = torch.ones", f"        {change}\n        b = torch.ones")
    found = check_source(source).diagnostics
    assert [(d.code, d.line, d.severity) for d in found] == [("IL005", 13, "error")]


def test_the_sizes_claimed_hold_at_runtime() -> None:
    torch = pytest.importorskip("torch")
    a, b = torch.arange(4096), torch.ones(512)
    assert torch.outer(a, b).numel() == 4096 * 512
    assert a.float().outer(b).element_size() * 4096 * 512 == 8 << 20
    assert (torch.arange(512)[:, None] - torch.arange(512)[None, :]).element_size() == 8
    assert torch.outer(torch.arange(64), torch.ones(64)).numel() == 4096
    assert (torch.arange(512)[:, None] * torch.ones(256)[None, :]).dtype == torch.float32
    assert (torch.arange(512).int()[:, None] * torch.arange(512)[None, :]).dtype == torch.int64
    assert (torch.ones(4).double()[:, None] * torch.ones(4)[None, :]).dtype == torch.float64
    assert (torch.arange(768)[:, None] < torch.arange(1024)[None, :]).element_size() == 1
    grown = torch.arange(64)
    grown.resize_(8192)
    assert grown.numel() == 8192

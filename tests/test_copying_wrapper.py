"""A class that keeps only deep copies of what it is handed does not keep the value: the
parameter fact (``Param.copied_by``) and the discards it lets IL005 see."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from initlint.api import Report
from initlint.facts.expressions import copied_params, read_params
from initlint.facts.reads import shallow_reads


def _copied(src: str) -> dict[str, str]:
    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    params = copied_params(fn, read_params(fn.args))
    return {
        p.name: p.copied_by + "".join(f" reads {r}" for r in p.copy_reads)
        for p in params
        if p.copied_by
    }


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (
            "def __init__(self, m):\n    self.a = deepcopy(m)\n    self.b = deepcopy(m)\n",
            {"m": "deepcopy"},
        ),
        ("def __init__(self, m):\n    self.a = copy.deepcopy(m)\n", {"m": "copy.deepcopy"}),
        # kept as well as copied
        ("def __init__(self, m):\n    self.a = deepcopy(m)\n    self.b = m\n", {}),
        # passed on, rebound
        ("def __init__(self, m):\n    self.a = deepcopy(m)\n    register(m)\n", {}),
        # a part read: still copied, the part named (its caller leaves it out of the waste)
        (
            "def __init__(self, m):\n    self.a = deepcopy(m)\n    self.n = m.weight\n",
            {"m": "deepcopy reads weight"},
        ),
        # read only to decide (what it is), or tested for its kind: still only copied
        (
            "def __init__(self, m):\n    self.a = clones(m, 2)\n"
            "    if not isinstance(m, L) or m.attn.batch_first:\n        self.fast = False\n",
            {"m": "clones"},
        ),
        # a method of it run
        ("def __init__(self, m):\n    self.a = clones(m, 2)\n    m.reset_parameters()\n", {}),
        ("def __init__(self, m):\n    m = deepcopy(m)\n    self.a = m\n", {}),
        # two callees, or one that may read any local
        ("def __init__(self, m):\n    self.a = deepcopy(m)\n    self.b = clone(m)\n", {}),
        ("def __init__(self, m):\n    self.a = deepcopy(m)\n    keep(locals())\n", {}),
        # a closure over it
        ("def __init__(self, m):\n    self.a = deepcopy(m)\n    self.f = lambda: m\n", {}),
        # a closure or a generator keeps the object to copy later
        ("def __init__(self, m):\n    self.f = lambda: deepcopy(m)\n", {}),
        ("def __init__(self, m):\n    self.g = (deepcopy(m) for _ in range(2))\n", {}),
        # a list comprehension copies now
        (
            "def __init__(self, m):\n    self.c = [deepcopy(m) for _ in range(2)]\n",
            {"m": "deepcopy"},
        ),
        # a decorator may keep the arguments itself
        ("@capture_init\ndef __init__(self, m):\n    self.a = deepcopy(m)\n", {}),
    ],
)
def test_copied_params(src: str, expected: dict[str, str]) -> None:
    assert _copied(src) == expected


SOURCE = """
import copy

from torch import nn


class Twin(nn.Module):
    def __init__(self, module, other=None):
        super().__init__()
        self.a = copy.deepcopy(module)
        self.b = copy.deepcopy(module)
        self.other = other


class NotCopy(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.a = clone(module)


def clone(m):
    return m


class ByKeyword(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        self.x = Twin(module=self.x)


class AlsoKept(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        self.x = Twin(self.x, self.x)


class OtherCallee(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        self.x = NotCopy(self.x)


class TestedElsewhere(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        if self.x is None:
            self.y = nn.Linear(8, 8)
        self.x = Twin(self.x)


class TestedAround(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        if self.x is not None:
            self.x = Twin(self.x)


class ReadBetween(nn.Module):
    def __init__(self):
        super().__init__()
        self.x = nn.Linear(8, 8)
        self.y = self.x.weight.sum()
        self.x = Twin(self.x)
"""


def test_copies_throw_the_value_away(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE, "pkg/wrappers.py")
    found = sorted((d.line, d.code) for d in report.diagnostics)
    # ByKeyword, and TestedAround: its test asks only whether an object is there. Not
    # AlsoKept (Twin keeps ``other`` itself), OtherCallee (no deep copy), TestedElsewhere
    # (a test outside the replacing statement decides other work), ReadBetween (a use)
    assert found == [(29, "IL005"), (60, "IL005")]
    assert all("deep copies" in d.message for d in report.diagnostics)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("if self.x is not None and self.y:\n    pass\n", {"x"}),
        ("if None is self.x:\n    pass\n", {"x"}),
        ("if self.x is not None and self.x.bias:\n    pass\n", set()),
        ("if self.x == None:\n    pass\n", set()),
        ("if self.x:\n    pass\n", set()),
    ],
)
def test_none_tested(src: str, expected: set[str]) -> None:
    stmt = ast.parse(src).body[0]
    assert isinstance(stmt, ast.If)
    assert shallow_reads([stmt.test], "self")[0] == expected


@pytest.mark.parametrize(
    ("src", "tested", "sized"),
    [
        ("n = len(self.ups)", set(), {"ups"}),
        ("n = self.proj.weight.shape[0]", set(), {"proj"}),
        ("n = self.proj.weight.size(1) + self.w.dtype.itemsize", set(), {"proj", "w"}),
        ("n = self.proj.weight.sum()", set(), set()),
        ("n = len(self.ups) + self.ups[0].weight.sum()", set(), set()),
        ("b = self.x is not None and len(self.x) > 0", set(), {"x"}),
        ("b = self.x is not None", {"x"}, {"x"}),
    ],
)
def test_shallow_reads(src: str, tested: set[str], sized: set[str]) -> None:
    """A None test, a length or a shape asks what the value is; other reads may use its
    numbers."""
    stmt = ast.parse(src).body[0]
    assert shallow_reads([stmt], "self") == (tested, sized)

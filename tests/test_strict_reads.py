"""``facts.strict.strict_reads``: the ``self`` attributes a statement reads for sure, before
anything could set them (a raise where one is definitely unset ends the path)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from initlint.facts.extract import extract_facts
from initlint.facts.strict import closes_over

CASES = [
    ("device = self.inv_freq.device", {"inv_freq"}),
    ("x = self.a if self.b else self.c", {"b"}),  # a branch may not run
    ("y = self.z + self.m()", {"z", "m"}),  # read, then the method runs
    ("y = self.m() + self.z", {"m"}),  # the method may set z first
    ("y = super().f(self.p) + self.r", {"p"}),
    ("self.q = torch.einsum('i,j', self.k, self.j)", {"k", "j"}),
    ("z = self.a and self.b", {"a"}),
    ("z = self.a < self.b < self.c", {"a", "b"}),
    ("self.a.b = self.c", {"a", "c"}),
    ("self.x = 1", set()),
    ("x = [self.e for _ in self.f]", {"f"}),
    ("f = lambda: self.g", set()),
    ("assert self.k", set()),
    ("del self.k", set()),
    ("x = getattr(self, 'g', None) + self.h", set()),  # self passed on: nothing known
    ("helper(self.a, self)", set()),
    ("out = self.h.to(self.i) + self.j", {"h", "i"}),
]


def _strict(body: str) -> list[frozenset[str]]:
    """The strict reads of each touch effect of ``C.m``, whose body is ``body``."""
    src = "class C:\n    def m(self):\n" + textwrap.indent(body, " " * 8) + "\n"
    (method,) = extract_facts(src).classes[0].methods
    return [e.strict for e in method.effects if e.kind == "touch"]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_strict_reads(src: str, expected: set[str]) -> None:
    assert _strict(src) == [frozenset(expected)]


def test_a_nested_def_over_self_ends_strict_reads_from_its_statement_on() -> None:
    body = "a = self.x\nfor i in r:\n    b = self.y\n    def f():\n        self.y = 1\nc = self.z\n"
    assert [sorted(s) for s in _strict(body)] == [["x"], [], []]


def test_a_closure_over_self_is_seen() -> None:
    body = ast.parse("def set_it():\n    self.w = 1\nset_it()\n").body
    assert closes_over(body, "self")
    assert not closes_over(ast.parse("def f(x):\n    return x\n").body, "self")

"""A loop over names written out (``for name in ("q_proj", "k_proj"): delattr(self, name)``)
runs its body once per name, in order, as if written out with each; and asking whether an
attribute is there (``hasattr(self, "q_proj")``) reads nothing of it: an ancestor's build
deleted so, unread, is thrown away (IL005)."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from initlint.api import Report
from initlint.facts.function_reader import FunctionReader

CASE = """
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.q_proj = nn.Linear(d, d)


class Sub(Base):
    def __init__(self, d=1024):
        super().__init__(d)
        {drop}
"""


@pytest.mark.parametrize(
    ("drop", "expected"),
    [
        ('for name in ("q_proj", "k_proj"):\n            delattr(self, name)', True),
        (
            'for name in ["q_proj"]:\n            if hasattr(self, name):\n'
            "                delattr(self, name)",
            True,
        ),
        ('if hasattr(self, "q_proj"):\n            del self.q_proj', True),
        ("if self.q_proj is not None:\n            del self.q_proj", True),
        # the value is read before it goes: a use
        ("if self.q_proj.weight.sum() > 0:\n            del self.q_proj", False),
        # rebuilt after the deletion: IL003's (a rebuild), not a discard
        (
            'for name in ("q_proj",):\n            delattr(self, name)\n'
            "        self.q_proj = nn.Linear(d, d)",
            False,
        ),
    ],
)
def test_an_inherited_build_deleted_unread(
    check_source: Callable[..., Report], drop: str, expected: bool
) -> None:
    found = check_source(CASE.format(drop=drop)).diagnostics
    il005 = [d for d in found if d.code == "IL005"]
    assert len(il005) == int(expected)
    for d in il005:
        assert d.message.startswith("`self.q_proj` built by Base.__init__")
        assert "deleted here" in d.message


def _effects(source: str) -> list[tuple[str, str]]:
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return [(e.kind, e.name) for e in FunctionReader(fn, True).read() if e.kind != "touch"]


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        ('for n in ("a", "b"):\n        delattr(self, n)', [("delete", "a"), ("delete", "b")]),
        # not names written out, or the loop may end early: read as a loop
        ("for n in names:\n        delattr(self, n)", []),
        ('for n in ("a", "b"):\n        delattr(self, n)\n        break', []),
        ('for n in ("a", 1):\n        delattr(self, n)', []),
    ],
)
def test_which_loops_run_once_per_name(loop: str, expected: list[tuple[str, str]]) -> None:
    effects = _effects(f"def __init__(self, names):\n    {loop}\n")
    assert [e for e in effects if e[0] == "delete"] == expected

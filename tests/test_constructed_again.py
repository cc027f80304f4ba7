"""An ancestor's construction that the class's own code runs twice (``super().__init__()``
called again, or two explicit base ``__init__`` calls that both reach one base) stores
again what the first run stored: the first run's builds are thrown away (IL002 at the
second call, rated by the costliest build rebuilt, no fix)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

BASE = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, steps=4):
        super().__init__()
        self.table = {table}
        self.steps = steps


class A(Base):
    def __init__(self):
        Base.__init__(self)


class B(Base):
    def __init__(self):
        Base.__init__(self)


class Child({bases}):
    def __init__(self, steps=4, flag=False):
{body}
"""

TWICE = "        super().__init__(steps)\n        super().__init__(steps)"
DIAMOND = "        A.__init__(self)\n        B.__init__(self)"
ARMS = (
    "        if flag:\n            super().__init__(steps)\n"
    "        else:\n            super().__init__(2 * steps)"
)
RETURNED = (
    "        if flag:\n            super().__init__(steps)\n            return\n"
    "        super().__init__(2 * steps)"
)
FALLBACK = (
    "        try:\n            super().__init__(steps)\n"
    "        except TypeError:\n            super().__init__()"
)
ONCE_EACH = "        nn.Module.__init__(self)\n        super().__init__(steps)"


@pytest.mark.parametrize(
    ("table", "bases", "body", "expected"),
    [
        ("torch.randn(4096, 4096)", "Base", TWICE, [("IL002", "error")]),
        ("torch.randn(4096, 4096)", "A, B", DIAMOND, [("IL002", "error")]),
        ("nn.ReLU()", "Base", TWICE, [("IL002", "warning")]),
        # on branches that never both run, or a base whose first run builds nothing costly
        ("torch.randn(4096, 4096)", "Base", ARMS, []),
        ("torch.randn(4096, 4096)", "Base", RETURNED, []),
        ("torch.randn(4096, 4096)", "Base", FALLBACK, []),
        ("torch.randn(4096, 4096)", "Base", ONCE_EACH, []),
        ("steps", "Base", TWICE, []),
    ],
)
def test_an_ancestors_construction_run_twice_rebuilds_what_it_built(
    check_source: Callable[..., Report],
    table: str,
    bases: str,
    body: str,
    expected: list[tuple[str, str]],
) -> None:
    found = check_source(BASE.format(table=table, bases=bases, body=body)).diagnostics
    assert [(d.code, d.severity) for d in found] == expected
    for d in found:
        assert d.message.startswith("`Base.__init__()` is called again")
        assert "during super().__init__()" not in d.message

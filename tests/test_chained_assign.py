"""``a = b = v`` builds ``v`` once and binds it to every target: storing it in a second
attribute, or in the same one twice, throws nothing away (IL005); a chain that replaces an
earlier build still does."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
import torch.nn as nn


class Twice(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = self.table = torch.randn(n, n)
        self.proj = self.head = nn.Linear(n, n)
        total = self.count = torch.zeros(n, n)
        self.total = total


class Replaced(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = torch.randn(n, n)
        self.table = self.copy = torch.eye(n)
"""


def test_a_chain_binds_one_value(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE, "pkg/chains.py")
    found = sorted((d.line, d.code) for d in report.diagnostics)
    assert found == [
        (SOURCE.splitlines().index("        self.table = self.copy = torch.eye(n)") + 1, "IL005")
    ]

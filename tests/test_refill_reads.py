"""A fill statement reads the tensor it fills, which is no use of its numbers; its other
reads are: ``self.proj.weight.data.copy_(self.weight)`` uses ``self.weight``, so filling
``self.weight`` afterwards throws nothing away."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n, n))
        nn.init.xavier_uniform_(self.weight)


class CopiedFirst(Base):
    def __init__(self, n=4):
        super().__init__(n)
        self.proj = nn.Linear(n, n, bias=False)
        self.proj.weight.data.copy_(self.weight)
        nn.init.zeros_(self.weight)


class Refilled(Base):
    def __init__(self, n=4):
        super().__init__(n)
        nn.init.zeros_(self.weight)
"""


def test_a_fill_that_copies_another_tensor_reads_it(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE)
    found = {(d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics}
    assert found == {("Refilled", "IL005")}

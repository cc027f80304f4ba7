"""A method of the object called from a lambda or a nested function runs whenever the code
it is handed to calls it, which may be at once (``power(lambda v: self.A(v), x)``): that
statement may read any attribute, and a value replaced after it was used."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


def power(op, x):
    for _ in range(5):
        x = op(x)
    return x.norm()


class Base(nn.Module):
    def compute_norm(self, x):
        op = lambda v: self.A(v)
        return power(op, x)


class Pet(Base):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(1)
        self.scale = self.compute_norm(torch.ones(64, 64))

    def A(self, x):
        return x / self.scale


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(1)
        self.scale = torch.full((1,), 2.0)
"""


def test_a_method_run_from_a_lambda_may_read_anything(
    check_source: Callable[..., Report],
) -> None:
    found = [
        d.class_name.rsplit(".", 1)[-1]
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL005"
    ]
    # (the first ``scale`` is read by ``A``, through the lambda ``power`` runs; the second
    # class replaces it unread)
    assert found == ["Plain"]

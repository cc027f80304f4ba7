"""A precondition that walks the object's modules only to count them or ask their kind
(``if len(list(self.parameters(recurse=False))) > 0 or any(isinstance(c, X) for c in
self.children()): raise ...``) reads none of their numbers: a method run again over the
children after it still throws away the fills their own constructions made (IL005). A walk
that reads the items (``sum(c.weight.sum() for c in self.children())``), or a count that
decides whether they are read, uses those fills, and nothing is reported. Checked against
construction: the tensors each class fills twice by its own lines, and what the walk's
statement read in between."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Mixin:
    def reset_parameters(self):
        if len(list(self.parameters(recurse=False))) > 0 or any(
            isinstance(c, (nn.ParameterDict, nn.ParameterList)) for c in self.children()
        ):
            raise NotImplementedError("a module with its own parameters resets them itself")
        for child in self.children():
            if isinstance(child, Mixin):
                child.reset_parameters()


class Lin(Mixin, nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n, n))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.normal_(self.weight)


class Counted(Mixin, nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        self.reset_parameters()


class Summed(Mixin, nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        self.total = sum(float(c.weight.sum()) for c in self.children())
        self.reset_parameters()


class Walker:
    def reset_parameters(self):
        for child in self.children():
            child.reset_parameters()


class Plain(Walker, nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        self.reset_parameters()


class PlainSummed(Walker, nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        self.total = sum(float(c.weight.sum()) for c in self.children())
        self.reset_parameters()


class CountGuarded(Walker, nn.Module):
    # (a count that decides whether the weights are read is no precondition: a use)
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        if len(list(self.parameters())) > 0:
            self.total = float(self.a.weight.sum() + self.b.weight.sum())
        self.reset_parameters()


class Listed(Mixin, nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.a = Lin(n)
        self.b = Lin(n)
        self.first = [p.detach().clone() for p in self.parameters()]
        self.reset_parameters()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("counted_walks", SOURCE)


def test_a_counted_walk_leaves_the_fills_unread(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's walks read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = [(d.code, d.severity, d.line) for d in report.diagnostics if d.line == 14]
    assert found == [("IL005", "error", 14)]  # (at the mixin's run again, for Counted only)
    message = next(d.message for d in report.diagnostics if d.line == 14)
    assert message.startswith("the initialisation of `self.a.weight` and `self.b.weight`")
    assert "(in Counted)" in message
    m = importlib.import_module("counted_walks")
    path = str(module / "counted_walks.py")
    assert filled_twice(lambda: m.Counted(512), path, same_line=True) == {"a.weight", "b.weight"}
    # (the runtime fills them twice in every class; only Counted leaves the first unread)
    summed = m.Summed(512)
    assert summed.total != 0.0
    listed = m.Listed(512)
    assert [p.shape for p in listed.first] == [(512, 512), (512, 512)]
    assert filled_twice(lambda: m.Summed(512), path, same_line=True) == {"a.weight", "b.weight"}


def test_a_walk_reading_the_items_uses_the_fills(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    report = check([module], cwd=module, use_cache=False)
    classes = sorted(d.message.rpartition("(in ")[2].split(")")[0] for d in report.diagnostics)
    # (not PlainSummed: its walk read the weights; not CountGuarded: its count let them be read)
    assert classes == ["Counted", "Plain"]
    m = importlib.import_module("counted_walks")
    path = str(module / "counted_walks.py")
    assert filled_twice(lambda: m.Plain(512), path, same_line=True) == {"a.weight", "b.weight"}
    assert m.PlainSummed(512).total != 0.0
    assert m.CountGuarded(512).total != 0.0

"""What a call's constants decide in the function or class it runs, and what they do not: a
parameter the callee rebinds before its test (``n += 1``, ``if proj is None: proj = ...``),
a default written as a name (the callee's module's, not the caller's), a name the caller
rebinds in a loop, a decorated function (its wrapper may pass other arguments), and a class
test that None may pass (``Optional[...]``, a name bound to a tuple of classes)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOMEPATHS = "heavy only on some paths of its construction"

SOURCE = """
import functools
from typing import Optional

from torch import nn

WIDE = True
LAYER_OR_NONE = (nn.Module, type(None))


def counted(d, n=0):
    n += 1
    if n > 0:
        return nn.Linear(4096, 4096)
    return nn.Identity()


def defaulted(d, proj=None):
    if proj is None:
        proj = nn.Identity()
    if isinstance(proj, nn.Module):
        out = proj
    else:
        out = nn.Linear(4096, 4096)
    return out


def wide_head(d, wide=WIDE):
    if wide:
        return nn.Linear(4096, 4096)
    return nn.Identity()


def with_device(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        return fn("cpu", *args, **kw)

    return wrapper


@with_device
def wrapped(device, big=False):
    if big:
        return nn.Linear(4096, 4096, device=device)
    return nn.Identity()


class Counted(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.head = counted(d)
        self.head = nn.Linear(8, 8)


class Defaulted(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.head = defaulted(d)
        self.head = nn.Linear(8, 8)


class Shadowing(nn.Module):
    def __init__(self, d):
        super().__init__()
        WIDE = False  # a local of the caller: not the default's name
        self.head = wide_head(d)
        self.head = nn.Linear(8, 8)


class Looped(nn.Module):
    def __init__(self, d, layers):
        super().__init__()
        big = False
        for layer in layers:
            self.head = wrapped(big)
            big = True
        self.head = nn.Linear(8, 8)


class Decorated(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.head = wrapped(True)
        self.head = nn.Linear(8, 8)


class Optionally(nn.Module):
    def __init__(self, layer=None):
        super().__init__()
        if isinstance(layer, Optional[nn.Module]):
            self.out = layer
        else:
            self.out = nn.Linear(1024, 1024)


class OptionallyAgain(Optionally):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(1024, 8)


class Named(nn.Module):
    def __init__(self, layer=None):
        super().__init__()
        if isinstance(layer, LAYER_OR_NONE):
            self.out = layer
        else:
            self.out = nn.Linear(1024, 1024)


class NamedAgain(Named):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(1024, 8)
"""


@pytest.fixture
def found(check_source: Callable[..., Report]) -> dict[str, str]:
    report = check_source(SOURCE)
    return {d.class_name.rsplit(".", 1)[-1]: d.message for d in report.diagnostics}


@pytest.mark.parametrize("name", ["Counted", "Defaulted", "Shadowing", "Looped", "Decorated"])
def test_a_constant_that_may_not_stand_rules_no_path_out(found: dict[str, str], name: str) -> None:
    # each builds the heavy Linear on some path at least: not light work
    assert SOMEPATHS in found[name], found[name]


@pytest.mark.parametrize("name", ["OptionallyAgain", "NamedAgain"])
def test_a_class_test_none_may_pass_stays_undecided(found: dict[str, str], name: str) -> None:
    assert "is possibly rebuilt" in found[name]

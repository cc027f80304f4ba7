"""IL004: an argument that passes the value its parameter's default already has switches
nothing off that the ancestor's own default objects do not lack: not reported."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n, extra=False, cache=True):
        super().__init__()
        self.extra = extra
        if self.extra:
            self.step = nn.Linear(n, n)
        if cache:
            self.register_buffer("table", torch.zeros(n, n))

    def forward(self, x):
        return self.step(x) + self.table


class AsDefault(Base):
    def __init__(self, n):
        super().__init__(n, extra=False)


class CacheOff(Base):
    def __init__(self, n):
        super().__init__(n, cache=False)


class Positional(Base):
    def __init__(self, n):
        super().__init__(n, False)


class Setup(nn.Module):
    # Its own default (extra=True) builds ``step``, through a helper whose default is False.

    def __init__(self, n, extra=True, norm=...):
        super().__init__()
        self._setup(n, extra)
        if norm is not None:
            self.norm = nn.LayerNorm(n)

    def _setup(self, n, extra=False):
        if extra:
            self.step = nn.Linear(n, n)

    def forward(self, x):
        return self.norm(self.step(x))


class SwitchesOff(Setup):
    def __init__(self, n):
        super().__init__(n, extra=False)


class NoNorm(Setup):
    def __init__(self, n):
        super().__init__(n, norm=None)
"""


def test_a_flag_at_its_default_switches_nothing_off(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE)
    found = {(d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics}
    # CacheOff switches off the buffer the defaults build: still reported; Positional
    # passes the default, as AsDefault does. SwitchesOff passes the default of the helper
    # that sets up, not of the __init__ it calls; NoNorm passes None where the default is
    # ``...``: both switch setup off
    assert found == {("CacheOff", "IL004"), ("SwitchesOff", "IL004"), ("NoNorm", "IL004")}

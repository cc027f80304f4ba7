"""Two light rebuilds of one ancestor ``__init__`` would share one new flag, named after the
first site: the help line of each says so, so that the second's does not read as a flag
named for another attribute."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)


class Grouped(Base):
    def __init__(self, d):
        super().__init__(d)
        self.norm1 = nn.GroupNorm(1, d)
        self.norm2 = nn.GroupNorm(1, d)
"""


def test_a_shared_flag_names_the_sites_it_guards(check_source: Callable[..., Report]) -> None:
    found = {d.message.split("`")[1]: d.no_fix or "" for d in check_source(SOURCE).diagnostics}
    assert set(found) == {"self.norm1", "self.norm2"}
    for why in found.values():
        assert "not worth a new constructor parameter `init_norm1`" in why, why
        assert "(one flag for `self.norm1`, `self.norm2`)" in why, why

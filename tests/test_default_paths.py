"""What a construction builds with its parameters' defaults decides whether a rebuild of it
is heavy: ``nn.Linear(d, n) if n > 0 else nn.Identity()`` with ``n=1000`` builds the Linear.
A comparison of a default with a constant is decided as Python decides it; a parameter an
open ``**kwargs`` pack may give keeps its default on the cheapest path, and a class given as
such a default is possibly what calling the parameter builds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

HEAD = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d=64, num_classes=1000, **kwargs):
        super().__init__()
        self.head = nn.Linear(d, num_classes) if num_classes > 0 else nn.Identity()


class Child(Base):
    def __init__(self, d=64, **kwargs):
        super().__init__({passed})
        del self.head
"""


@pytest.mark.parametrize(
    ("passed", "severity"),
    [
        ("d=d", "error"),  # the default 1000 > 0: the Linear is built
        ("d=d, **kwargs", "error"),  # the pack may name num_classes; its default stands
        ("d=d, num_classes=0", "warning"),  # the Identity: nothing heavy
        # a pack the class fills itself gives a value of its own, not the default
        ("d=d, **{'num_classes': 0, **kwargs}", "warning"),
    ],
)
def test_a_default_compared_with_a_constant_picks_the_build(
    check_source: Callable[..., Report], passed: str, severity: str
) -> None:
    found = [(d.code, d.severity) for d in check_source(HEAD.format(passed=passed)).diagnostics]
    assert found == [("IL005", severity)]


EMBED = """
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Conv2d(3, d, 16, 16)


class Base(nn.Module):
    def __init__(self, d=64, embed_layer=PatchEmbed):
        super().__init__()
        self.patch_embed = embed_layer(d)


class Child(Base):
    def __init__(self, d=64, **kwargs):
        super().__init__(d=d, **kwargs)
        self.patch_embed = PatchEmbed(d)
"""


def test_a_class_default_an_open_pack_may_replace_is_possibly_built(
    check_source: Callable[..., Report],
) -> None:
    found = check_source(EMBED).diagnostics
    assert [(d.code, d.severity, d.confidence) for d in found] == [("IL003", "error", "possible")]


FILLED = (
    HEAD.split("class Child")[0]
    + """class Child(Base):
    def __init__(self, d=64, **kwargs):
        {fill}
        super().__init__(d=d, **kwargs)
        self.head = nn.Linear(d, 10)
"""
)


@pytest.mark.parametrize(
    ("fill", "severity"),
    [
        ('kwargs["num_classes"] = 0', "warning"),
        ('kwargs.setdefault("num_classes", 0)', "warning"),
        ("kwargs.update(num_classes=0)", "warning"),
        ('kwargs.pop("num_classes", None)', "error"),  # popped: the default stands
        ("pass", "error"),
    ],
)
def test_a_pack_the_class_fills_does_not_leave_the_default(
    check_source: Callable[..., Report], fill: str, severity: str
) -> None:
    found = [(d.code, d.severity) for d in check_source(FILLED.format(fill=fill)).diagnostics]
    assert found == [("IL003", severity)]

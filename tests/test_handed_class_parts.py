"""A class an ancestor is handed by its subclass (``super().__init__(ConvClass=nn.Conv2d)``),
which the ancestor builds and then replaces a part of in the same call
(``self.conv_r.weight.data = w``): the ancestor's own simulation has the parameter unknown
and cannot see the part, so the subclass that hands the class reports what that build throws
away, at the ancestor's line, once for every subclass that does."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report


@pytest.fixture(autouse=True)
def _torch_read_from_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Conv2d: what it builds)


BASE = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)


class Base(nn.Module):
    def __init__(self, w, ConvClass, cin=256, cout=256):
        super().__init__()
        self.conv_r = ConvClass(cin, cout, 3)
        {replace}
"""

SUB = """

class {name}(Base):
    def __init__(self, w):
        super().__init__({args})
"""


# (the ancestor's statement that replaces the part)
LINE = BASE.splitlines().index("        {replace}") + 1


def _il005(report: Report) -> list[tuple[int, str, str]]:
    return [(d.line, d.severity, d.message) for d in report.diagnostics if d.code == "IL005"]


@pytest.mark.parametrize(
    "args", ["w, ConvClass=nn.Conv2d", "w, nn.Conv2d", "w, nn.Conv2d, 256, 256"]
)
def test_a_class_handed_to_the_ancestor_shows_the_part_it_replaces(
    check_source: Callable[..., Report], args: str
) -> None:
    source = BASE.format(replace="self.conv_r.weight.data = w") + SUB.format(name="Sub", args=args)
    ((line, severity, message),) = _il005(check_source(source))
    assert line == LINE
    assert severity == "error"  # (256 x 256 x 3 x 3 float32 numbers: 2.25 MiB)
    assert "`self.conv_r.weight`" in message and "thrown away (in Sub)" in message


def test_one_finding_names_every_subclass_that_hands_the_class(
    check_source: Callable[..., Report],
) -> None:
    source = (
        BASE.format(replace="self.conv_r.weight.data = w")
        + SUB.format(name="Sub1", args="w, ConvClass=nn.Conv2d")
        + SUB.format(name="Sub2", args="w, ConvClass=nn.Conv2d")
    )
    ((_, _, message),) = _il005(check_source(source))
    assert "thrown away (in Sub1, Sub2)" in message


def test_a_project_class_handed_so_too(check_source: Callable[..., Report]) -> None:
    source = BASE.format(replace="self.conv_r.proj = None") + SUB.format(
        name="Sub", args="w, ConvClass=Block, cin=1024"
    )
    ((line, _, message),) = _il005(check_source(source))
    assert line == LINE and "`self.conv_r.proj`" in message


@pytest.mark.parametrize(
    ("replace", "args"),
    [
        # nobody hands the class: what the ancestor builds is not known
        ("self.conv_r.weight.data = w", None),
        # the new numbers are made from the old ones: the build is read
        ("self.conv_r.weight.data = self.conv_r.weight.data * 2", "w, ConvClass=nn.Conv2d"),
        # the part is replaced only after the object was used
        (
            "self.out = self.conv_r(w)\n        self.conv_r.weight.data = w",
            "w, ConvClass=nn.Conv2d",
        ),
    ],
)
def test_nothing_thrown_away_unless_the_class_is_handed_and_the_part_unread(
    check_source: Callable[..., Report], replace: str, args: str | None
) -> None:
    source = BASE.format(replace=replace)
    if args is not None:
        source += SUB.format(name="Sub", args=args)
    assert _il005(check_source(source)) == []


def test_a_class_the_ancestor_takes_by_default_is_possibly_built(
    check_source: Callable[..., Report],
) -> None:
    source = BASE.format(replace="self.conv_r.weight.data = w").replace(
        "ConvClass, cin", "ConvClass=nn.Conv2d, cin"
    ) + SUB.format(name="Sub", args="w")
    # (the default stands in Sub too: one finding, the ancestor's own, possibly)
    ((line, _, message),) = _il005(check_source(source))
    assert line == LINE and "possibly" in message and "(in Sub)" not in message

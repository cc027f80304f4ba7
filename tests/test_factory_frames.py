"""A function of the project that a construction calls to build an object (a factory:
``net = Net(...)``, parts replaced or deleted, ``return net``) runs as part of that
construction: what it throws away of the object it builds is thrown away by the class that
called it (IL005, at the factory's line, naming the classes that run it)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=1024, n=50000):
        super().__init__()
        self.wte = nn.Embedding(n, d)
        self.h = nn.Linear(d, d)


def build(d):
    {imp}
    net = Net(d)
    {work}
    return net


class Model(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        {call}
"""


@pytest.mark.parametrize(
    ("work", "call", "expected"),
    [
        ("del net.wte", "self.net = build(d)", "is deleted here"),
        ("net.h = nn.Linear(d, d)", "self.net = build(d)", "is replaced here"),
        ("del net.wte", "net = build(d)\n        self.net = net", "is deleted here"),
        ("del net.wte", "self.a, self.b = build(d), None", ""),
        # the factory reads the part before replacing it: nothing thrown away
        ("n = net.h.weight.sum()\n    net.h = nn.Linear(d, d)", "self.net = build(d)", ""),
        # no class calls the factory: it is not part of a construction here
        ("del net.wte", "self.net = None", ""),
    ],
)
def test_what_a_factory_throws_away_is_thrown_away_by_the_construction(
    check_source: Callable[..., Report], work: str, call: str, expected: str
) -> None:
    found = check_source(CASE.format(imp="", work=work, call=call)).diagnostics
    assert [(d.code, d.line) for d in found] == ([("IL005", 15)] if expected else [])
    for d in found:
        assert expected in d.message
        assert "(in Model)" in d.message


def test_a_class_the_factory_imports_itself(check_source: Callable[..., Report]) -> None:
    """``from .nets import Net`` inside the factory: the class its local holds is found."""
    check_source(CASE.format(imp="", work="", call="pass").split("\n\ndef build")[0], "pkg/nets.py")
    text = CASE.format(
        imp="from pkg.nets import Net", work="del net.wte", call="self.net = build(d)"
    )
    found = check_source(text.replace("class Net(", "class Unused("), "pkg/use.py").diagnostics
    assert [(d.code, d.path, d.line) for d in found] == [("IL005", "pkg/use.py", 15)]

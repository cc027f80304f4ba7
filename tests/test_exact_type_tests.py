"""A pass that picks modules by their exact class (``type(m) in {nn.Conv2d, nn.Linear}``,
``type(m) is nn.Linear``) fills those modules' tensors and no other: it reads nothing of
the object, covers an exact match, and leaves a subclass of the class named alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

VISITED = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        nn.init.xavier_uniform_(self.lin.weight)


class Gen(Base):
    def __init__(self, d):
        super().__init__(d)
        self.apply(self.init_)

    def init_(self, m):
        if {test}:
            nn.init.kaiming_normal_(m.weight)
"""


@pytest.mark.parametrize(
    "test",
    [
        "type(m) in {nn.Conv2d, nn.Linear}",
        "type(m) in (nn.Conv2d, nn.Linear)",
        "type(m) is nn.Linear",
        "type(m) == nn.Linear",
    ],
)
def test_a_visitor_testing_the_exact_class_is_a_pass(
    check_source: Callable[..., Report], test: str
) -> None:
    """``self.apply(init_)`` with a visitor that picks modules by their exact class: a pass
    over the Linear the ancestor filled, that fill thrown away."""
    found = check_source(VISITED.format(test=test)).diagnostics
    assert [(d.code, d.line) for d in found] == [("IL005", 15)]
    assert "`self.lin.weight`" in found[0].message


REFILLED = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.{attr} = {cls}(d, d)
        nn.init.xavier_uniform_(self.{attr}.weight)


class MyLinear(nn.Linear):
    pass


class Child(Base):
    def __init__(self, d):
        super().__init__(d)
        for m in self.modules():
            if {test}:
                nn.init.normal_(m.weight)
"""


@pytest.mark.parametrize(
    ("cls", "test", "expected"),
    [
        ("nn.Linear", "type(m) is nn.Linear", ["IL005"]),
        ("nn.Linear", "type(m) in {nn.Linear, nn.Conv2d}", ["IL005"]),
        # a subclass is not the class named: its weight is not reached
        ("MyLinear", "type(m) is nn.Linear", []),
        ("MyLinear", "isinstance(m, nn.Linear)", ["IL005"]),
        # negated: every module but a Linear
        ("nn.Linear", "type(m) is not nn.Linear", []),
        ("nn.Conv1d", "type(m) is not nn.Linear", ["IL005"]),
        ("nn.Linear", "type(m) not in (nn.Linear,)", []),
    ],
)
def test_an_exact_class_test_covers_that_class_alone(
    check_source: Callable[..., Report], cls: str, test: str, expected: list[str]
) -> None:
    source = REFILLED.format(attr="proj", cls=cls, test=test)
    found = check_source(source).diagnostics
    assert [d.code for d in found] == expected

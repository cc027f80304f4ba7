"""``self.__delattr__("x")`` and ``self.__setattr__("x", v)`` are ``del self.x`` and
``self.x = v`` spelled as the object's own methods (Python runs the same code): deleting or
rebuilding what an ancestor built is reported as for the plain spelling."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """\
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = nn.Linear(2048, 1000)


class Deleted(Base):
    def __init__(self):
        super().__init__()
        self.__delattr__("head")


class Rebuilt(Base):
    def __init__(self):
        super().__init__()
        self.__setattr__("head", nn.Linear(64, 10))
"""


def test_dunder_delete_and_set_are_the_plain_spellings(check_source: Callable[..., Report]):
    found = [(d.line, d.code, d.severity) for d in check_source(SOURCE).diagnostics]
    assert found == [(14, "IL005", "error"), (20, "IL003", "error")]

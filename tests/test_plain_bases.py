"""The standard library's plain bases (``abc.ABC``, ``typing.Generic``) bind nothing an
instance reads, so a read of ``self.x`` that nothing set before raises even with them among
the bases; a ``__new__`` in the MRO that sets the name on the instance it makes sets it
before ``__init__`` runs, so there it does not (vLLM's attention implementations set
``dcp_world_size`` in ``__new__``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
from abc import ABC
from typing import Generic, TypeVar

import torch

T = TypeVar("T")


class Base(ABC, Generic[T]):
{new}
    def __init__(self, d):
        self.flag = self.world > 1
        self.table = torch.randn(d, d)


class Impl(Base[int]):
    def __init__(self, d):
        super().__init__(d)
        self.table = torch.zeros(d, d)
"""

NEW = """    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self.world = 1
        return self
"""


@pytest.mark.parametrize(
    ("new", "found"),
    [
        (NEW, ["IL003"]),
        # nothing sets ``world``: every construction raises at the read, nothing is built
        ("", []),
        # a ``__new__`` that sets other names only
        (NEW.replace("self.world = 1", "self.rank = 0"), []),
    ],
)
def test_a_read_before_any_store_raises_unless_a_class_may_set_it(
    check_source: Callable[..., Report], new: str, found: list[str]
) -> None:
    assert [d.code for d in check_source(CASE.format(new=new)).diagnostics] == found

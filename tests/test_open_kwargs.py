"""Python hands an ancestor every keyword an open ``**kwargs`` pack holds: a parameter the
super call does not name may still be given (``super().__init__(d, **kwargs)`` may pass
``table=``), so a guard on it is undecided and a repeat it leads to is "possibly", where
the same call without the pack leaves the parameter at its default (so does a pack that
cannot hold it: its function's own parameter takes that keyword, or it was popped). And a
statement that
only fills a tensor in place (``init.normal_(self.weight)``, torch's own in
``Embedding.reset_parameters``) keeps nothing of it: a ``del self.weight`` after the
ancestor built and filled it throws that build away (IL005)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, d=4096, table=None):
        super().__init__()
        if table is None:
            self.table = nn.Parameter(torch.zeros(d, d))
        else:
            self.table = nn.Parameter(table)


class Packed(Base):
    def __init__(self, d=4096, **kwargs):
        super().__init__(d, **kwargs)
        self.register_parameter("table", nn.Parameter(torch.ones(d, d)))


class Plain(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        self.register_parameter("table", nn.Parameter(torch.ones(d, d)))


class Consumed(Base):
    def __init__(self, d=4096, table=None, **kwargs):
        super().__init__(d, **kwargs)
        self.register_parameter("table", nn.Parameter(torch.ones(d, d)))


class Popped(Base):
    def __init__(self, d=4096, **kwargs):
        kwargs.pop("table", None)
        super().__init__(d, **kwargs)
        self.register_parameter("table", nn.Parameter(torch.ones(d, d)))
"""

DELETED = """
from torch import nn


class Shared(nn.Embedding):
    def __init__(self, linear, start, end):
        super().__init__(end - start, linear.weight.shape[1])
        del self.weight
        self.linear = linear


class SharedPacked(nn.Embedding):
    def __init__(self, linear, start, end, **kwargs):
        super().__init__(end - start, linear.weight.shape[1], **kwargs)
        del self.weight
        self.linear = linear
"""


def _found(report: Report) -> dict[str, tuple[str, str, str]]:
    return {
        d.class_name.rsplit(".", 1)[-1]: (d.code, d.severity, d.confidence)
        for d in report.diagnostics
    }


def test_a_keyword_pack_may_give_any_parameter(check_source: Callable[..., Report]) -> None:
    found = _found(check_source(SOURCE))
    # (a pack never holds a keyword its function's own parameter takes, nor one popped
    # from it: the default stands, as without the pack)
    assert found == {
        "Packed": ("IL001", "error", "possible"),
        "Plain": ("IL001", "error", "definite"),
        "Consumed": ("IL001", "error", "definite"),
        "Popped": ("IL001", "error", "definite"),
    }


def test_a_deleted_inherited_weight_is_a_build_thrown_away(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")  # (torch's Embedding is read from its sources)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    found = {k: v[:2] for k, v in _found(check_source(DELETED)).items()}
    # (with the pack, ``_weight=`` may be given: the weight is built from it, lightly, and
    # deleted all the same; built, it is always thrown away)
    assert found == {"Shared": ("IL005", "error"), "SharedPacked": ("IL005", "error")}

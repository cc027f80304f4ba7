"""``del cfg.head`` on an argument's object leaves the field unknown (a class attribute may
answer, or the read raises), not None as ``cfg.head = None`` does: an ancestor's test of it
is undecided."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        if cfg.head is None:
            self.head = nn.Linear(4, 4)


class SetNone(Base):
    def __init__(self, cfg):
        cfg.head = None
        super().__init__(cfg)
        self.head = nn.Linear(4, 8)


class Deleted(Base):
    def __init__(self, cfg):
        del cfg.head
        super().__init__(cfg)
        self.head = nn.Linear(4, 8)
"""


def test_a_deleted_field_is_unknown(check_source: Callable[..., Report]) -> None:
    report = check_source(SOURCE)
    found = {
        d.class_name.rsplit(".", 1)[-1]: (d.code, d.confidence)
        for d in report.diagnostics
        if d.code == "IL003"
    }
    assert found == {"SetNone": ("IL003", "definite"), "Deleted": ("IL003", "possible")}

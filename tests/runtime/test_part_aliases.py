"""Parts of a held object dropped through a local that names a part
(``lm = self.vlm.language_model``, then ``del lm.lm_head``), after asking whether the
object has it (``hasattr(self.vlm, "language_model")``: no read of what it holds), and
where the held object's own construction stored the part from a local it built (``lm =
LM(d)``, then ``self.language_model = lm``). Each build dropped is thrown away (IL005).
An alias used otherwise (handed on) keeps the part. Checked against construction: the
parameters reported are those the object registered and no longer holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost, reported  # noqa: E402

SOURCE = """
from torch import nn


class LM(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.body = nn.Linear(d, d)
        self.lm_head = nn.Linear(d, 64 * d)


class VLM(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        lm = LM(d)
        self.language_model = lm


class Aliased(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.vlm = VLM(d)
        if hasattr(self.vlm, "language_model"):
            lm = self.vlm.language_model
            if hasattr(lm, "lm_head"):
                del lm.lm_head


class HandedOn(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.vlm = VLM(d)
        lm = self.vlm.language_model
        self.head = lm.lm_head
        del lm.lm_head
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("part_aliases", SOURCE)


def test_a_part_dropped_through_an_alias_is_thrown_away(module: Path) -> None:
    found = reported(module)
    assert found == {("Aliased", "IL005", "error", "self.vlm.language_model.lm_head")}
    m = importlib.import_module("part_aliases")
    assert lost(m.Aliased) == {("weight", (8192, 128)), ("bias", (8192,))}
    assert lost(m.HandedOn) == set()

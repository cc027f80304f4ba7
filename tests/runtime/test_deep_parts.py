"""A part of an object that another held object's build made, replaced or dropped before
anything reads it (``self.expert.model.embed_tokens = None`` after ``self.expert =
CausalLM(cfg)``): what that construction built there is thrown away (IL005), as for
``self.expert.lm_head = None``, however deep the path. Checked against construction: the
parameters reported are those the object registered and no longer holds."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Inner(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)


class Outer(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.model = Inner(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)


class Dropped(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        self.expert.model.embed_tokens = None


class Deleted(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        del self.expert.model.embed_tokens


class Tied(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        self.emb = nn.Embedding(vocab, dim)
        self.expert.model.embed_tokens.weight = self.emb.weight


class Wrapped(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        self.expert.model.embed_tokens = nn.Sequential(self.expert.model.embed_tokens)


class WrappedLocal(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        emb = self.expert.model.embed_tokens
        self.expert.model.embed_tokens = nn.Sequential(emb)


class UsedFirst(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        self.table = self.expert.model.embed_tokens.weight.detach().clone()
        self.expert.model.embed_tokens = None


class NoSuchPart(nn.Module):
    def __init__(self, vocab=1024, dim=512):
        super().__init__()
        self.expert = Outer(vocab, dim)
        self.expert.model.extra = None
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("deep_parts", SOURCE)


def test_a_deep_part_thrown_away(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = {
        d.class_name.rsplit(".", 1)[-1]: (d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {
        "Dropped": ("IL005", "error", "self.expert.model.embed_tokens"),
        "Deleted": ("IL005", "error", "self.expert.model.embed_tokens"),
        "Tied": ("IL005", "error", "self.expert.model.embed_tokens.weight"),
    }
    dropped = next(d for d in report.diagnostics if d.class_name.endswith("Dropped"))
    assert "(a part of the Inner held in `self.expert.model`)" in dropped.message
    m = importlib.import_module("deep_parts")
    table = {("weight", (1024, 512))}
    assert lost(m.Dropped) == table
    assert lost(m.Deleted) == table
    assert lost(m.Tied) == table
    # wrapped, read first, or no such part built: nothing the construction made is lost
    # unused (the read one is lost, but only after it was read)
    assert lost(m.Wrapped) == set()
    assert lost(m.WrappedLocal) == set()
    assert lost(m.NoSuchPart) == set()
    assert lost(m.UsedFirst) == table

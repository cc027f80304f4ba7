"""A weight tied into another module (``self.lm_head.weight = self.embed.weight``) is one
tensor held by two modules: a walk over the modules (``self.apply(fn)``) fills it once
through each, and the first fill is thrown away. A walk over the parameters meets it once
(torch yields a shared parameter once), and a copy is no tie."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, std=0.02)


def init_linear(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)


class Tied(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        self.apply(init_weights)


class MaybeTied(nn.Module):
    def __init__(self, vocab=32000, hidden=1024, tie=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        if tie:
            self.head.weight = self.embed.weight
        self.apply(init_weights)


class Untied(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.apply(init_weights)


class Copied(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = nn.Parameter(self.embed.weight.detach().clone())
        self.apply(init_weights)


class ByParameters(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        for p in self.parameters():
            nn.init.normal_(p, std=0.02)


class Rebuilt(nn.Module):
    # the head stored anew after the tie holds its own weight
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.apply(init_weights)


class ByTask(nn.Module):
    # tied on one branch, a head of its own on the other: the walk fills the tie's twice
    def __init__(self, vocab=32000, hidden=1024, task="lm"):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        if task == "lm":
            self.head = nn.Linear(hidden, vocab, bias=False)
            self.head.weight = self.embed.weight
        else:
            self.head = nn.Linear(hidden, 8)
        self.apply(init_weights)


class Either(nn.Module):
    # tied, or filled: never both
    def __init__(self, vocab=32000, hidden=1024, tie=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        if tie:
            self.head.weight = self.embed.weight
        else:
            self.apply(init_weights)


class HeadOnly(nn.Module):
    # a walk over the head alone meets the tied tensor once
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        self.head.apply(init_weights)


class Looped(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=0.02)


class OneKind(nn.Module):
    def __init__(self, vocab=32000, hidden=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.head.weight = self.embed.weight
        self.apply(init_linear)
"""


def _passes(report: Report) -> dict[str, tuple[str, str]]:
    return {
        d.class_name.rsplit(".", 1)[-1]: (d.severity, d.confidence)
        for d in report.diagnostics
        if "reaches it through both modules" in d.message
    }


def test_a_walk_over_the_modules_fills_a_tied_weight_twice(
    check_source: Callable[..., Report],
) -> None:
    report = check_source(SOURCE)
    found = _passes(report)
    assert found == {
        "Tied": ("error", "definite"),
        "MaybeTied": ("error", "possible"),
        "Looped": ("error", "definite"),
        "ByTask": ("error", "possible"),
    }
    # the walk visits the modules in the order they were stored: the embedding's fill (the
    # loop's second) comes first and is the one thrown away
    fills = [
        n for n, line in enumerate(SOURCE.splitlines(), 1) if "nn.init.normal_(m.weight" in line
    ]
    (looped,) = [d for d in report.diagnostics if "through both" in d.message and d.line in fills]
    assert looped.line == fills[0] and f"m.py:{fills[1]} " in looped.message

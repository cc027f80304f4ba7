"""``if self.x is None: self.x = ...`` never runs after a store of a value there, made
before the test; a store inside the same ``if`` runs after the test was taken, so both run."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
from torch import nn


class Head(nn.Module):
    def __init__(self, d=8, name=None):
        super().__init__()
        self.proj = None
        if name is not None:
            self.proj = nn.Linear(d, d)


class DefaultHead(Head):
    def __init__(self, d=8, name=None):
        super().__init__(d, name)
        if self.proj is None:
            self.proj = nn.Linear(d, 2 * d)


class Normed(nn.Module):
    def __init__(self, d=8, norm=True):
        super().__init__()
        self.head = None
        if self.head is None:
            self.head = nn.Linear(d, d)
            if norm:
                self.head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d))


class Fallback(nn.Module):
    # one statement builds on some paths, then tests for None: the test comes after the build
    def __init__(self, d=8, fast=False, info=None):
        super().__init__()
        self.f = None
        if info is not None:
            if fast:
                self.f = nn.Linear(d, d)
            if self.f is None:
                self.f = nn.Linear(d, 2 * d)


class Twice(nn.Module):
    # a first build under a test of its own: the second test comes after it
    def __init__(self, d=8, fast=False, info=None):
        super().__init__()
        self.f = None
        if info is not None:
            if fast and self.f is None:
                self.f = nn.Linear(d, d)
            if self.f is None:
                self.f = nn.Linear(d, 2 * d)


class Nested(nn.Module):
    def __init__(self, d=8, fast=False):
        super().__init__()
        self.f = None
        if self.f is None:
            if fast:
                self.f = nn.Linear(d, d)
            if self.f is None:
                self.f = nn.Linear(d, 2 * d)
"""


def test_a_test_for_none_after_a_store_and_inside_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "heads"\n')
    (tmp_path / "heads.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [(d.code, d.class_name.rsplit(".", 1)[-1], d.line) for d in report.diagnostics]
    assert found == [("IL005", "Normed", 27)]

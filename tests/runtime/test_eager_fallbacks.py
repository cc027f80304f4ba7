"""An object built as an argument of a call that may return another value instead
(``default(proj, nn.Linear(d, d))``, ``kw.get("q", nn.Linear(d, d))``) is thrown away
whenever the other value is picked (IL005): checked against the parameters the
construction registered and the object does not hold, with and without the caller's own."""

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
from inspect import isfunction

import torch.nn as nn


def exists(v):
    return v is not None


def default(val, d):
    if exists(val):
        return val
    return d() if isfunction(d) else d


class Head(nn.Module):
    def __init__(self, d=512, proj=None, act=None):
        super().__init__()
        self.proj = default(proj, nn.Linear(d, 2 * d))
        self.act = default(act, nn.GELU())
        self.lazy = default(proj, lambda: nn.Linear(d, 3 * d))


class Plain(Head):
    def __init__(self, d=512):
        super().__init__(d)
        self.out = default(None, nn.Linear(d, d))


class Local(nn.Module):
    def __init__(self, d=512, out=None, kept=None):
        super().__init__()
        proj = nn.Linear(d, 5 * d)
        self.out = default(out, proj)
        other = nn.Linear(d, 6 * d)
        self.kept = default(kept, other)
        self.other = other


class Keyed(nn.Module):
    def __init__(self, d=512, **kw):
        super().__init__()
        self.q = kw.get("q", nn.Linear(d, 4 * d))


class Rebound(nn.Module):
    def __init__(self, d=512, window=None, size=4):
        super().__init__()
        window = default(window, size)
        self.proj = nn.Linear(d, size * d)  # (the rebinding is never read)


class Moved(nn.Module):
    def __init__(self, d=512, device="cpu", v=None, **kw):
        super().__init__()
        self.q = kw.get("q", nn.Linear(d, 4 * d).to(device))
        self.v = default(v, nn.Linear(d, 4 * d).float())
"""


def _line(text: str) -> int:
    return next(i for i, t in enumerate(SOURCE.splitlines(), 1) if text in t)


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("eager_fallbacks", SOURCE)


def test_a_fallback_built_before_the_pick_is_lost_when_the_caller_gives_its_own(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (d.line, d.code, d.severity, d.message.split(" ", 1)[0]) for d in report.diagnostics
    )
    # the heavy fallbacks a caller's own value replaces, inline or a local built for the call
    # alone; not the parameterless one, the one built only when called, the one whose other
    # value is surely None, a local the object keeps too, nor a parameter the statement
    # itself rebinds (``window = default(window, size)``)
    assert found == [
        (20, "IL005", "error", "`nn.Linear(...)`"),
        (35, "IL005", "error", "`nn.Linear(...)`"),
        (44, "IL005", "error", "`nn.Linear(...)`"),
        # (moved or cast by a module method that returns it: the same build)
        (_line(".to(device))"), "IL005", "error", "`nn.Linear(...)`"),
        (_line("self.v = default("), "IL005", "error", "`nn.Linear(...)`"),
    ]
    assert all("possibly" not in d.message for d in report.diagnostics)
    assert all("whenever" in d.message for d in report.diagnostics)
    m = importlib.import_module("eager_fallbacks")
    given = torch.nn.Linear(512, 5)
    assert lost(lambda: m.Head(proj=given)) == {("weight", (1024, 512)), ("bias", (1024,))}
    assert lost(lambda: m.Head()) == set()
    assert lost(lambda: m.Plain()) == set()
    # (a local built for the call alone; not one the object keeps as well)
    assert lost(lambda: m.Local(out=given)) == {("weight", (2560, 512)), ("bias", (2560,))}
    assert lost(lambda: m.Local(out=given, kept=given)) == {
        ("weight", (2560, 512)),
        ("bias", (2560,)),
    }
    assert lost(lambda: m.Keyed(q=given)) == {("weight", (2048, 512)), ("bias", (2048,))}
    assert lost(lambda: m.Keyed()) == set()
    assert lost(lambda: m.Rebound(window=2)) == set()
    assert lost(lambda: m.Moved(q=given)) == {("weight", (2048, 512)), ("bias", (2048,))}
    assert lost(lambda: m.Moved(v=given)) == {("weight", (2048, 512)), ("bias", (2048,))}
    assert lost(lambda: m.Moved()) == set()

"""A local made of random draws (``emb = nn.Parameter(torch.randn(n, k, d))``) and filled
whole by one of torch's fills before anything reads it (``nn.init.normal_(emb, std=0.02)``)
throws the draws away (IL005), as a drawn attribute filled again does; not when something
reads the local first, when the fill covers only a part, when the local was made empty, or
when a project function of its own does the filling. Checked against construction: the
tensors reported are drawn by a random factory and then written whole in place."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from registrations import Draws  # noqa: E402

from initlint.api import check  # noqa: E402
from initlint.cli import main  # noqa: E402

SOURCE = """
import torch
from torch import nn


class InLoop(nn.Module):
    def __init__(self, names=("a", "b"), n=4, d=256):
        super().__init__()
        self.cond = nn.ParameterDict({})
        for name in names:
            emb = nn.Parameter(torch.randn(n, d, d))
            nn.init.normal_(emb, std=0.02)
            self.cond[name] = emb


class Stored(nn.Module):
    def __init__(self, n=1024, d=512):
        super().__init__()
        emb = nn.Parameter(torch.randn(n, d) * 0.1)
        emb.data.uniform_(-0.1, 0.1)
        self.emb = emb


class ReadFirst(nn.Module):
    def __init__(self, n=1024, d=512):
        super().__init__()
        emb = torch.randn(n, d)
        scale = float(emb.std())
        nn.init.normal_(emb, std=scale)
        self.register_buffer("emb", emb)


class Partial(nn.Module):
    def __init__(self, n=1024, d=512):
        super().__init__()
        emb = torch.randn(n, d)
        emb[0].zero_()
        self.register_buffer("emb", emb)


class Empty(nn.Module):
    def __init__(self, n=1024, d=512):
        super().__init__()
        emb = nn.Parameter(torch.empty(n, d))
        nn.init.normal_(emb, std=0.02)
        self.emb = emb
"""


def _draws_filled(build: Callable[[], Any]) -> bool:
    """Whether constructing draws a tensor at random and then writes all of it in place."""
    with Draws() as seen:
        build()
    return bool(seen.refilled)


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("local_draws", SOURCE)


def test_draws_filled_before_a_read(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.line, d.severity, "possibly" in d.message)
        for d in report.diagnostics
    )
    # (each draw is 1 MiB or more: errors; the loop's on every pass that draws)
    assert found == [("InLoop", 12, "error", False), ("Stored", 20, "error", False)]
    first = next(d for d in report.diagnostics if d.line == 12)
    assert "the random values the local `emb` was made with" in first.message
    assert first.related[0].message.startswith("drawn at random here")
    m = importlib.import_module("local_draws")
    assert _draws_filled(m.InLoop) and _draws_filled(m.Stored)
    assert not _draws_filled(m.Partial)
    assert not _draws_filled(m.Empty)
    # (read first: the runtime writes the draws over all the same; they were used)
    assert _draws_filled(m.ReadFirst)


def test_explain_class_names_the_fill_of_the_drawn_local(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    result = CliRunner().invoke(
        main, ["explain-class", "--no-cache", "local_draws:Stored", str(module)]
    )
    assert result.exit_code == 0, result.output
    assert "fill the whole local emb in place, made of random draws" in result.output
    assert "was made with filled again before anything read them" in result.output

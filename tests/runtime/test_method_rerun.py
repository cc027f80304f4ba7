"""A method run again on an object the class built, after the object's construction ran it
(``self.model = Model(n)``, then ``self.model.init_models()``): the parts that first run
built are built anew and the first ones thrown away (IL005). Checked against what
constructing each class registers and ends up holding."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = '''
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(n, n))


class Model(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.tokenizer = None
        self.n = n
        self.init_models()

    def init_models(self):
        self.decoder = Decoder(self.n)

    def describe(self):
        return self.decoder.proj.shape


class Retrained(nn.Module):
    """Runs init_models() again: the first decoder is thrown away."""

    def __init__(self, n=4):
        super().__init__()
        self.model = Model(n)
        self.model.tokenizer = "tokens"
        self.model.init_models()


class UsedFirst(nn.Module):
    """Uses the model before running it again: the first decoder served that use."""

    def __init__(self, n=4):
        super().__init__()
        self.model = Model(n)
        self.shape = self.model.describe()
        self.model.init_models()


class Once(nn.Module):
    """Builds the model and keeps it as built."""

    def __init__(self, n=4):
        super().__init__()
        self.model = Model(n)
'''


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("rerun_models", SOURCE)


def test_a_rerun_throws_away_what_the_first_run_built(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {
        d.class_name.rpartition(".")[2]: (d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    }
    assert found == {"Retrained": ("IL005", "error", "self.model.decoder")}
    m = importlib.import_module("rerun_models")
    assert lost(m.Retrained) == {("proj", (4, 4))}
    assert lost(m.Once) == set()
    # (UsedFirst throws a decoder away too, after using it: no build went unused)
    assert lost(m.UsedFirst) == {("proj", (4, 4))}

"""A read of a held module on a branch that never runs with a later pass does not keep the
module's own fills: ``if scaled: <a walk that reads the parameters>`` / ``else:
self.apply(init)`` throws away, on the ``else`` path, what the module's construction
filled (IL005, possibly: on that path). A read on the pass's own path keeps them. Checked
against construction, on both paths."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Mixer(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.proj = nn.Linear(d, d)
        nn.init.uniform_(self.proj.weight, -0.1, 0.1)


class Model(nn.Module):
    def __init__(self, d=16, scaled=False):
        super().__init__()
        self.mixer = Mixer(d)
        if scaled:
            self.total = sum(float(p.detach().abs().sum()) for p in self.parameters())
        else:
            self.apply(init)


class ReadFirst(nn.Module):
    def __init__(self, d=16, scaled=False):
        super().__init__()
        self.mixer = Mixer(d)
        self.scale = float(self.mixer.proj.weight.detach().abs().max())
        if not scaled:
            self.apply(init)


def init(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("exclusive_reads", SOURCE)


def test_a_read_on_another_branch_keeps_nothing(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.line, "possibly" in d.message)
        for d in report.diagnostics
    )
    assert found == [("Model", 19, True)]
    assert "`self.mixer.proj.weight`" in report.diagnostics[0].message
    m = importlib.import_module("exclusive_reads")
    path = str(module / "exclusive_reads.py")
    assert filled_twice(m.Model, path) == {"mixer.proj.weight"}
    assert filled_twice(lambda: m.Model(scaled=True), path) == set()
    # (read first: the runtime fills it twice all the same; the first fill was used)
    assert filled_twice(m.ReadFirst, path) == {"mixer.proj.weight"}

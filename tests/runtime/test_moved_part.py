"""A module moved or cast in place (``nn.Linear(...).to(device)``, then ``self.fc =
self.fc.half()``) is the object its constructor built: a part of it replaced before any use
(``self.fc.weight = proj_weight``) throws that construction's part away (IL005), as for a
module stored plainly. Checked against construction (``trace_model``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402
from initlint.runtime import trace_model  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Moved(nn.Module):
    def __init__(self, proj_weight, d=512, n=1024):
        super().__init__()
        self.fc = nn.Linear(d, n, bias=False).to("cpu")
        self.fc.weight = proj_weight


class Cast(nn.Module):
    def __init__(self, proj_weight, d=512, n=1024):
        super().__init__()
        self.fc = nn.Linear(d, n, bias=False)
        if proj_weight.dtype == torch.float64:
            self.fc = self.fc.double()
        self.fc.weight = proj_weight


class Used(nn.Module):
    def __init__(self, proj_weight, d=512, n=1024):
        super().__init__()
        self.fc = nn.Linear(d, n, bias=False)
        self.fc = self.fc.double() if proj_weight.dtype == torch.float64 else self.fc
        self.fc.weight = proj_weight
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Linear read from its sources)
    return source_module("moved_parts", SOURCE)


def test_a_part_of_a_moved_or_cast_module_replaced(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {(d.class_name.rsplit(".", 1)[-1], d.line, d.severity) for d in report.diagnostics}
    # ``Used``: ``A if t else self.fc`` is not a method returning the object: a read of it
    assert found == {("Moved", 10, "error"), ("Cast", 19, "error")}
    import moved_parts as m

    weight = torch.nn.Parameter(torch.zeros(1024, 512, dtype=torch.float64))
    for cls in ("Moved", "Cast"):
        made = getattr(m, cls)
        trace = trace_model(lambda made=made: made(weight), project_roots=[module])
        repeats = {(r.path, r.repeat.name) for r in trace.repeats}
        assert ("fc", "weight") in repeats, cls
        built = made(weight)
        assert built.fc.weight is weight  # (the Linear's own weight is gone)

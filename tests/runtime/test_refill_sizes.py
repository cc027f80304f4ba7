"""A fill run again is priced as the tensor it fills, which costs no more than building the
module that holds it did, its sizes as written where it was built: ``reset_parameters()``
again on a ``nn.Linear(2, 2)`` is light, on a ``nn.Embedding(1024, 768)`` heavy, whatever
the module's own construction, simulated with its arguments left unknown, would say. Where
every size is written out, the severity is checked against the numbers the object really
holds: an error exactly when the tensors filled again hold a mebibyte or more. A few rows
of a width not known here (``nn.Linear(d, 2)``, ``torch.randn(d, 2)``) are as many vectors
of it: unknown, a warning that says so. A size the reported class's own argument gives,
whose default is a number, is read at that default, and so is a number the call building a
held object gives it (written, or through such a size): the severity is checked against
what the class built with no arguments throws away; a size bound again is not read so."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402

MIB = 1 << 20

SOURCE = """
import torch
from torch import nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.fc.reset_parameters()


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 7, bias=False)
        self.conv.reset_parameters()


class Square(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 512, bias=False)
        self.fc.reset_parameters()


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1024, 768)
        self.emb.reset_parameters()


class InList(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.mlp[0].reset_parameters()


class InListBig(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(1024, 512, bias=False), nn.ReLU())
        self.mlp[0].reset_parameters()


class Walked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                m.reset_parameters()


class WalkedBig(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 1024, bias=False)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                m.reset_parameters()
"""

WRITTEN = ("Tiny", "Stem", "Square", "Table", "InList", "InListBig", "Walked", "WalkedBig")

UNSIZED_SOURCE = """
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 2)
        self.fc.reset_parameters()


class Scores(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 1)
        self.fc.reset_parameters()


class Square(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.fc.reset_parameters()


class Pairs(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d, 2) * 0.02)
        nn.init.trunc_normal_(self.w, std=0.02)


class Plane(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d, d) * 0.02)
        nn.init.trunc_normal_(self.w, std=0.02)
"""


def _rated(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, str]]:
    """Each class's one finding: its severity and message."""
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([root], cwd=root, use_cache=False)
    lines = (root / next(root.glob("*.py")).name).read_text().splitlines()
    out: dict[str, tuple[str, str]] = {}
    for d in report.diagnostics:
        owner = next(
            line.split()[1].split("(")[0]
            for line in reversed(lines[: d.line])
            if line.startswith("class ")
        )
        assert owner not in out, owner
        out[owner] = (d.severity, d.message)
    return out


@pytest.fixture
def written(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("refill_written", SOURCE)


@pytest.fixture
def unsized(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("refill_unsized", UNSIZED_SOURCE)


def test_refill_of_written_sizes_is_an_error_from_a_mebibyte(
    written: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated = _rated(written, monkeypatch)
    assert set(rated) == set(WRITTEN)
    m = importlib.import_module("refill_written")
    for name in WRITTEN:
        obj = getattr(m, name)()
        # (every tensor of these modules is filled again by the rerun)
        held = sum(p.numel() * p.element_size() for p in obj.parameters())
        severity = rated[name][0]
        assert (held >= MIB) == (severity == "error"), (name, held, severity)
    assert [n for n in WRITTEN if rated[n][0] == "error"] == [
        "Square",
        "Table",
        "InListBig",
        "WalkedBig",
    ]


def test_few_rows_of_a_width_not_known_are_unknown(
    unsized: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated = _rated(unsized, monkeypatch)
    assert {n: s for n, (s, _) in rated.items()} == {
        "Head": "warning",
        "Scores": "warning",
        "Square": "error",
        "Pairs": "warning",
        "Plane": "error",
    }
    for name in ("Head", "Pairs"):
        assert "not known here" in rated[name][1], name


DEFAULTS_SOURCE = """
import torch
from torch import nn


class Small(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.linear = nn.Linear(3 * hidden, hidden)
        self.reset_parameters()

    def reset_parameters(self):
        self.linear.reset_parameters()


class Large(nn.Module):
    def __init__(self, hidden=1024):
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(self.hidden, hidden)
        self.linear.reset_parameters()


class Drawn(nn.Module):
    def __init__(self, depth=9, electrodes=22):
        super().__init__()
        self.w = nn.Parameter(torch.randn(depth, 1, electrodes))
        nn.init.xavier_uniform_(self.w.data)


class Widened(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        dim *= 64
        self.fc = nn.Linear(dim, dim)
        self.fc.reset_parameters()


class Base(nn.Module):
    def __init__(self, dim=4096):
        super().__init__()
        self.proj = nn.Linear(dim, dim)


class Sub(Base):
    def __init__(self, dim=64):
        super().__init__(dim)
        self.proj = nn.Linear(dim, dim)


class Block(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        nn.init.zeros_(self.fc.weight)


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(1024)
        nn.init.xavier_uniform_(self.block.fc.weight)


class Final(nn.Module):
    def __init__(self, hidden, out):
        super().__init__()
        self.conv = nn.Conv2d(hidden, out, 3, padding=1)
        nn.init.xavier_uniform_(self.conv.weight)


class Narrow(nn.Module):
    def __init__(self, in_ch=4, hidden=1152, sigma=True):
        super().__init__()
        self.out_ch = in_ch * 2 if sigma else in_ch
        self.final = Final(hidden, self.out_ch)
        nn.init.zeros_(self.final.conv.weight)


class Wide(nn.Module):
    def __init__(self, hidden=1152):
        super().__init__()
        head = Final(hidden, hidden // 2)
        self.final = head
        nn.init.zeros_(self.final.conv.weight)
"""

DEFAULTS = {
    "Small": ("warning", "linear"),
    "Large": ("error", "linear"),
    "Drawn": ("warning", "w"),
    "Widened": ("error", "fc"),
    "Sub": ("warning", "proj"),
    "Holder": ("error", "block.fc.weight"),
    "Narrow": ("warning", "final.conv.weight"),
    "Wide": ("error", "final.conv.weight"),
}


@pytest.fixture
def defaults(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("refill_defaults", DEFAULTS_SOURCE)


def test_sizes_at_the_reported_class_s_defaults(
    defaults: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated = _rated(defaults, monkeypatch)
    assert {n: s for n, (s, _) in rated.items()} == {n: s for n, (s, _) in DEFAULTS.items()}
    m = importlib.import_module("refill_defaults")
    for name, (severity, part) in DEFAULTS.items():
        held = m.__dict__[name]()
        for attr in part.split("."):
            held = getattr(held, attr)
        # (what is filled again: the whole tensor, or the module's weight and bias)
        tensors = [held] if isinstance(held, torch.Tensor) else list(held.parameters())
        thrown = sum(t.numel() * t.element_size() for t in tensors)
        assert (thrown >= MIB) == (severity == "error"), (name, thrown)
        assert "not known here" not in rated[name][1], name

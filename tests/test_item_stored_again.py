"""An item stored into a container the object holds and stored again at the same key (a
constant written twice, or one name bound to nothing else in between), with nothing reading
the container in between, throws the first item away (IL005): ``self.heads["a"] =
nn.Linear(...)`` twice, or ``self.models[i] = build(...)`` twice in one turn of a loop
(possibly: the loop may not run). Another key, the name bound again (or given to another
call of the method), a ``continue`` that ends the turn in between, or a read of the
container in between, is no repeat. A class that is no torch module is checked for it too."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Keyed(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.heads["a"] = nn.Linear(d, 2 * d)


class HashKey(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a#b"] = nn.Linear(d, d)
        self.heads["a#b"] = nn.Linear(d, 2 * d)


class Looped:
    def __init__(self, n, d=1024, warm=False):
        self.models = {}
        for i in range(n):
            if warm:
                self.models[i] = nn.Linear(d, d)
            self.models[i] = nn.Linear(d, 2 * d)


class OtherKey(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.heads["b"] = nn.Linear(d, 2 * d)


class Rebound(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        k = "a"
        self.heads[k] = nn.Linear(d, d)
        k = "b"
        self.heads[k] = nn.Linear(d, 2 * d)


class Skipped(nn.Module):
    def __init__(self, kinds, d=1024):
        super().__init__()
        self.pools = nn.ModuleDict()
        for key, kind in kinds.items():
            if kind == "pair":
                self.pools[key] = nn.Linear(d, d)
                continue
            self.pools[key] = nn.Linear(d, 2 * d)


class Called(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.add("a", d)
        self.add("b", d)

    def add(self, name, d):
        self.heads[name] = nn.Linear(d, d)


class ReadBetween(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(d, d)
        self.size = sum(p.numel() for p in self.heads.parameters())
        self.heads["a"] = nn.Linear(d, 2 * d)
"""


def test_an_item_stored_again_at_its_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "items"\n')
    (tmp_path / "items.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.confidence, d.message.split("`")[1])
        for d in report.diagnostics
    )
    assert found == [
        ("HashKey", "IL005", "error", "definite", "self.heads['a#b']"),
        ("Keyed", "IL005", "error", "definite", "self.heads['a']"),
        ("Looped", "IL005", "error", "possible", "self.models[i]"),
    ]

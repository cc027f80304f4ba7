"""Setup a flag switches off is not missing where every read of it sits under the same
test, including a read in a helper method whose every call is made under that test (one
level): the class that passes the flag off then never reads it. A helper also called
outside the test can still find it missing."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Store(nn.Module):
    def __init__(self, serialize=True):
        super().__init__()
        self.serialize = serialize
        self.items = list(range(10))
        self.full_init()

    def full_init(self):
        if self.serialize:
            self.table = torch.zeros(100, 100)

    def get(self, i):
        if self.serialize:
            return self._row(i)
        return self.items[i]

    def _row(self, i):
        return self.table[i]


class Plain(Store):
    def __init__(self):
        super().__init__(serialize=False)


class Leaky(nn.Module):
    def __init__(self, serialize=True):
        super().__init__()
        self.serialize = serialize
        self.full_init()

    def full_init(self):
        if self.serialize:
            self.table = torch.zeros(100, 100)

    def get(self, i):
        if self.serialize:
            return self._row(i)
        return self._row(0)

    def _row(self, i):
        return self.table[i]


class LeakyPlain(Leaky):
    def __init__(self):
        super().__init__(serialize=False)
"""


def _found(tmp_path: Path) -> list[tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "stores"\n')
    (tmp_path / "stores.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return sorted((d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics)


def test_a_helper_called_only_under_the_flag_reads_nothing_missing(tmp_path: Path) -> None:
    assert ("Plain", "IL004") not in _found(tmp_path)


def test_a_helper_also_called_without_the_flag_may_find_it_missing(tmp_path: Path) -> None:
    assert ("LeakyPlain", "IL004") in _found(tmp_path)

"""``parts += [Block() for ...]`` fills a local list as ``parts.extend(...)`` does: the
list, and the container built from it, cost what went in. A rebuild of that container is
as heavy as its blocks, not light."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, n=1024):
        super().__init__()
        self.fc = nn.Linear(n, n)


class Stack(nn.Module):
    def __init__(self, sizes=(1, 2, 3)):
        super().__init__()
        blocks = []
        blocks += [Block() for _ in sizes]
        self.blocks = nn.ModuleList(blocks)


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = Stack()


class Sub(Base):
    def __init__(self):
        super().__init__()
        self.stack = Stack()


class Counted(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        total = 0
        total += n
        self.scale = nn.Identity()


class CountedSub(Counted):
    def __init__(self):
        super().__init__()
        self.scale = nn.Identity()
"""


def test_a_list_grown_by_plus_equals_costs_what_went_in(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "grown"\n')
    (tmp_path / "grown.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = {(d.class_name.rsplit(".", 1)[-1], d.code): d.severity for d in report.diagnostics}
    assert found.get(("Sub", "IL003")) == "error"
    assert found.get(("CountedSub", "IL003")) == "warning"  # (a number added: still light)

"""A redo on every arm of an ``if`` chain passes ``flag=False`` only when no arm reads the
ancestor's value before replacing it: one that does needs the ancestor's build on its path."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d=8, build_head=True):
        super().__init__()
        self.body = nn.Linear(d, d)
        if build_head:
            self.head = nn.Linear(d, d)


class Sub(Base):
    def __init__(self, kind="a", d=8):
        super().__init__(d)
        if kind == "a":
            self.head = nn.Linear(d, 4)
        elif kind == "b":
            self.norm = nn.LayerNorm(self.head.out_features)
            self.head = nn.Linear(d, 2)
        else:
            raise ValueError(kind)
"""


def test_an_arm_that_reads_the_ancestors_value_keeps_its_build(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "arms"\n')
    (tmp_path / "heads.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    first = min(report.diagnostics, key=lambda d: d.line)
    assert first.fix is not None
    assert "pass `build_head=not (kind == 'a')`" in first.fix.message

"""A flag threaded through an intermediate ``__init__`` keeps the default of the parameter
it reaches: constructed alone, the intermediate class does what it did."""

from __future__ import annotations

from pathlib import Path

from initlint import api

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, lite=False):
        super().__init__()
        if not lite:
            self.head = nn.Linear(2048, 2048)


class Mid(Base):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)


class Child(Mid):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(2048, 512)
"""


def test_a_threaded_flag_keeps_its_default(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    (tmp_path / "m.py").write_text(SOURCE)
    diff = api.fix([tmp_path], unsafe=True, diff_only=True, cwd=tmp_path, use_cache=False).diff()
    assert "+    def __init__(self, lite: bool = False):" in diff
    assert "+        super().__init__(lite=lite)" in diff
    assert "+        super().__init__(lite=True)" in diff

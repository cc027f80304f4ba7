"""A part of a call's result costs what the call does: ``json.load(f)["train"]`` and
``pd.read_csv(path)[0]`` read the file whatever part is kept; a part of a local is a view of
what the local holds, no work of its own. A conversion of values computed right there costs
what computing them does: ``torch.from_numpy(np.arange(n)[::-1])`` is a range, one
dimension of a size not known here."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import json


class Split:
    def __init__(self, path="split.json"):
        self.names = json.load(open(path))["train"]


class Subset(Split):
    \"\"\"Reads the file again for another part: the first read is thrown away.\"\"\"

    def __init__(self, path="split.json"):
        super().__init__(path)
        self.names = json.load(open(path))["val"]


class Picked(Split):
    \"\"\"Keeps a part of what the base read: a view, no read of its own.\"\"\"

    def __init__(self, path="split.json"):
        super().__init__(path)
        names = self.names
        self.names = names[:2]
"""


def test_a_part_of_a_read_costs_the_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "splits"\n')
    (tmp_path / "splits.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [(d.code, d.severity, d.class_name.rsplit(".", 1)[-1]) for d in report.diagnostics]
    assert found == [("IL003", "error", "Subset")]


STEPS = """
import numpy as np
import torch


class Scheduler(torch.nn.Module):
    def __init__(self, n, steps=50):
        super().__init__()
        self.n = n
        self.timesteps = torch.from_numpy(np.arange(0, self.n)[::-1].astype(np.int64))
        self.timesteps = torch.linspace(self.n - 1, 0, steps).long()
"""


def test_a_conversion_of_a_range_is_a_range(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "steps"\n')
    (tmp_path / "steps.py").write_text(STEPS)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [(d.code, d.severity, d.confidence) for d in report.diagnostics]
    assert found == [("IL005", "warning", "definite")]
    assert "what that build costs is not known here" in report.diagnostics[0].message

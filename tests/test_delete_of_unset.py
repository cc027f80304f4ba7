"""``del self.x`` reads ``x``: where nothing set it, the path raises AttributeError. A class
that deletes, unconditionally, what its ancestor built on one branch only runs on that
branch from there on, so what it deletes under the other branch's test is never deleted
(and never reported); what it deletes on the branch that runs is."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, classify=False):
        super().__init__()
        self.classify = classify
        self.stem = nn.Conv2d(3, 64, 3)
        if classify:
            self.fc = nn.Linear(512, 1000)
            self.pool = nn.AdaptiveAvgPool2d(1)
        else:
            self.final = nn.Conv2d(2048, 19, 7)


class Backbone(Net):
    \"\"\"Drops the segmentation head; with ``classify`` the ``del`` below raises first.\"\"\"

    def __init__(self, classify=False):
        super().__init__(classify)
        del self.final
        if self.classify:
            del self.fc
            del self.pool


class Trunk(Net):
    \"\"\"Drops the head each branch built: both deletes run on their own branch.\"\"\"

    def __init__(self, classify=False):
        super().__init__(classify)
        if self.classify:
            del self.fc
        else:
            del self.final


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        del self.head
        self.head = nn.Linear(8, 8)
"""


def _found(tmp_path: Path) -> dict[tuple[str, str], str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {
        (d.class_name.rpartition(".")[2], d.message.split("`")[1]): d.severity
        for d in report.diagnostics
    }


def test_delete_on_the_branch_that_runs_is_reported(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert found[("Backbone", "self.final")] == "error"
    assert found[("Trunk", "self.fc")] == "error"
    assert found[("Trunk", "self.final")] == "error"


def test_delete_after_a_delete_that_raised_is_never_reached(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert ("Backbone", "self.fc") not in found
    assert ("Backbone", "self.pool") not in found

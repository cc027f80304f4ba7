"""A loop over what the object holds, written out by attribute (``for m in (self.blocks,
self.head): m.apply(init)``), is read as its body once per item: a pass or a fill it makes
throws away the fills the items' constructions made. A body that may make an item's turn
differ from writing it out (a test of the item, a store through any name, a mention of the
object, a call that writes, an early exit, a starred container that may be a dict) is not
read so."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import torch
from torch import nn


def xavier(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


def note(m):
    pass


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d))
        nn.init.zeros_(self.modulation[-1].weight)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = Block(d)
        self.count = 0
{loop}

    def bump(self):
        self.count += 1
"""

FOUND = {
    "tuple_of_held": "        for m in (self.blocks, self.head):\n            m.apply(xavier)",
    "list_of_held": "        for m in [self.head, self.blocks]:\n            m.apply(xavier)",
    "a_fill_of_each": (
        "        for b in (self.head,):\n            nn.init.normal_(b.modulation[-1].weight)"
    ),
}

SILENT = {
    "a_starred_container": (
        "        for b in (*self.blocks, self.head):\n"
        "            nn.init.normal_(b.modulation[-1].weight)"
    ),
    "a_test_of_the_item": (
        "        for m in (self.blocks, self.head):\n"
        "            if isinstance(m, nn.Linear):\n                m.apply(xavier)"
    ),
    "an_alias_written_through": (
        "        h = self\n        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            h.count = 1"
    ),
    "super_called": (
        "        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            super().train()"
    ),
    "a_writing_call": (
        "        mods = self._modules\n        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            mods.update({})"
    ),
    "stores_to_the_object": (
        "        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            self.count += 1"
    ),
    "runs_a_method": (
        "        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            self.bump()"
    ),
    "hands_the_object_on": (
        "        for m in (self.blocks, self.head):\n"
        "            m.apply(xavier)\n            note(self)"
    ),
    "leaves_early": (
        "        for m in (self.blocks, self.head):\n            m.apply(xavier)\n            break"
    ),
    "rebinds_the_name": (
        "        for m in (self.blocks, self.head):\n"
        "            m = nn.Identity()\n            m.apply(xavier)"
    ),
    "uses_setattr": (
        "        for m in (self.blocks, self.head):\n"
        '            m.apply(xavier)\n            setattr(self, "head", nn.Identity())'
    ),
}


def _found(tmp_path: Path, loop: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(SOURCE.format(loop=loop))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return sorted(d.code for d in report.diagnostics if d.class_name.endswith(".Net"))


@pytest.mark.parametrize("case", sorted(FOUND))
def test_the_loop_is_its_body_once_per_item(tmp_path: Path, case: str) -> None:
    assert _found(tmp_path, FOUND[case]) == ["IL005"]


@pytest.mark.parametrize("case", sorted(SILENT))
def test_a_body_that_may_change_the_items_is_not_read_so(tmp_path: Path, case: str) -> None:
    assert _found(tmp_path, SILENT[case]) == []

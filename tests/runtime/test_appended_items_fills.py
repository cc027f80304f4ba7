"""An item put into a container (``self.blocks.append(Block(d))``) reads nothing the
container holds: the fills the items' own constructions made stay unread, and a pass of
the whole object after (``self.apply(init)``) fills them again. Checked at runtime: every
weight of the blocks is filled twice, and the static check reports the pass."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import fills_per_tensor  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Mlp(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = Mlp(d)


class Appended(nn.Module):
    def __init__(self, d=256, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(Block(d))
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
"""


def test_a_pass_after_appends_fills_the_items_again(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("appended", SOURCE)
    m = importlib.import_module("appended")
    obj, fills = fills_per_tensor("trunc_normal_", m.Appended)
    weights = [p for n, p in obj.named_parameters() if n.endswith("weight")]
    assert weights and all(fills[id(w)] == 2 for w in weights)
    (found,) = check([root], cwd=root, use_cache=False).diagnostics
    assert found.code == "IL005" and found.severity == "error"
    assert "self.blocks.*.mlp.fc1.weight" in found.message
    lines = SOURCE.splitlines()
    outer = max(
        i for i, text in enumerate(lines) if text.endswith("self.apply(self._init_weights)")
    )
    assert found.line == outer + 1  # (the pass after the appends, not Mlp's own)


REPLACED = """
import copy

from torch import nn

from appended import Block


class Replaced(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.heads = nn.ModuleDict({"a": Block(d)})
        self.heads.update({"a": nn.Linear(d, d)})
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class Copied(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d)])
        self.blocks.append(copy.deepcopy(self.blocks[0]))
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
"""


def test_an_item_replaced_or_made_from_the_container_is_a_use(
    source_module: Callable[[str, str], Path], tmp_path: Path
) -> None:
    # (``update`` may replace an item: the Block is gone before the pass; the copy reads
    # the first block's fills)
    root = source_module("appended", SOURCE)
    (root / "replaced.py").write_text(REPLACED)
    report = check([root], cwd=root, use_cache=False)
    assert [d.class_name.rsplit(".", 1)[-1] for d in report.diagnostics] == ["Appended"]

"""Work an ancestor does on what it built, in place, is more of that build, not a use of
it: a pass of ``apply`` that only fills (its visitor named directly or through a
``functools.partial`` fixing keywords), and a tensor changed in place from its own numbers
(``w.data.mul_(scale)``). A subclass that then deletes the build throws all of it away
(IL005); a later pass over the tensors the first pass filled throws that pass away. Each
target of one ``del`` statement is its own drop."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
from functools import partial

import torch.nn as nn


class Head(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.projection = nn.Linear(d, n)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.dim_out = d
        self.fc = nn.Linear(d, d)


class Base(nn.Module):
    def __init__(self, d=768, n=1000, scale=0.5):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(4)])
        self.norm = nn.LayerNorm(d)
        self.head = Head(d, n)
        self.apply(partial(self._init_weights, std=0.02))
        self.head.projection.weight.data.mul_(scale)

    def _init_weights(self, m, std=0.01):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=std)


class Pretrain(Base):
    def __init__(self):
        super().__init__()
        del self.norm, self.head
        self.decoder = nn.Linear(768, 512)
        self.apply(self._pretrain_init)

    def _pretrain_init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)


class Frozen(Base):
    def __init__(self):
        super().__init__()
        self.head.projection.weight.requires_grad = False
        del self.head


class Reads(Base):
    def __init__(self):
        super().__init__()
        self.copy = nn.Linear(768, 1000)
        self.copy.weight.data.copy_(self.head.projection.weight)
        del self.head
"""


def _found(tmp_path: Path) -> dict[tuple[str, str, int, int], str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "work"\n')
    (tmp_path / "work.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.line, d.column): d.severity
        for d in report.diagnostics
    }


def test_work_done_on_a_build_in_place_is_thrown_away_with_it(tmp_path: Path) -> None:
    found = _found(tmp_path)
    line = SOURCE.splitlines().index("        del self.norm, self.head") + 1
    assert found.get(("Pretrain", "IL005", line, 13)) == "warning"  # (a LayerNorm: light)
    assert found.get(("Pretrain", "IL005", line, 24)) == "error"  # (the head, filled, scaled)
    again = SOURCE.splitlines().index("        self.apply(self._pretrain_init)") + 1
    assert found.get(("Pretrain", "IL005", again, 9)) == "error"  # (the blocks' fills)
    frozen = SOURCE.splitlines().index("        del self.head") + 1
    assert found.get(("Frozen", "IL005", frozen, 9)) == "error"  # (a flag set: no read)
    # (a value read out of the head into another tensor: the build was used)
    assert not [k for k in found if k[0] == "Reads"]

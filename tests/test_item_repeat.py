"""An item of a list the ancestor built, stored again at its index after
``super().__init__()`` (``self.convs[i] = Conv2d(...)``), throws the item there away (IL003):
rated by the lower of the list's cost and the new item's. Not for a mapping (a key may be
new), nor for an item made from the old one."""

from __future__ import annotations

from pathlib import Path

import torch

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, c=512, n=2):
        super().__init__()
        convs = []
        for _ in range(n):
            convs.append(nn.Conv2d(c, c, 3))
        self.convs = nn.Sequential(*convs)
        self.blocks = nn.ModuleList([nn.Linear(c, c) for _ in range(n)])
        self.heads = nn.ModuleDict({"a": nn.Linear(c, c)})
        self.acts = nn.ModuleList([nn.ReLU() for _ in range(n)])


class SepHead(Head):
    def __init__(self, c=512, n=2):
        super().__init__(c, n)
        for i in range(n):
            self.convs[i] = nn.Conv2d(c, c, 3, groups=c)
        self.blocks[0] = nn.Linear(c, 2 * c)
        self.heads["a"] = nn.Linear(c, c)
        self.acts[0] = nn.GELU()
        self.blocks[1] = Wrap(self.blocks[1])


class Wrap(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
"""


def test_an_item_stored_again_throws_the_ancestors_away(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "heads"\n')
    (tmp_path / "heads.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    lines = SOURCE.splitlines()
    found = sorted(
        (lines[d.line - 1].strip().split(" = ")[0], d.severity, d.confidence)
        for d in report.diagnostics
    )
    assert found == [
        ("self.acts[0]", "warning", "definite"),  # a ReLU for a GELU: light
        ("self.blocks[0]", "error", "definite"),
        ("self.convs[i]", "error", "possible"),  # in a loop that may not run
    ]
    # no flag can skip one item of the ancestor's list: no fix, and the reason given
    assert all(d.fix is None and "skipping it there" in d.no_fix for d in report.diagnostics)
    assert "an item of `self.blocks` is rebuilt" in next(
        d.message for d in report.diagnostics if "blocks" in d.message
    )


def test_the_ancestors_item_is_really_replaced() -> None:
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "heads.py", "exec"), namespace)  # noqa: S102 (the test's own source)
    head = namespace["SepHead"]()  # type: ignore[operator]
    assert isinstance(head.blocks[0], torch.nn.Linear) and head.blocks[0].out_features == 1024
    assert head.convs[0].groups == 512

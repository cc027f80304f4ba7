"""Other storage given to a tensor an ancestor registered (``self.weight.data =
qweight`` in a subclass of ``nn.Linear``) drops what the ancestor allocated and filled
(IL005), however cheap the new numbers are; setting the tensor's ``requires_grad`` first
reads none of its numbers. A new storage computed from the old numbers keeps them; a
vector (the bias) is light work, not reported."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Quant(nn.Linear):
    def __init__(self, q):
        super().__init__(q.infeatures, q.outfeatures, bias=True)
        self.weight.requires_grad = False
        self.weight.data = q.qweight
        self.bias.data = q.bias


class Cast(nn.Linear):
    def __init__(self, n):
        super().__init__(n, n)
        self.weight.data = self.weight.data.half()
"""


def test_storage_given_to_an_ancestor_tensor_drops_its_build(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "quant"\n')
    (tmp_path / "quant.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.message.split("`")[1])
        for d in report.diagnostics
    ]
    assert found == [("Quant", "IL005", "error", "weight")]

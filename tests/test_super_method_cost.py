"""Two things the cost model must read as Python does. ``super().init_weights()`` inside an
override runs the next class's method in the object's MRO, not the override again (which
the recursion guard priced as nothing). ``torch.Tensor(out, in, *k)`` given sizes is an
uninitialised tensor of that shape (heavy), where ``torch.Tensor(data)`` converts data."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import math

import torch
import torch.nn as nn


class DeformConv(nn.Module):
    def __init__(self, cin, cout, k=3):
        super().__init__()
        self.cin = cin
        self.k = (k, k)
        self.weight = nn.Parameter(torch.Tensor(cout, cin, *self.k))
        self.init_weights()

    def init_weights(self):
        self.weight.data.uniform_(-1 / math.sqrt(self.cin), 1 / math.sqrt(self.cin))


class DeformConvPack(DeformConv):
    \"\"\"Its override runs during the base's ``__init__`` and again here: the base's
    weight is filled twice.\"\"\"

    def __init__(self, cin, cout, k=3):
        super().__init__(cin, cout, k)
        self.offset = nn.Conv2d(cin, 2 * k * k, k)
        self.init_weights()

    def init_weights(self):
        super().init_weights()
        if hasattr(self, "offset"):
            self.offset.weight.data.zero_()


class Table(nn.Module):
    def __init__(self, rows, cols):
        super().__init__()
        self.table = torch.FloatTensor(rows, cols)


class Copied(Table):
    def __init__(self, rows, cols):
        super().__init__(rows, cols)
        self.table = torch.FloatTensor(rows, cols)


class Listed(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.Tensor([1.0, 2.0])


class Relisted(Listed):
    def __init__(self):
        super().__init__()
        self.scale = torch.Tensor([1.0, 2.0])
"""


def _found(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "convs"\n')
    (tmp_path / "convs.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rpartition(".")[2]: (d.code, d.severity) for d in report.diagnostics}


def test_super_method_in_an_override_prices_the_next_class_method(tmp_path: Path) -> None:
    assert _found(tmp_path)["DeformConvPack"] == ("IL002", "error")


def test_legacy_constructor_given_sizes_is_a_tensor_of_that_shape(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert found["Copied"] == ("IL003", "error")
    assert found["Relisted"][1] == "warning"

"""An initialisation that computes fans (``kaiming_normal_``, ``xavier_uniform_``,
``orthogonal_``) raises for a tensor of fewer than two dimensions, so what it fills is a
weight of two or more: a heavy pass even where the tensor was built by something initlint
cannot follow. A function handed an object an attribute holds (``kaiming_init(self.conv)``)
is that object's work, priced like a function handed ``self``."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


def kaiming_init(module, a=0):
    if hasattr(module, "weight") and module.weight is not None:
        nn.init.kaiming_normal_(module.weight, a=a)


def normal_init(module, std=0.01):
    nn.init.normal_(module.weight, 0, std)


class Block(nn.Module):
    \"\"\"Its conv comes from a factory it is given: only the init shows it is 2-D.\"\"\"

    def __init__(self, make, c):
        super().__init__()
        self.conv = make(c)
        self.init_weights()

    def init_weights(self):
        kaiming_init(self.conv)


class Plain(nn.Module):
    \"\"\"A fill that any tensor takes: nothing known of what it fills.\"\"\"

    def __init__(self, make, c):
        super().__init__()
        self.conv = make(c)
        normal_init(self.conv)


class Stage(nn.Module):
    def __init__(self, make, c):
        super().__init__()
        self.block = Block(make, c)
        self.plain = Plain(make, c)


class Restage(Stage):
    def __init__(self, make, c):
        super().__init__(make, c)
        self.block = Block(make, c)
        self.plain = Plain(make, c)
"""


def _found(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "blocks"\n')
    (tmp_path / "blocks.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.message.split("`")[1]: d.severity for d in report.diagnostics}


def test_a_fan_init_through_a_helper_handed_an_attribute_is_heavy(tmp_path: Path) -> None:
    assert _found(tmp_path)["self.block"] == "error"


def test_a_fill_of_any_shape_of_unknown_size_stays_unknown(tmp_path: Path) -> None:
    assert _found(tmp_path)["self.plain"] == "warning"

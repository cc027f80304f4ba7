"""A tensor handed to a constructor whose ``__init__`` only stores it is kept as it is: its
numbers are not read, so a later pass over the holder throws its earlier fill away. Not
when the ``__init__`` is decorated: the wrapper runs first and may read what it is given."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import torch
from torch import nn


def checked_init(f):
    def wrapper(self, w, n, d):
        f(self, w, n, d)
        self.total = w.sum()
    return wrapper


class Transformer(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.wte = nn.Embedding(n, d)
        nn.init.normal_(self.wte.weight, std=0.02)


class Head(nn.Module):
    {decorator}
    def __init__(self, w, n, d):
        super().__init__()
        self.weight = w


class Model(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.transformer = Transformer(n, d)
        self.head = Head(self.transformer.wte.weight, n, d)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)
"""


def _codes(tmp_path: Path, decorator: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(SOURCE.replace("{decorator}", decorator))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return [d.code for d in report.diagnostics if d.class_name.endswith(".Model")]


@pytest.mark.parametrize(("decorator", "codes"), [("", ["IL005"]), ("@checked_init", [])])
def test_a_decorated_init_may_read_what_it_is_handed(
    tmp_path: Path, decorator: str, codes: list[str]
) -> None:
    assert _codes(tmp_path, decorator) == codes

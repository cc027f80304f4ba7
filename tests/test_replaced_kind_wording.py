"""An attribute that replaces what an ancestor registered is named the way the ancestor
registered it: `self.weight = Uninitialized(...)` after `self.weight = nn.Parameter(...)`
replaces a parameter, and a plain tensor stored over `register_buffer` replaces a buffer."""

from __future__ import annotations

from pathlib import Path

from initlint.driver import analyze

SOURCE = """\
import torch
from torch import nn


class Dense(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n, n))
        self.register_buffer("scale", torch.ones(n, n))


class Later(Dense):
    def __init__(self, n):
        super().__init__(n)
        self.weight = nn.parameter.UninitializedParameter()
        self.scale = torch.zeros(n, n)
"""


def test_the_replaced_registration_is_named_by_its_kind(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(SOURCE)
    found = analyze([tmp_path], cwd=tmp_path, jobs=1, use_cache=False).diagnostics
    got = [(d.line, d.code, d.message.split(" is ")[0]) for d in found]
    assert got == [(15, "IL001", "parameter `weight`"), (16, "IL001", "buffer `scale`")]


DROPPED = """\
import torch
from torch import nn


class Dense(nn.Module):
    def __init__(self, n, bias=True):
        super().__init__()
        if bias:
            self.bias = nn.Parameter(torch.empty(n, n))
        else:
            self.register_parameter("bias", None)


class NoBias(Dense):
    def __init__(self, n):
        super().__init__(n)
        self.register_parameter("bias", None)
"""


def test_a_registration_of_none_is_worded_as_a_replacement(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(DROPPED)
    found = analyze([tmp_path], cwd=tmp_path, jobs=1, use_cache=False).diagnostics
    assert [(d.line, d.code) for d in found] == [(17, "IL001")]
    assert found[0].message.startswith("parameter `bias` is replaced by a constant: Dense.__init__")

"""IL005's fix deletes a discarded build only where deleting it changes nothing else: not a
buffer's registration whose replacement is a plain store (the store then leaves a plain
attribute, which no ``state_dict()`` holds and ``.to()`` does not move), nor a parameter
whose replacement gives it new numbers (``self.w.data = t`` finds nothing to set), and not
a build whose attribute a statement reads (its dtype, its device) before the replacement
(without the build that read fails). A registration replaced by another registration keeps
its fix."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
from torch import nn


class Rotary(nn.Module):
    def __init__(self, n=4096, d=128):
        super().__init__()
        self.register_buffer("cos_cache", torch.zeros(n, d))
        self.register_buffer("sin_cache", torch.zeros(n, d))
        self._extend(n, d)

    def _extend(self, n, d):
        dtype = self.cos_cache.dtype
        freqs = torch.outer(torch.arange(n), torch.arange(d)).to(dtype)
        self.cos_cache = freqs.cos()
        self.sin_cache = freqs.sin()


class NewNumbers(nn.Module):
    def __init__(self, n=1024):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, n))
        self.w.data = torch.eye(n)


class Registered(nn.Module):
    def __init__(self, n=4096, d=128):
        super().__init__()
        self.register_buffer("table", torch.zeros(n, d))
        self.register_buffer("table", torch.randn(n, d))
"""


def test_no_fix_that_drops_a_registration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "rotary"\n')
    (tmp_path / "rotary.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    fixes = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.message.split("`")[1], d.fix is not None)
        for d in report.diagnostics
    )
    assert fixes == [
        ("NewNumbers", "w", False),
        ("Registered", "table", True),
        ("Rotary", "cos_cache", False),
        ("Rotary", "sin_cache", False),
    ]

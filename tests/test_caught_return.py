"""A ``return`` in the body of a ``try`` ends the function only if nothing before it in
that body raises: where a statement between the first build and the return may raise into a
handler that lets the function go on (``except Exception: pass``), the code after the
``try`` runs with the first build done, and a store there replaces it (IL005, possibly).
A handler that ends the function itself (``raise``, ``return``), or a return right after
the build, keeps the return's word. A class that is no torch module and calls no ancestor's
``__init__`` is checked for such a replacement in its own ``__init__`` too."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch


class Cached:
    def __init__(self, root, rebuild=False):
        self.root = root
        self.data = None
        self.index = None
        if not rebuild:
            try:
                with open(root + ".data", "rb") as f:
                    self.data = torch.load(f)
                with open(root + ".index", "rb") as f:
                    self.index = torch.load(f)
                return
            except Exception:
                pass
        self.data = self.build()
        self.index = self.build()

    def build(self):
        return torch.randn(1024, 1024)


class Reraised:
    def __init__(self, root):
        self.data = None
        try:
            self.data = torch.load(root)
            self.check()
            return
        except Exception:
            raise
        self.data = self.build()

    def check(self):
        pass

    def build(self):
        return torch.randn(1024, 1024)


class Single:
    def __init__(self, root):
        self.data = None
        try:
            self.data = torch.load(root)
            return
        except Exception:
            pass
        self.data = self.build()

    def build(self):
        return torch.randn(1024, 1024)
"""


def test_a_return_a_caught_raise_may_skip(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "cached"\n')
    (tmp_path / "cached.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.confidence, d.line)
        for d in report.diagnostics
    )
    # (``Cached.index``: its load is the last statement before the return; had it raised,
    # no value was stored)
    assert found == [("Cached", "IL005", "error", "possible", 19)]

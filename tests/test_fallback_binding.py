"""A name bound in an ``except`` handler is a fallback only for a binding of the same name in
the ``try`` body: a try that imports something else and fails leaves the handler's binding
in force (``Base = WithHead`` after a failed ``import fast_kernels``)."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Plain(nn.Module):
    def __init__(self, d=4096):
        super().__init__()


class WithHead(nn.Module):
    def __init__(self, d=4096):
        super().__init__()
        self.head = nn.Linear(d, d)


Base = Plain
try:
    import fast_kernels_not_installed_anywhere
except ImportError:
    Base = WithHead


class Model(Base):
    def __init__(self, d=4096):
        super().__init__(d)
        self.head = nn.Linear(d, 2 * d)
"""


def test_a_handler_binding_the_try_did_not_make_stays(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "heads"\n')
    (tmp_path / "heads.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    assert [(d.code, d.severity, d.class_name) for d in report.diagnostics] == [
        ("IL003", "error", "heads.Model")
    ]

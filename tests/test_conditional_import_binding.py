"""A name an ``if`` imports and its ``else`` binds otherwise (``if torch_available: from
torch.nn import Module`` / ``else: from .dummy import Dummy as Module``, or ``else: class
Module: ...``): the ``else`` is the stand-in for where the import cannot run, as an ``except
ImportError`` handler is. Where the import resolves, a class based on the name has the
imported base; where it does not, the stand-in. A name the ``if`` binds otherwise (an
assignment) keeps the later binding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from initlint.api import check

AVAIL = """
import importlib.util

HAVE = importlib.util.find_spec("torch") is not None
"""

STUB = """
import torch


class Dummy:
    def __init__(self, *args, **kwargs):
        pass


class Heavy:
    def __init__(self, d=8):
        self.table = make_table(d)


def make_table(d):
    return torch.randn(d, d)
"""

BODY = """

class Base(Module):
    def __init__(self, d):
        super().__init__()
        self.d = d

    def init_weights(self):
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)


class Net(Base):
    def __init__(self, d):
        super().__init__(d)
        self.proj = nn.Linear(d, d)
        self.init_weights()
        nn.init.xavier_uniform_(self.proj.weight)
"""

IMPORTED_STUB = (
    """
from torch import nn

from pkg.avail import HAVE

if HAVE:
    from torch.nn import Module
else:
    from pkg.stub import Dummy as Module
"""
    + BODY
)

DEFINED_STUB = (
    """
from torch import nn

from pkg.avail import HAVE

if HAVE:
    from torch.nn import Module
else:
    class Module:
        def __init__(self, *args, **kwargs):
            pass
"""
    + BODY
)

ASSIGNED = """
import torch

from pkg.avail import HAVE
from pkg.stub import Dummy, Heavy

if HAVE:
    Module = Dummy
else:
    Module = Heavy


class Table(Module):
    def __init__(self, d=8):
        super().__init__(d)
        self.table = make(d)


def make(d):
    return torch.randn(d, d)
"""

UNRESOLVED = """
import torch

from pkg.avail import HAVE

if HAVE:
    from a_library_installed_nowhere import Module
else:
    from pkg.stub import Heavy as Module


class Table(Module):
    def __init__(self, d=8):
        super().__init__(d)
        self.table = make(d)


def make(d):
    return torch.randn(d, d)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "avail.py").write_text(AVAIL)
    (pkg / "stub.py").write_text(STUB)
    return tmp_path


def _found(project: Path, source: str) -> list[tuple[str, str, str]]:
    (project / "pkg" / "model.py").write_text(source)
    report = check([project / "pkg" / "model.py"], cwd=project, use_cache=False)
    return [(d.code, d.severity, d.class_name) for d in report.diagnostics]


@pytest.mark.parametrize("source", [IMPORTED_STUB, DEFINED_STUB], ids=["imported", "defined"])
def test_the_import_is_the_base_where_it_resolves(project: Path, source: str) -> None:
    pytest.importorskip("torch")
    # torch's Module is the base: the pass over the object's modules runs, then the fill
    assert _found(project, source) == [("IL005", "error", "pkg.model.Net")]


def test_an_assigned_name_keeps_its_later_binding(project: Path) -> None:
    # (no import in the ``if``: its ``else`` is no stand-in; Heavy built the table first)
    assert _found(project, ASSIGNED) == [("IL003", "error", "pkg.model.Table")]


def test_the_stand_in_is_the_base_where_the_import_does_not_resolve(project: Path) -> None:
    assert _found(project, UNRESOLVED) == [("IL003", "error", "pkg.model.Table")]

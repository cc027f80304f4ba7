"""With the real torch installed, torch.nn.Module's own methods are simulated from its
sources; what they read must not hide work thrown away, nor misprice a walk over the module:
``add_module(name, m)`` looks the name up only to refuse a clash, ``self.parameters()``
builds nothing, and ``self.apply(fn)`` runs ``fn`` over every module the object holds."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.settings import Settings

from .envkit import make_venv, write_tree

pytest.importorskip("torch")

REGISTERED = """\
from torch import nn


class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm_name = "bn2"
        self.conv2 = nn.Conv2d(d, d, 3)
        self.add_module(self.norm_name, nn.BatchNorm2d(d))


class Sub(Base):
    def __init__(self, d):
        super().__init__(d)
        del self.conv2
"""
APPLIED = """\
from torch import nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.apply(init_weights)


class Sub(Base):
    def __init__(self, d):
        super().__init__(d)
        self.apply(init_weights)
"""
PASSES = Path(__file__).parent.parent / "fixtures" / "check" / "init_pass_repeated"


def _found(root: Path, python: str) -> list[str]:
    def over(s: Settings) -> Settings:
        return replace(s, python=python)

    analysis = analyze([root], cwd=root, overrides=over, jobs=1, use_cache=False)
    return sorted(
        f"{d.path}:{d.line}: {d.code} {d.severity} {d.confidence}" for d in analysis.diagnostics
    )


def test_a_module_registered_by_name_does_not_read_the_build_deleted_after(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/m.py": REGISTERED})
    assert _found(tmp_path, sys.executable) == ["pkg/m.py:15: IL005 error definite"]


def test_initialisation_passes_are_priced_alike_with_and_without_torch(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(PASSES, project, ignore=shutil.ignore_patterns(".initlint_cache"))
    empty = tmp_path / "env"
    make_venv(empty, {})
    with_torch = _found(project, sys.executable)
    assert with_torch == _found(project, str(empty))
    assert len(with_torch) == 5


def test_torch_apply_run_again_is_a_pass_over_the_weights(tmp_path: Path) -> None:
    """``self.apply(init_weights)`` runs torch's ``apply``, read from its sources: priced as
    the initialiser run on every module the object holds, a heavy repeat."""
    write_tree(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/m.py": APPLIED})
    assert _found(tmp_path, sys.executable) == ["pkg/m.py:19: IL002 error definite"]

"""With the real torch installed, torch.nn.Module's own methods are simulated from its
sources; what they read must not hide work thrown away, nor price a walk over the module:
``add_module(name, m)`` looks the name up only to refuse a clash, and ``self.parameters()``
builds nothing. The verdicts match those without torch's sources."""

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

"""Acceptance: `initlint fix --unsafe-fixes` on the buggy DeepSeek V4 modules gives fixed_rope."""

from __future__ import annotations

import ast
import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from initlint.cli import main

REPO = Path(__file__).resolve().parents[1]
BEFORE = REPO / "tests" / "fixtures" / "autofix" / "deepseek_v4_before"
FIXED = REPO / "fixed_rope"
MODULES = ("__init__.py", "base.py", "yarn.py", "deepseek.py")


def _norm(path: Path) -> str:
    return ast.dump(ast.parse(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def fixed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("autofix")
    pkg = root / "deepseek_v4_autofixed"
    shutil.copytree(BEFORE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    result = CliRunner().invoke(main, ["fix", "--unsafe-fixes", "--no-cache", str(root)])
    assert result.exit_code == 0, result.output
    return pkg


def test_before_is_flagged_once_on_v4_only() -> None:
    import json

    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", str(BEFORE)])
    data = json.loads(result.output)
    assert [(d["code"], d["class"].rsplit(".", 1)[-1]) for d in data] == [
        ("IL001", "DeepseekV4ScalingRotaryEmbedding")
    ]
    assert data[0]["fix"]["applicability"] == "unsafe"


def test_fixed_rope_itself_is_clean() -> None:
    result = CliRunner().invoke(main, ["check", "--no-cache", str(FIXED)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("name", MODULES)
def test_autofix_output_equals_fixed_rope(fixed_copy: Path, name: str) -> None:
    assert _norm(fixed_copy / name) == _norm(FIXED / name)


def test_autofix_changed_the_buggy_module(fixed_copy: Path) -> None:
    assert _norm(fixed_copy / "deepseek.py") != _norm(BEFORE / "deepseek.py")


@pytest.fixture(scope="module")
def autofixed_module(fixed_copy: Path) -> Iterator[ModuleType]:
    sys.path.insert(0, str(fixed_copy.parent))
    try:
        yield importlib.import_module(fixed_copy.name)
    finally:
        sys.path.remove(str(fixed_copy.parent))


def _small_v4(cls: type) -> object:
    """A V4 module at the compressor config, shrunk to 256 positions."""
    import torch

    return cls(
        512,
        64,
        256,
        160000,
        False,
        4.0,
        torch.bfloat16,
        beta_fast=32,
        beta_slow=1,
        mscale=0,
        mscale_all_dim=0,
    )


def _count_computations(cls: type, monkeypatch: pytest.MonkeyPatch) -> tuple[int, object]:
    calls = 0
    original = cls._compute_cos_sin_cache  # type: ignore[attr-defined]

    def counting(self: object) -> object:
        nonlocal calls
        calls += 1
        return original(self)

    monkeypatch.setattr(cls, "_compute_cos_sin_cache", counting)
    module = _small_v4(cls)
    return calls, module


def test_autofixed_copy_computes_once_and_matches(
    autofixed_module: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    import fixed_rope

    n_fixed, fixed_mod = _count_computations(
        autofixed_module.DeepseekV4ScalingRotaryEmbedding, monkeypatch
    )
    assert n_fixed == 1
    reference = _small_v4(fixed_rope.DeepseekV4ScalingRotaryEmbedding)
    cache = fixed_mod.cos_sin_cache  # type: ignore[attr-defined]
    assert cache.dtype == torch.float32
    assert torch.equal(cache, reference.cos_sin_cache)


def test_buggy_copy_computes_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(BEFORE.parent))
    try:
        buggy = importlib.import_module(BEFORE.name)
    finally:
        sys.path.remove(str(BEFORE.parent))
    n, _ = _count_computations(buggy.DeepseekV4ScalingRotaryEmbedding, monkeypatch)
    assert n == 2

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"
REPO = Path(__file__).resolve().parents[2]
CHECK_FIXTURES = REPO / "tests" / "fixtures" / "check"


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def samples(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make the sample packages importable (rt_samples, rt_helpers)."""
    monkeypatch.syspath_prepend(str(SAMPLES))
    return SAMPLES


@pytest.fixture
def forget_modules(tmp_path: Path) -> Iterator[Path]:
    """Unimport modules a test imported from tmp_path, so module names can be reused."""
    yield tmp_path
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(str(tmp_path)):
            del sys.modules[name]


@pytest.fixture
def check_fixture(forget_modules: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """``check_fixture(name)``: a copy of ``tests/fixtures/check/<name>`` made importable
    (its ``pkg`` shadows no other fixture's); the copy's root."""

    def make(name: str) -> Path:
        copy = forget_modules / "case"
        shutil.copytree(CHECK_FIXTURES / name, copy)
        for mod in [n for n in sys.modules if n.partition(".")[0] == "pkg"]:
            monkeypatch.delitem(sys.modules, mod)  # another fixture's `pkg`
        monkeypatch.syspath_prepend(str(copy))
        return copy

    return make


@pytest.fixture
def source_module(
    forget_modules: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str, str], Path]:
    """``source_module(name, text)``: a project holding the module ``name`` with ``text``,
    importable under that name (none imported earlier by it stays); the project's root."""

    def make(name: str, text: str) -> Path:
        (forget_modules / "pyproject.toml").write_text(f"[project]\nname = '{name}'\n")
        (forget_modules / f"{name}.py").write_text(text)
        monkeypatch.syspath_prepend(str(forget_modules))
        sys.modules.pop(name, None)
        return forget_modules

    return make

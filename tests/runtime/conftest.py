from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"
REPO = Path(__file__).resolve().parents[2]


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

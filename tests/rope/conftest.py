"""Shared fixtures for the fixed_rope tests."""

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
AUTOFIX_FIXTURES = REPO / "tests" / "fixtures" / "autofix"

# fixed_rope lives at the repository root; rope_reference next to this file.
for _path in (str(REPO), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)


@pytest.fixture(scope="session")
def buggy_rope() -> ModuleType:
    """The buggy autofix fixture, imported under its own package name deepseek_v4_before."""
    sys.path.insert(0, str(AUTOFIX_FIXTURES))
    try:
        return importlib.import_module("deepseek_v4_before")
    finally:
        sys.path.remove(str(AUTOFIX_FIXTURES))

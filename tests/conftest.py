"""Suite-wide: every test sees an empty Python environment unless it picks one.

initlint reads installed base classes from the project's environment, and without one
configured it falls back to the interpreter running it: here, the test venv, which has
torch. A test's outcome must not depend on what that venv happens to hold, so each test
starts with ``VIRTUAL_ENV`` naming an empty venv-shaped folder (and no ``CONDA_PREFIX``).
Tests of the environment itself (tests/environment) choose theirs explicitly: ``--python``,
config ``python``, their own environment variables, or the test venv's interpreter.

The per-user key that authenticates cache entries (``initlint/trust.py``) is kept in a
folder of the session's own (``INITLINT_KEY_DIR``), never in the home of whoever runs it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import initlint.driver.results as results
from initlint.api import Report, check

# At import, so that subprocesses the tests start inherit it too; removed at exit.
if "INITLINT_KEY_DIR" not in os.environ:
    os.environ["INITLINT_KEY_DIR"] = tempfile.mkdtemp(prefix="initlint-key-")
    atexit.register(shutil.rmtree, os.environ["INITLINT_KEY_DIR"], ignore_errors=True)


@pytest.fixture(scope="session")
def empty_environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prefix = tmp_path_factory.mktemp("empty-venv")
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n", encoding="utf-8")
    (prefix / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    return prefix


@pytest.fixture(autouse=True)
def _empty_environment_by_default(empty_environment: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", str(empty_environment))
    monkeypatch.delenv("CONDA_PREFIX", raising=False)


@pytest.fixture
def reused(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The report files whose results the last run reused (``Previous.reuse`` hits)."""
    hits: list[Path] = []
    real = results.Previous.reuse

    def reuse(self: results.Previous, path: Path, into: dict[Path, list[object]]) -> bool:
        hit = real(self, path, into)  # type: ignore[arg-type]
        if hit:
            hits.append(path)
        return hit

    monkeypatch.setattr(results.Previous, "reuse", reuse)
    yield hits


@pytest.fixture
def check_source(tmp_path: Path) -> Callable[..., Report]:
    """``check_source(text, path="m.py")``: a project at ``tmp_path`` holding ``text`` at
    ``path`` (packages on the way get an ``__init__.py``), checked without a cache."""

    def run(text: str, path: str = "m.py") -> Report:
        (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
        target = tmp_path / path
        for folder in reversed(Path(path).parents[:-1]):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / "__init__.py").touch()
        target.write_text(text)
        return check([tmp_path], cwd=tmp_path, use_cache=False)

    return run

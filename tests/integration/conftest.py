"""Shared helpers: throwaway projects on disk and a way to run the CLI inside them."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.rules import REGISTRY

REPO_ROOT = Path(__file__).resolve().parents[2]

# A base whose __init__ registers a buffer behind a flag (the first half of IL001's example).
BASE = REGISTRY["IL001"].INVALID[0].split("class Child")[0].strip() + "\n"
BASE_LINE = 1 + next(i for i, ln in enumerate(BASE.splitlines()) if "register_buffer" in ln)
FLAG_LINE = 1 + next(i for i, ln in enumerate(BASE.splitlines()) if "init_cache=True" in ln)

# A subclass in another module that registers the buffer again: IL001 on line 7.
CHILD = """\
from pkg.base import Base


class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("cache", self._build(), persistent=False){comment}
"""
CHILD_LINE = 7

# The same subclass done right: no finding.
CLEAN_CHILD = """\
from pkg.base import Base


class Child(Base):
    def __init__(self, n=8):
        super().__init__(n, init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
"""


def child(comment: str = "") -> str:
    return CHILD.format(comment=comment)


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


class Project:
    """A folder with a pyproject.toml; ``check`` runs ``initlint check`` with it as cwd."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config("")

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def config(self, body: str) -> None:
        """Replace pyproject.toml; ``body`` is TOML appended after a minimal [project]."""
        self.write("pyproject.toml", '[project]\nname = "demo"\n\n' + textwrap.dedent(body))

    def invoke(self, *args: str) -> Run:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        return Run(result.exit_code, result.stdout, result.stderr)

    def check(self, *args: str) -> Run:
        return self.invoke("check", *args)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield Project(root)


@pytest.fixture
def rope_project(project: Project) -> Project:
    """pkg/base.py holds the base, pkg/child.py the violating subclass (IL001)."""
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/child.py", child())
    return project


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: builds a pre-commit hook environment (network, ~1 min); runs by default"
    )

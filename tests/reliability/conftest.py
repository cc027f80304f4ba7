"""Helpers for the reliability tests: tiny projects on disk, checked through the API or CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze
from initlint.pipeline.analysis import Analysis

# A base whose __init__ registers a buffer, and a subclass template that registers it again.
BASE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.register_buffer("cache", torch.zeros(n, n))
"""
REDO = """
class {name}(Base):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))  # REDO
"""
TRACEBACK = "Traceback (most recent call last)"


def marked_lines(source: str, marker: str = "# REDO") -> list[int]:
    """1-based numbers of the lines that carry ``marker``."""
    return [i for i, line in enumerate(source.splitlines(), 1) if marker in line]


def summary(analysis: Analysis) -> list[tuple[str, int, str]]:
    return sorted((d.path, d.line, d.code) for d in analysis.diagnostics)


def by_code(analysis: Analysis, code: str) -> list[Diagnostic]:
    return [d for d in analysis.diagnostics if d.code == code]


def internal_codes(analysis: Analysis) -> list[tuple[str, str, str]]:
    return [(d.path, d.code, d.message) for d in analysis.diagnostics if d.code.startswith("IL9")]


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def diagnostics(self) -> list[dict[str, Any]]:
        data = json.loads(self.stdout)
        assert isinstance(data, list)
        return data

    def codes(self) -> list[tuple[str, str]]:
        return sorted((d["path"], d["code"]) for d in self.diagnostics)

    def assert_no_traceback(self) -> None:
        assert TRACEBACK not in self.stdout, self.stdout[-2000:]
        assert TRACEBACK not in self.stderr, self.stderr[-2000:]


@dataclass
class Project:
    root: Path

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def check(self, *paths: str | Path, jobs: int = 1) -> Analysis:
        targets = [self.root / p for p in paths] or [self.root]
        return analyze(targets, cwd=self.root, jobs=jobs, use_cache=False)

    def cli(
        self, *args: str, prelude: str = "", timeout: float = 120, fmt: str = "json"
    ) -> CliResult:
        """``initlint check ARGS --format json --no-cache`` in a subprocess, cwd = the root.

        ``prelude`` is Python run in that process before the CLI starts (e.g. a monkeypatch).
        """
        argv = ["check", *args, "--format", fmt, "--no-cache"]
        code = f"{prelude}\nimport sys\nfrom initlint.cli import main\nmain({argv!r})\n"
        proc = subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    return Project(root)


def break_locator(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make ``Locator.range`` raise for the file called ``name`` (an IL902 while locating)."""
    from initlint.locate import Locator

    real = Locator.range

    def range_(self: Locator, path: Path, *args: object, **kwargs: object) -> object:
        if path.name == name:
            raise IndexError("range out of the file")
        return real(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Locator, "range", range_)


# For project.cli(prelude=...): the fact pass fails, in the subprocess, on files with EXPLODE.
EXPLODE_PRELUDE = (
    "import initlint.facts.load as r\n"
    "_real = r.extract_facts\n"
    "def _boom(src):\n"
    "    if 'EXPLODE' in str(src):\n"
    "        raise RuntimeError('synthetic failure')\n"
    "    return _real(src)\n"
    "r.extract_facts = _boom\n"
)


def break_fact_pass(
    monkeypatch: pytest.MonkeyPatch,
    errors: dict[str, Callable[[], BaseException]] | None = None,
) -> None:
    """Make the fact pass raise ``errors[marker]()`` for a source holding ``marker``
    (default: a ValueError for EXPLODE)."""
    import initlint.facts.load as runner

    wanted = errors or {"EXPLODE": lambda: ValueError("fact pass blew up")}
    real = runner.extract_facts  # type: ignore[attr-defined]

    def extract_facts(source: str | bytes) -> object:
        for marker, error in wanted.items():
            if marker in str(source):
                raise error()
        return real(source)

    monkeypatch.setattr(runner, "extract_facts", extract_facts)


def break_simulation(
    monkeypatch: pytest.MonkeyPatch,
    error: Callable[[], BaseException] = lambda: KeyError("no such slot"),
) -> None:
    """Make simulating any class named ``Cursed`` raise ``error()``."""
    from initlint.simulation.engine import Simulator

    real = Simulator.simulate

    def simulate(self: Simulator, cls: object, *args: object, **kwargs: object) -> object:
        if getattr(cls, "qualname", "").endswith(".Cursed"):
            raise error()
        return real(self, cls, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Simulator, "simulate", simulate)

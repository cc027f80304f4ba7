"""Fixture-driven checker tests: each case is a tiny project with its expected diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.driver import analyze

CASES = Path(__file__).parent / "fixtures" / "check"


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expected.txt").exists())


def render(case: Path, jobs: int = 1, use_cache: bool = False) -> list[str]:
    analysis = analyze([case], cwd=case, jobs=jobs, use_cache=use_cache)
    return sorted(
        f"{d.path}:{d.line}:{d.column}: {d.code} {d.severity} {d.confidence}"
        for d in analysis.diagnostics
    )


@pytest.mark.parametrize("name", _cases())
def test_fixture(name: str) -> None:
    case = CASES / name
    expected = (case / "expected.txt").read_text().splitlines()
    assert render(case) == expected


def test_there_are_clean_and_dirty_cases() -> None:
    texts = [(CASES / n / "expected.txt").read_text() for n in _cases()]
    assert sum(1 for t in texts if not t.strip()) >= 10
    assert sum(1 for t in texts if t.strip()) >= 15

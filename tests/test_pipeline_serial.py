"""The serial pipeline (``initlint.pipeline.run.check_paths``: one process, no cache) and the
driver (``initlint.driver.analyze``: pool, streaming, forks, caches) give the same report:
the driver adds speed, never a result."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.fix.propose import fix_planner
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.run import check_paths

CASES = Path(__file__).parent / "fixtures" / "check"


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expected.txt").exists())


def _report(analysis: Analysis) -> tuple[list[str], list[tuple[str, int, str]], int, int]:
    return (
        [repr(d) for d in analysis.diagnostics],
        analysis.unused_suppressions,
        analysis.files,
        analysis.internal_errors,
    )


@pytest.mark.parametrize("name", _cases())
def test_serial_pipeline_reports_what_the_driver_reports(name: str, tmp_path: Path) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    serial = check_paths([root], cwd=root, fix_planner=fix_planner)
    assert serial.diagnostics or not (root / "expected.txt").read_text().strip()
    fast = analyze([root], cwd=root, jobs=2, use_cache=True, fix_planner=fix_planner)
    assert _report(serial) == _report(fast)
    warm = analyze(
        [root], cwd=root, jobs=2, use_cache=True, fix_planner=fix_planner, reuse_results=True
    )
    assert _report(serial) == _report(warm)


def test_serial_pipeline_on_given_files(tmp_path: Path) -> None:
    """Given files (pre-commit's), the whole project is read and only they are reported."""
    root = tmp_path / "mixin"
    shutil.copytree(CASES / "mixin", root)
    files = sorted(root.rglob("*.py"))[:2]
    assert _report(check_paths(files, cwd=root)) == _report(
        analyze(files, cwd=root, use_cache=False)
    )

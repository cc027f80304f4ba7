"""The fact pass in the default process pool gives the findings of a serial run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import initlint.driver.run as engine
from initlint.driver import analyze
from initlint.driver import factpass as runner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "check"


@pytest.mark.parametrize("name", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_fact_pass_in_fork_pool_gives_the_same_findings(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name, root)
    reference = [repr(d) for d in analyze([root], cwd=root, jobs=1, use_cache=False).diagnostics]
    monkeypatch.setattr(runner, "POOL_THRESHOLD", 0)
    monkeypatch.setattr(runner, "ProcessPoolExecutor", None)  # the default pool
    monkeypatch.setattr(engine, "TAIL_SPLIT_MIN", 2)
    for reuse in (False, True):
        for _ in range(2):  # cold, then warm
            got = analyze([root], cwd=root, jobs=2, use_cache=True, reuse_results=reuse)
            assert [repr(d) for d in got.diagnostics] == reference
        shutil.rmtree(root / ".initlint_cache")

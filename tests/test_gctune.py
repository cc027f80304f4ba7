"""The check runs with the cyclic collector off and leaves it as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

import initlint.pipeline.setup as setup
from initlint.driver import analyze
from initlint.driver.gctune import no_collections


@pytest.fixture
def collector_state() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_collections_are_off_inside_and_restored_after(
    collector_state: None, enabled: bool
) -> None:
    seen: list[bool] = []

    @no_collections
    def body() -> None:
        seen.append(gc.isenabled())
        raise ValueError("the state comes back after an error too")

    (gc.enable if enabled else gc.disable)()
    with pytest.raises(ValueError):
        body()
    assert seen == [False]
    assert gc.isenabled() is enabled


def test_a_check_run_collects_nothing_while_it_runs(
    collector_state: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    (tmp_path / "m.py").write_text("class A:\n    def __init__(self):\n        self.x = 1\n")
    during: list[bool] = []
    real = setup.discover

    def discover(*args: object, **kwargs: object) -> object:
        during.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(setup, "discover", discover)
    gc.enable()
    analyze([tmp_path], cwd=tmp_path, use_cache=False, jobs=1)
    assert during == [False]
    assert gc.isenabled()

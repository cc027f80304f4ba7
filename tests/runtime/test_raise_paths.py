"""An ancestor path that cannot finish: the ``ancestor_path_raises`` fixture's classes whose
ancestor reads an attribute the subclass sets only after ``super().__init__()``. Runtime
says where construction raises; the simulation must end the same paths (docs/design.md, "Reads")
and say so in ``explain-class``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "ancestor_path_raises"


@pytest.fixture
def grid(check_fixture: Callable[[str], Path]) -> ModuleType:
    check_fixture(CASE.name)
    import pkg.grid as m

    return m


def test_the_ancestor_path_raises_at_runtime(grid: ModuleType) -> None:
    with pytest.raises(AttributeError, match="weight"):
        grid.LateWeightGrid(4, True)
    with pytest.raises(AttributeError, match="weight"):
        grid.AlwaysBuildGrid(4)
    late = grid.LateWeightGrid(4, False)  # the only way it constructs: one grid, its own
    assert late.grid.shape == (4, 4)


@pytest.mark.parametrize(
    "name", ["ClassDefaultGrid", "PropertyGrid", "DefaultedReadGrid", "CaughtReadGrid"]
)
def test_reads_that_find_something_do_not_raise(grid: ModuleType, name: str) -> None:
    built = getattr(grid, name)(4, True)
    assert built.grid.shape == (4, 4)


def explain(name: str) -> str:
    result = CliRunner().invoke(
        main, ["explain-class", "--no-cache", f"pkg.grid:{name}", str(CASE)]
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_explain_class_shows_where_the_path_stops() -> None:
    late = explain("LateWeightGrid")
    assert "raises AttributeError: self.weight is read before anything sets it" in late
    assert "the path under its undecided guards stops here" in late
    assert "buffer grid" in late and late.count("buffer grid") == 1  # the ancestor's is not done
    always = explain("AlwaysBuildGrid")
    assert "every construction stops here" in always
    assert "buffer grid" not in always
    early = explain("EarlyWeightGrid")
    assert "raises AttributeError" not in early
    assert early.count("buffer grid") == 2

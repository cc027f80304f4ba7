"""The build a repeat discards, among an ancestor's alternatives (docs/design.md, "Guards"), on the
``alternatives_discarded`` fixture. Each class is constructed on both pipeline stages
(``pkg.stages.LAST_STAGE``) and the rating of the rebuild that ran is compared with the bytes
it threw away:

- a test the subclass repeats with the same text, on the same state (``self.group.is_last``,
  also after fetching the group again from the same getter) or calling the same function
  without arguments (``on_last_stage()``), pairs branch with branch: a rebuild is an error
  exactly when what it discards holds bytes;
- a test that cannot be paired (a call with an argument, a group replaced by another, a
  same-named function of another module) is priced by the heaviest build it may discard:
  an error on both branches, which on one of the stages discards bytes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "alternatives_discarded"

# (module, class, attribute): the branch pairs with the ancestor's
PAIRED = [("wide", "WiderTrunk", "table"), ("wide", "WiderTrunk", "head")]
PAIRED += [("wide", "RefetchedTrunk", "head")]
# ... and where it does not, so the heaviest alternative prices both branches
UNPAIRED = [("wide", "WiderTrunk", "proj"), ("wide", "RegroupedTrunk", "head")]
UNPAIRED += [("mirrored", "MirroredTrunk", "table")]


def severities() -> dict[tuple[str, int], str]:
    """(module, line) -> severity of the fixture's findings."""
    analysis = analyze([CASE], cwd=CASE, jobs=1, use_cache=False)
    return {(Path(d.path).stem, d.line): d.severity for d in analysis.diagnostics}


@pytest.fixture(scope="module")
def rated() -> dict[tuple[str, int], str]:
    return severities()


def outcome(module: str, cls: str, attr: str, last: bool) -> tuple[int, int]:
    """Build ``cls`` of the imported fixture on the last stage or another: the bytes its
    rebuild of ``attr`` threw away, and the line of the rebuild that ran."""
    import pkg.stages

    pkg.stages.LAST_STAGE = last
    m = importlib.import_module(f"pkg.{module}")
    args = (8, SimpleNamespace(is_last=last)) if cls == "RegroupedTrunk" else (8,)
    trace = trace_init(lambda: getattr(m, cls)(*args))
    (repeat,) = [r for r in trace.repeated if r.name == attr]
    return repeat.bytes, int(repeat.sites[-1].rpartition(":")[2])


@pytest.mark.parametrize("last", [True, False])
@pytest.mark.parametrize(("module", "cls", "attr"), PAIRED)
def test_a_paired_test_rates_the_branch_by_what_it_discards(
    check_fixture: Callable[[str], Path],
    rated: dict[tuple[str, int], str],
    module: str,
    cls: str,
    attr: str,
    last: bool,
) -> None:
    check_fixture("alternatives_discarded")
    discarded, line = outcome(module, cls, attr, last)
    assert (discarded > 0) == last  # a module with parameters, or a Placeholder without
    assert rated[(module, line)] == ("error" if discarded > 0 else "warning")


@pytest.mark.parametrize(("module", "cls", "attr"), UNPAIRED)
def test_an_unpaired_test_is_rated_by_the_heaviest_alternative(
    check_fixture: Callable[[str], Path],
    rated: dict[tuple[str, int], str],
    module: str,
    cls: str,
    attr: str,
) -> None:
    check_fixture("alternatives_discarded")
    seen = [outcome(module, cls, attr, last) for last in (True, False)]
    assert len({line for _, line in seen}) == 2  # each stage ran the other branch
    assert any(discarded > 0 for discarded, _ in seen)  # a cheap rating would be wrong there
    assert all(rated[(module, line)] == "error" for _, line in seen)


def test_the_same_name_of_another_function_is_not_paired(
    check_fixture: Callable[[str], Path], rated: dict[tuple[str, int], str]
) -> None:
    """MirroredTrunk's else branch runs where the ancestor built its Embedding: pairing the
    tests by their text alone would call that rebuild cheap."""
    check_fixture("alternatives_discarded")
    discarded, line = outcome("mirrored", "MirroredTrunk", "table", True)
    lines = (CASE / "pkg" / "mirrored.py").read_text().splitlines()
    assert "Placeholder()" in lines[line - 1]  # the else branch ran
    assert discarded > 0
    assert rated[("mirrored", line)] == "error"

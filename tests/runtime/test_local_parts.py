"""An object built into a local and kept in part (the ``local_parts_kept`` fixture): IL005's
findings against what constructing each class really builds and keeps. A part replaced on
the local's object is a repeat the whole-model tracer sees on that object; the parts left
behind with a dropped local are parameters registered during the construction that the
constructed object does not hold."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import lost  # noqa: E402

from initlint.api import check  # noqa: E402
from initlint.runtime import trace_model  # noqa: E402

WIDTH = 8


# Not among the ``check`` fixtures: the static-vs-runtime cross-check compares findings with
# repeats, and parts left behind with a dropped local are no repeat; this test measures them.
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "local_parts_kept"


@pytest.fixture
def case(forget_modules: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = forget_modules / "case"
    shutil.copytree(FIXTURE, copy)
    for mod in [n for n in sys.modules if n.partition(".")[0] == "pkg"]:
        monkeypatch.delitem(sys.modules, mod)  # another fixture's `pkg`
    monkeypatch.syspath_prepend(str(copy))
    return copy


def statics(case: Path) -> dict[int, str]:
    report = check([case], cwd=case, use_cache=False)
    return {d.line: d.message.split("`")[1] for d in report.diagnostics if d.code == "IL005"}


def test_the_parts_left_behind_are_the_ones_the_finding_names(case: Path) -> None:
    import pkg.nets as m

    # the classifier Linear(WIDTH, 100) of the backbone, and nothing else
    assert lost(lambda: m.Features(WIDTH)) == {("weight", (100, WIDTH)), ("bias", (100,))}
    assert statics(case)[23] == "fc"


def test_a_replaced_part_is_a_repeat_on_the_local_object(case: Path) -> None:
    import pkg.nets as m

    trace = trace_model(lambda: m.Retargeted(WIDTH, 3), project_roots=[case / "pkg"])
    got = {
        (r.path, r.repeat.name, r.finding.where.rsplit("/", 1)[-1] if r.finding else None)
        for r in trace.repeats
    }
    assert got == {("net", "fc", "nets.py:34")}
    assert statics(case)[34] == "net.fc"


def test_an_object_kept_whole_loses_nothing(case: Path) -> None:
    import pkg.nets as m

    assert lost(lambda: m.Whole(WIDTH)) == set()
    assert 43 not in statics(case) and 44 not in statics(case)


def test_a_part_taken_from_an_object_never_bound_leaves_the_rest(case: Path) -> None:
    import pkg.nets as m

    stem = {("weight", (WIDTH, 3, 3, 3)), ("bias", (WIDTH,))}
    fc = {("weight", (100, WIDTH)), ("bias", (100,))}
    assert lost(lambda: m.Taken(WIDTH)) == stem | fc
    assert lost(lambda: m.TakenIntoLocal(WIDTH)) == stem | fc
    found = statics(case)
    assert found[53] == "fc" and found[61] == "fc"


def test_a_part_taken_through_methods_that_return_the_module_leaves_the_rest(
    case: Path,
) -> None:
    import pkg.nets as m

    stem = {("weight", (WIDTH, 3, 3, 3)), ("bias", (WIDTH,))}
    fc = {("weight", (100, WIDTH)), ("bias", (100,))}
    assert lost(lambda: m.TakenThroughMoves(WIDTH)) == stem | fc
    assert statics(case)[188] == "fc"


def test_a_field_of_a_plain_object_leaves_nothing(case: Path) -> None:
    import pkg.nets as m

    assert lost(lambda: m.Sized(WIDTH)) == set()
    assert 75 not in statics(case)


def test_a_part_replaced_in_a_loop_is_a_repeat_on_each_object(case: Path) -> None:
    import pkg.nets as m

    trace = trace_model(lambda: m.Kernels(WIDTH), project_roots=[case / "pkg"])
    got = {(r.path, r.repeat.name) for r in trace.repeats}
    assert got == {(f"convs.{i}", "weight") for i in range(3)}
    # torch's sources say what Conv1d builds: the environment running this test holds them
    report = check([case], cwd=case, use_cache=False, options={"python": sys.executable})
    found = {d.line: d for d in report.diagnostics if d.code == "IL005"}
    assert found[89].message.split("`")[1] == "layer.weight"
    assert found[89].confidence == "possible"  # (the loop may run no turn)


def test_a_deleted_part_is_thrown_away(case: Path) -> None:
    import pkg.nets as m

    # ``del net.fc`` drops the classifier the backbone built, as ``net.fc = None`` would
    assert lost(lambda: m.Deleted(WIDTH)) == {("weight", (100, WIDTH)), ("bias", (100,))}
    assert statics(case)[99] == "net.fc"


def test_a_method_taken_keeps_its_object(case: Path) -> None:
    import pkg.nets as m

    # ``Scorer(width).score`` is a bound method: the Scorer, and its projection, live on in it
    built = m.MethodTaken(WIDTH)
    assert isinstance(built.score.__self__, m.Scorer)
    assert built.score(torch.ones(1, WIDTH)).shape == (1, WIDTH)
    assert 115 not in statics(case)


def test_a_static_method_taken_leaves_its_object(case: Path) -> None:
    import pkg.nets as m

    # ``Maker(width).build`` is a plain function: the Maker and its projection are dropped
    assert lost(lambda: m.StaticTaken(WIDTH)) == {("weight", (WIDTH, WIDTH)), ("bias", (WIDTH,))}
    assert statics(case)[131] == "proj"


def test_an_attribute_under_a_method_name_may_hold_its_object(case: Path) -> None:
    import pkg.nets as m

    # ``self.run = self.fast``: the part taken is a bound method of the object itself,
    # which lives on in it with its projection
    built = m.AliasTaken(WIDTH)
    assert isinstance(built.encode.__self__, m.Aliased)
    assert built.encode(torch.ones(1, WIDTH)).shape == (1, WIDTH)
    assert 147 not in statics(case)


def test_an_object_built_for_the_base_leaves_what_the_base_does_not_take(case: Path) -> None:
    import pkg.nets as m

    # the base's __init__ keeps the stem and body of the backbone it is lent: the
    # classifier is built and dropped, inline in the super call or through a local
    fc = {("weight", (100, WIDTH)), ("bias", (100,))}
    assert lost(lambda: m.LentInline(WIDTH)) == fc
    assert lost(lambda: m.LentLocal(WIDTH)) == fc
    found = statics(case)
    assert found[160] == "fc" and found[165] == "fc"


def test_an_object_the_base_keeps_whole_loses_nothing(case: Path) -> None:
    import pkg.nets as m

    assert lost(lambda: m.LentWhole(WIDTH)) == set()
    assert not {n for n in statics(case) if 170 <= n <= 180}

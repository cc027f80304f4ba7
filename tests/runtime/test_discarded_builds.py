"""IL005 against the runtime, on the ``discarded_builds`` fixture: each class is constructed
with the arguments that take each of its paths, and the static verdict on each attribute is
compared with the repeats the trace recorded (keyed by object: a value that lives on in a
wrapper or a container is no repeat).

- a definite error: every path throws away bytes at that attribute;
- a possible error: some path does, and some keeps the first value;
- a warning: every path replaces the value, and the value thrown away holds no bytes;
- no finding: no path throws away bytes there (and where the value is wrapped, kept in a
  container or built under exclusive conditions, no path records a repeat at all)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "check" / "discarded_builds"

# (module, class, attribute, the argument tuples that take each path)
SHAPES = [
    ("twice", "Block", "mixer", [(8,)]),
    ("branches", "Stage", "mixer", [(8, True), (8, False)]),
    ("branches", "MaybeWider", "mixer", [(8, True), (8, False)]),
    ("helper", "Head", "proj", [(8, 3)]),
    ("tables", "Positions", "table", [(4, 8)]),
    ("wrapped", "Wrapped", "mixer", [(8,)]),
    ("contained", "Contained", "mixer", [(8,)]),
    ("exclusive", "Exclusive", "mixer", [(8, "dense"), (8, "sparse")]),
    ("exclusive", "AmongOthers", "mixer", [(8, "dense"), (8, "sparse"), (8, "mixed")]),
    ("exclusive", "AmongThem", "mixer", [(8, "dense"), (8, "wide"), (8, "sparse")]),
    ("exclusive", "AssertedApart", "meta", [(8, True, 0), (8, False, 2)]),
    ("exclusive", "AssertedOther", "meta", [(8, True, False, 2), (8, True, False, 0)]),
    ("placeholder", "Placeholders", "mixer", [(8,)]),
    ("placeholder", "Placeholders", "norm", [(8,)]),
    ("placeholder", "EmptyFirst", "table", [(4, 8)]),
    ("light", "Activation", "act", [(True,)]),
    ("paths", "EarlyReturn", "mixer", [(8, True), (8, False)]),
    ("paths", "Matched", "mixer", [(8, "dense"), (8, "wide")]),
    ("paths", "Fallback", "mixer", [(8,)]),
    ("paths", "Routed", "norm", [(8, True), (8, False)]),
    ("paths", "Split", "mixer", [(8, "training"), (8, "test")]),
    ("early", "SeededGrid", "grid", [(4,)]),
    ("dropped", "Headless", "head", [(8,)]),
    ("dropped", "Trimmed", "head", [(8,)]),
    ("dropped", "Scratch", "mixer", [(8,)]),
    ("dropped", "Detached", "head", [(8,)]),
    ("walked", "Encoder", "classifier", [(8,)]),
    ("hooks", "SkipsExtra", "decoder", [(8,)]),
    ("hooks", "Rebuilt", "decoder", [(8,)]),
]
# A value that lives on (wrapped, kept in a container) or is built on one path only.
NEVER_REPEATED = {("wrapped", "mixer"), ("contained", "mixer"), ("exclusive", "mixer")}
# an early return (also a caller's, after a helper), a match's arms, an except handler
NEVER_REPEATED |= {("paths", "mixer"), ("paths", "norm")}


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[str, str], tuple[str, str]]:
    """(class, attribute) -> (severity, confidence) of the fixture's IL005 findings."""
    analysis = analyze([CASE], cwd=CASE, jobs=1, use_cache=False)
    out = {}
    for d in analysis.diagnostics:
        if d.code != "IL005":
            continue  # (a rebuild after `del` is IL003's: tests/crosscheck checks it)
        named = re.match(r"(?:\w+ )?`(?:self\.)?(\w+)`", d.message)
        assert named is not None, d.message
        # (the classes constructed: a statement of an ancestor is reported for its subclass)
        for cls in d.classes or (d.class_name,):
            out[(cls.rsplit(".", 1)[-1], named.group(1))] = (d.severity, d.confidence)
    return out


def wasted(module: str, cls: str, attr: str, args: tuple[object, ...]) -> list[int]:
    """The bytes each recorded repeat of ``attr`` threw away, constructing ``cls(*args)``."""
    made = getattr(importlib.import_module(f"pkg.{module}"), cls)
    trace = trace_init(lambda: made(*args))
    return [r.bytes for r in trace.repeated if r.name == attr]


@pytest.mark.parametrize(("module", "cls", "attr", "paths"), SHAPES)
def test_static_verdict_matches_the_recorded_repeats(
    check_fixture: Callable[[str], Path],
    verdicts: dict[tuple[str, str], tuple[str, str]],
    module: str,
    cls: str,
    attr: str,
    paths: list[tuple[object, ...]],
) -> None:
    check_fixture("discarded_builds")
    seen = [wasted(module, cls, attr, args) for args in paths]
    costly = [any(b > 0 for b in bytes_) for bytes_ in seen]
    verdict = verdicts.get((cls, attr))
    if verdict == ("error", "definite"):
        assert all(costly)
    elif verdict == ("error", "possible"):
        assert any(costly) and not all(costly)
    elif verdict is not None and verdict[0] == "warning":
        assert all(bytes_ and not any(bytes_) for bytes_ in seen)
    else:
        assert verdict is None
        assert not any(costly)
        if (module, attr) in NEVER_REPEATED:
            assert seen == [[] for _ in paths]


def test_every_finding_is_cross_checked(verdicts: dict[tuple[str, str], tuple[str, str]]) -> None:
    assert set(verdicts) <= {(cls, attr) for _, cls, attr, _ in SHAPES}


def test_whole_model_trace_links_each_repeat_to_its_finding(
    check_fixture: Callable[[str], Path],
) -> None:
    """``trace_model`` (``initlint trace --all-modules``) keys repeats by object and links
    each one to the IL005 finding at the store that replaced the value; a value wrapped or
    kept in a container is no repeat there either."""
    from initlint.runtime import trace_model

    root = check_fixture("discarded_builds")
    expected = {"Stage": 11, "Positions": 12}  # the replacing stores (expected.txt)
    for module, cls, args in (
        ("branches", "Stage", (8, True)),
        ("tables", "Positions", (4, 8)),
        ("wrapped", "Wrapped", (8,)),
        ("contained", "Contained", (8,)),
    ):
        made = getattr(importlib.import_module(f"pkg.{module}"), cls)
        trace = trace_model(lambda made=made, args=args: made(*args), project_roots=[str(root)])
        mine = [r for r in trace.repeats if r.class_name == f"pkg.{module}.{cls}"]
        if cls not in expected:
            assert mine == [], mine
            continue
        (repeat,) = mine
        assert repeat.finding is not None, repeat
        assert (repeat.finding.code, repeat.finding.line) == ("IL005", expected[cls])

"""Bodies read on demand come through a loader that returns a parse error as a value
(``FunctionFacts.load``): the simulator hands it back as its result, and the check makes it
the file's IL900, without an exception crossing either seam."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.facts import extract
from initlint.facts.model import Body, BodyError, BodySyntaxError
from initlint.fix.propose import fix_planner
from initlint.pipeline.analysis import FixPlanner
from initlint.pipeline.check import check_class
from initlint.pipeline.run import check_paths

# ``Child.setup`` is Python 2: the skeleton pass blanks it (only ``__init__`` bodies are read
# up front), so the file's facts say nothing is wrong until the construction reads it.
SOURCE = textwrap.dedent(
    """\
    import torch


    class Base(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.ones(4))


    class Child(Base):
        def __init__(self):
            super().__init__()
            self.setup()

        def setup(self):
            print "x"
            self.register_buffer("c", torch.ones(4))


    class Other(Base):
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.ones(4))
    """
)


def _whole_parse_error() -> SyntaxError:
    try:
        ast.parse(SOURCE)
    except SyntaxError as exc:
        return exc
    raise AssertionError("SOURCE must not parse")


def test_load_returns_the_parse_error_as_a_value() -> None:
    facts = extract.extract_facts(SOURCE)
    assert facts.error is None  # the skeleton pass did not see it
    child = next(c for c in facts.classes if c.name == "Child")
    setup = child.method("setup")
    assert setup is not None and setup.is_lazy
    error = setup.load()
    expected = _whole_parse_error()
    assert isinstance(error, BodyError)
    assert (error.msg, error.line, error.col) == (expected.msg, expected.lineno, expected.offset)
    assert setup.is_lazy  # left unread: every later load finds the same error
    again = setup.load()
    assert isinstance(again, BodyError) and (again.line, again.col) == (error.line, error.col)
    with pytest.raises(BodySyntaxError) as info:  # the strict accessors still raise
        _ = setup.effects
    assert info.value.error.line == error.line
    init = child.method("__init__")
    assert init is not None and isinstance(init.load(), Body)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(SOURCE)
    return tmp_path


def test_the_simulator_returns_the_error_of_a_body_it_reads(tmp_path: Path) -> None:
    root = _project(tmp_path)
    analysis = analyze([root], cwd=root, use_cache=False, jobs=1)
    info = analysis.index.class_info("pkg.m.Child")
    assert info is not None
    sim = analysis.simulator
    assert sim.needs_simulation(info)
    result = sim.simulate(info)  # a value, not an exception
    assert isinstance(result, BodyError)
    assert result.line == _whole_parse_error().lineno
    assert check_class(sim, info) == result
    other = analysis.index.class_info("pkg.m.Other")
    assert other is not None and not isinstance(sim.simulate(other), BodyError)


@pytest.mark.parametrize("planner", [None, fix_planner])
def test_a_body_that_does_not_parse_is_its_files_il900(
    tmp_path: Path, planner: FixPlanner | None
) -> None:
    """The report: IL900 where the whole-file parse puts the error, with its message; no
    finding for the class whose construction reads the body, none lost for the others, and
    no internal error (IL902). The serial pipeline and the driver agree."""
    root = _project(tmp_path)
    expected = _whole_parse_error()
    fast = analyze([root], cwd=root, use_cache=False, jobs=1, fix_planner=planner)
    serial = check_paths([root], cwd=root, fix_planner=planner)
    for analysis in (fast, serial):
        got = [(d.code, d.line, d.column, d.message, d.class_name) for d in analysis.diagnostics]
        assert got == [
            ("IL900", expected.lineno, expected.offset, f"cannot parse: {expected.msg}", ""),
            ("IL001", 23, 9, got[1][3], "pkg.m.Other"),
        ]
        assert analysis.internal_errors == 0
        assert not any(f.sim.cls.qualname == "pkg.m.Child" for f in analysis.findings)
    assert [repr(d) for d in fast.diagnostics] == [repr(d) for d in serial.diagnostics]

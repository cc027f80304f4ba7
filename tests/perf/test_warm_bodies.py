"""A warm run stores the function bodies it read from source, so that the next
edit's run unpickles them instead of parsing them again; a cold run, which reads bodies of
many modules, does not rewrite them all. The results are the same either way."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.facts.extract import read_body
from initlint.facts.model import Body, BodyError, SourceText, Span, register_body_reader

BASE = """\
import torch


def make_table(n):
    return torch.zeros(n, n)


class Base(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self._setup(n)

    def _setup(self, n):
        self.register_buffer("table", make_table(n))
"""

CHILD = """\
import torch
from pkg.base import Base


class Child(Base):
    def __init__(self, n):
        super().__init__(n)
        self.register_buffer("table", torch.zeros(n, n))
"""


def _project(root: Path) -> None:
    (root / ".git").mkdir()
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(BASE)
    (root / "pkg" / "child.py").write_text(CHILD)


def _report(root: Path, **kwargs: object) -> list[tuple[object, ...]]:
    analysis = analyze([root], cwd=root, jobs=1, **kwargs)  # type: ignore[arg-type]
    return [(d.path, d.line, d.code, d.message) for d in analysis.diagnostics]


@pytest.fixture
def bodies_read() -> Iterator[list[tuple[str, int]]]:
    """(first line of the module text, def line) of each body read from source."""
    read: list[tuple[str, int]] = []

    def reader(source: SourceText, span: Span, is_method: bool) -> Body | BodyError:
        read.append((source.text.partition("\n")[0], span.line))
        return read_body(source, span, is_method)

    register_body_reader(reader)
    try:
        yield read
    finally:
        register_body_reader(read_body)


def test_an_edits_check_finds_the_bodies_the_run_before_read(
    tmp_path: Path, bodies_read: list[tuple[str, int]]
) -> None:
    _project(tmp_path)
    expected = _report(tmp_path, use_cache=False)
    assert [code for _, _, code, _ in expected] == ["IL001"]  # (the setup is reached)
    bodies_read.clear()
    assert _report(tmp_path, reuse_results=True) == expected  # cold: computes and stores
    # what the check reads of base.py: _setup (line 13) and make_table (line 4)
    assert sorted(line for _, line in bodies_read) == [4, 13]
    child = tmp_path / "pkg" / "child.py"
    for n in range(2):
        child.write_text(CHILD + f"# edit {n}\n")
        bodies_read.clear()
        assert _report(tmp_path, reuse_results=True) == expected
        assert bodies_read == [], n  # stored by the run before: nothing read again


def test_a_run_that_reads_bodies_of_many_modules_stores_none(
    tmp_path: Path, bodies_read: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import initlint.driver.run as run

    monkeypatch.setattr(run, "FEW_FRESH", 0)  # base.py's one module is "many" now
    _project(tmp_path)
    _report(tmp_path, reuse_results=True)
    child = tmp_path / "pkg" / "child.py"
    for n in range(2):
        child.write_text(CHILD + f"# edit {n}\n")
        bodies_read.clear()
        _report(tmp_path, reuse_results=True)
        assert sorted(line for _, line in bodies_read) == [4, 13]  # read again each time


def test_a_run_without_reused_results_stores_every_body_it_read(
    tmp_path: Path, bodies_read: list[tuple[str, int]]
) -> None:
    _project(tmp_path)
    (tmp_path / "pkg" / "other.py").write_text(
        textwrap.dedent(
            """\
            from pkg.base import Base


            class Other(Base):
                pass
            """
        )
    )
    _report(tmp_path)  # no reuse: every fresh body goes back into the cache
    bodies_read.clear()
    _report(tmp_path)
    assert bodies_read == []

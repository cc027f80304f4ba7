"""Every file-level failure becomes one IL900/IL901/IL902 diagnostic and the run goes on."""

from __future__ import annotations

import os
import pathlib
import stat
import sys
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TypeVar

import pytest

import initlint.driver.factpass as runner
from initlint.diagnostics import Diagnostic

from .conftest import (
    BASE,
    EXPLODE_PRELUDE,
    REDO,
    TRACEBACK,
    Project,
    break_fact_pass,
    break_locator,
    break_simulation,
    by_code,
    marked_lines,
    summary,
)

T = TypeVar("T")
R = TypeVar("R")
GOOD = BASE + REDO.format(name="Good")
GOOD_LINE = marked_lines(GOOD)[0]


def _one(diags: list[Diagnostic], path: str) -> Diagnostic:
    hits = [d for d in diags if d.path == path]
    assert len(hits) == 1, hits
    return hits[0]


# -- IL900 ----------------------------------------------------------------------------------


SYNTAX_ERRORS = {
    # name: (source, line the parser blames)
    # Inside __init__: bodies the fact pass reads (others: see the skeleton test below).
    "py2_print.py": ("class A:\n    def __init__(self):\n        print 'hello'\n", 3),
    "py2_except.py": (
        "class A:\n    def __init__(self):\n        try:\n            pass\n"
        "        except ValueError, e:\n            pass\n",
        5,
    ),
    "py2_exec.py": ('class A:\n    exec "x = 1"\n', 2),
    "py2_octal.py": ("class A:\n    mode = 0777\n", 2),
    "unterminated.py": ('class A:\n    s = "abc\n', 2),
    "bad_indent.py": ("class A:\n    x = 1\n  y = 2\n", 3),
    "unclosed.py": ("class A:\n    x = (1,\n", 2),
}


def test_syntax_errors_are_il900_and_the_run_goes_on(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/good.py", GOOD)
    for name, (source, _) in SYNTAX_ERRORS.items():
        project.write(f"pkg/{name}", source)
    analysis = project.check()
    diags = analysis.diagnostics
    for name, (_, line) in SYNTAX_ERRORS.items():
        d = _one(diags, f"pkg/{name}")
        assert d.code == "IL900", (name, d)
        assert d.rule == "syntax-error"
        assert d.line == line, (name, d)
        assert d.message and TRACEBACK not in d.message
    assert ("pkg/good.py", GOOD_LINE, "IL001") in summary(analysis)
    assert analysis.internal_errors == 0


def test_syntax_error_in_a_body_no_constructor_reaches_is_not_read(project: Project) -> None:
    """The fact pass parses a skeleton without the bodies of functions other than
    __init__ (read on first use). A body never reached is never parsed: its Python 2 print is
    not reported, and the file's classes are still checked."""
    project.write("pkg/__init__.py", "")
    project.write("pkg/good.py", GOOD + "\n    def forward(self):\n        print 'x'\n")
    analysis = project.check()
    assert [d.code for d in analysis.diagnostics] == ["IL001"]
    assert analysis.internal_errors == 0


def test_null_bytes_are_il900(project: Project) -> None:
    project.write("nul.py", b"class A:\n    x = 1\n\x00\n")
    project.write("nul_in_string.py", b'class B:\n    s = "a\x00b"\n')
    project.write("good.py", GOOD)
    analysis = project.check()
    assert [d.code for d in analysis.diagnostics if d.path.startswith("nul")] == [
        "IL900",
        "IL900",
    ]
    assert "null" in by_code(analysis, "IL900")[0].message
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)


# -- IL901 ----------------------------------------------------------------------------------


def test_undecodable_bytes_without_cookie_are_il901(project: Project) -> None:
    project.write("latin1_no_cookie.py", b'class A:\n    s = "caf\xe9"\n')
    project.write("utf16.py", "class A:\n    pass\n".encode("utf-16"))
    project.write("bad_cookie.py", b"# -*- coding: no-such-codec -*-\nclass A:\n    pass\n")
    # A codec that exists but refuses to decode (UnicodeError, not UnicodeDecodeError).
    project.write("undefined_codec.py", b"# coding: undefined\nclass A:\n    pass\n")
    # These decode fine and must not be reported.
    project.write("latin1_cookie.py", b'# -*- coding: latin-1 -*-\nclass A:\n    s = "caf\xe9"\n')
    project.write("bom.py", b"\xef\xbb\xbfclass A:\n    pass\n")
    project.write("good.py", GOOD)
    analysis = project.check()
    unreadable = {d.path: d for d in by_code(analysis, "IL901")}
    assert sorted(unreadable) == [
        "bad_cookie.py",
        "latin1_no_cookie.py",
        "undefined_codec.py",
        "utf16.py",
    ]
    for d in unreadable.values():
        assert d.rule == "unreadable-file"
        assert "decode" in d.message or "encoding" in d.message, d.message
    assert summary(analysis) == sorted(
        [(p, 1, "IL901") for p in unreadable] + [("good.py", GOOD_LINE, "IL001")]
    )


def test_permission_denied_is_il901(project: Project) -> None:
    secret = project.write("secret.py", GOOD)
    project.write("good.py", GOOD)
    secret.chmod(0)
    try:
        try:
            with open(secret, "rb"):
                readable = True
        except PermissionError:
            readable = False
        if readable:
            pytest.skip("a file with mode 000 is still readable here (running as root)")
        analysis = project.check()
    finally:
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
    (d,) = [d for d in analysis.diagnostics if d.path == "secret.py"]
    assert d.code == "IL901"
    assert "permission" in d.message.lower()
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)


def test_permission_error_while_reading_is_il901(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same path as above, forced: works when running as root."""
    secret = project.write("secret.py", GOOD)
    project.write("good.py", GOOD)
    real = pathlib.Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(pathlib.Path, "read_bytes", read_bytes)
    analysis = project.check()
    assert secret.exists()
    (d,) = [d for d in analysis.diagnostics if d.path == "secret.py"]
    assert (d.code, d.line) == ("IL901", 1)
    assert "permission denied" in d.message.lower()
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)
    assert analysis.internal_errors == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_passed_explicitly_is_il901_and_never_opened(project: Project) -> None:
    os.mkfifo(project.root / "pipe.py")
    project.write("good.py", GOOD)
    # Opening a FIFO for reading blocks until a writer comes: the subprocess timeout
    # turns a hang into a failure instead of a stuck test run.
    result = project.cli("pipe.py", "good.py", timeout=60)
    result.assert_no_traceback()
    assert result.returncode == 1
    assert result.codes() == [("good.py", "IL001"), ("pipe.py", "IL901")]
    (pipe,) = [d for d in result.diagnostics if d["path"] == "pipe.py"]
    assert "regular file" in pipe["message"]


# -- skipped silently -----------------------------------------------------------------------


def test_odd_entries_in_a_tree_are_skipped_silently(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/good.py", GOOD)
    (project.root / "pkg" / "folder.py").mkdir()  # a directory named *.py
    project.write("pkg/folder.py/inner.txt", "not python at all (\n")
    project.write("pkg/README.txt", "class (( not python\n")
    project.write("pkg/data.bin", b"\x00\xff\xfe class")
    project.write("pkg/script", "#!/bin/sh\nclass ((\n")
    project.write("pkg/module.pyc", b"\x00\x01class")
    pkg = project.root / "pkg"
    os.symlink("loop_a.py", pkg / "loop_b.py")
    os.symlink("loop_b.py", pkg / "loop_a.py")
    os.symlink("self_loop.py", pkg / "self_loop.py")
    os.symlink("missing.py", pkg / "dangling.py")
    os.symlink("..", pkg / "up")  # a folder loop: walking must not follow it
    os.symlink("good.py", pkg / "alias.py")  # a link to a real file is read like one
    if hasattr(os, "mkfifo"):
        os.mkfifo(pkg / "fifo.py")
    analysis = project.check()
    assert summary(analysis) == [
        ("pkg/alias.py", GOOD_LINE, "IL001"),
        ("pkg/good.py", GOOD_LINE, "IL001"),
    ]
    assert analysis.internal_errors == 0


def test_symlink_loop_passed_explicitly_is_unreadable(project: Project) -> None:
    os.symlink("loop.py", project.root / "loop.py")
    project.write("good.py", GOOD)
    analysis = project.check("loop.py", "good.py")
    assert summary(analysis) == [("good.py", GOOD_LINE, "IL001"), ("loop.py", 1, "IL901")]


# -- IL902 ----------------------------------------------------------------------------------


def test_exception_in_the_fact_pass_is_il902_for_that_file_only(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_fact_pass(monkeypatch)
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    analysis = project.check()
    (d,) = [d for d in analysis.diagnostics if d.path == "boom.py"]
    assert (d.code, d.rule) == ("IL902", "internal-error")
    assert "ValueError" in d.message and "fact pass blew up" in d.message
    assert TRACEBACK not in d.message and 'File "' not in d.message
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)
    assert analysis.internal_errors >= 1


def test_exception_in_the_simulation_is_il902_for_that_class_only(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_simulation(monkeypatch)
    source = GOOD + REDO.format(name="Cursed")
    project.write("m.py", source)
    analysis = project.check()
    good_line, cursed_line = marked_lines(source)
    assert ("m.py", good_line, "IL001") in summary(analysis)
    assert ("m.py", cursed_line, "IL001") not in summary(analysis)
    (d,) = by_code(analysis, "IL902")
    assert d.path == "m.py"
    assert "Cursed" in d.message and "KeyError" in d.message and "no such slot" in d.message
    assert TRACEBACK not in d.message
    assert analysis.internal_errors >= 1


def test_exception_while_locating_a_finding_is_il902(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_locator(monkeypatch, "cursed.py")
    project.write("cursed.py", GOOD)
    project.write("good.py", GOOD)
    analysis = project.check()
    assert ("good.py", GOOD_LINE, "IL001") in summary(analysis)
    (d,) = [d for d in analysis.diagnostics if d.path == "cursed.py"]
    assert d.code == "IL902"
    assert "IndexError" in d.message and "range out of the file" in d.message
    assert analysis.internal_errors >= 1


def test_cli_internal_error_exits_2_without_traceback(project: Project) -> None:
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("good.py", GOOD)
    project.write("broken.py", "class A(:\n")
    result = project.cli(".", prelude=EXPLODE_PRELUDE)
    result.assert_no_traceback()
    assert result.returncode == 2, result.stderr
    assert result.codes() == [("boom.py", "IL902"), ("broken.py", "IL900"), ("good.py", "IL001")]
    (boom,) = [d for d in result.diagnostics if d["code"] == "IL902"]
    assert "RuntimeError" in boom["message"] and "synthetic failure" in boom["message"]


def test_cli_text_output_of_file_errors(project: Project) -> None:
    project.write("good.py", GOOD)
    project.write("broken.py", "class A(:\n")
    project.write("latin1.py", b"class A:\n    s = '\xe9'\n")
    result = project.cli(".", fmt="text")
    result.assert_no_traceback()
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("broken.py:1:") and " IL900 " in line for line in lines)
    assert any(line.startswith("latin1.py:1:1: IL901 ") for line in lines)
    assert any(line.startswith(f"good.py:{GOOD_LINE}:") and " IL001 " in line for line in lines)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_undecodable_file_name_does_not_crash_json(project: Project) -> None:
    name = os.fsdecode(b"caf\xff.py")
    project.write(name, "class A(:\n")
    project.write("good.py", GOOD)
    result = project.cli(".")
    result.assert_no_traceback()
    assert result.returncode == 1
    assert sorted(d["code"] for d in result.diagnostics) == ["IL001", "IL900"]


def test_broken_files_in_a_pooled_run(project: Project) -> None:
    """Enough files for the process pool: failures in workers come back as diagnostics."""
    project.write("pkg/__init__.py", "")
    for i in range(60):
        project.write(f"pkg/m{i:02d}.py", f"class M{i}:\n    x = {i}\n")
    project.write("pkg/good.py", GOOD)
    project.write("pkg/broken.py", "class A(:\n")
    project.write("pkg/nul.py", b"class A:\n\x00\n")
    project.write("pkg/latin1.py", b"class A:\n    s = '\xe9'\n")
    analysis = project.check(jobs=2)
    assert summary(analysis) == [
        ("pkg/broken.py", 1, "IL900"),
        ("pkg/good.py", GOOD_LINE, "IL001"),
        ("pkg/latin1.py", 1, "IL901"),
        ("pkg/nul.py", 1, "IL900"),
    ]


def test_a_pool_that_breaks_half_way_yields_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that dies (OOM killer, segfault) sends the rest to the serial path, once."""
    files = []
    for i in range(120):
        path = tmp_path / f"m{i:03d}.py"
        path.write_text(f"class M{i}:\n    x = {i}\n")
        files.append(path)

    class HalfBrokenPool:
        def __init__(self, max_workers: int) -> None:
            self.max_workers = max_workers

        def __enter__(self) -> HalfBrokenPool:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def submit(self, fn: Callable[[T], R], arg: T) -> Future[R]:
            self.submitted = getattr(self, "submitted", 0) + 1
            future: Future[R] = Future()
            if self.submitted == 1:
                future.set_result(fn(arg))
            else:
                future.set_exception(BrokenProcessPool("a worker process died"))
            return future

    monkeypatch.setattr(runner, "ProcessPoolExecutor", HalfBrokenPool)
    outcomes = list(runner.compute_facts(files, tmp_path, "fp", use_cache=False, jobs=2))
    assert sorted(o.path for o in outcomes) == files
    assert all(o.facts is not None and len(o.facts.classes) == 1 for o in outcomes)


class Unprintable(Exception):
    """An exception whose message cannot be rendered (as libcst's KeyError(deep node) can't)."""

    def __str__(self) -> str:
        raise RecursionError("maximum recursion depth exceeded while getting the str")


def test_unprintable_exception_in_the_fact_pass_is_still_il902(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_fact_pass(
        monkeypatch,
        {"EXPLODE": Unprintable, "VERBOSE": lambda: ValueError("line one\nline two " + "x" * 5000)},
    )
    project.write("boom.py", GOOD + "# EXPLODE\n")
    project.write("verbose.py", GOOD + "# VERBOSE\n")
    project.write("good.py", GOOD)
    analysis = project.check()
    assert summary(analysis) == [
        ("boom.py", 1, "IL902"),
        ("good.py", GOOD_LINE, "IL001"),
        ("verbose.py", 1, "IL902"),
    ]
    boom, verbose = by_code(analysis, "IL902")
    assert boom.message.startswith("Unprintable")
    assert verbose.message.startswith("ValueError: line one line two xxx")
    assert "\n" not in verbose.message and len(verbose.message) < 1000


def test_unprintable_exception_in_the_simulation_is_still_il902(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_simulation(monkeypatch, Unprintable)
    source = GOOD + REDO.format(name="Cursed")
    project.write("m.py", source)
    analysis = project.check()
    good_line, _ = marked_lines(source)
    assert ("m.py", good_line, "IL001") in summary(analysis)
    (d,) = by_code(analysis, "IL902")
    assert "Cursed" in d.message and "Unprintable" in d.message

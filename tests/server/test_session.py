"""The language server's state without the protocol: unsaved text, dependents, caches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.server.session import Session
from initlint.sources import is_overlaid, overlaid, read_bytes

from .project import MID, MID_THREADED, PLUGIN_CHILD_LINE, make_plugin, make_project


def codes(session: Session, path: Path) -> list[str]:
    return [d.code for d in session.results[path].diagnostics]


def test_unsaved_text_leaves_no_trace_in_the_caches(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    sub, mid = root / "pkg" / "sub.py", root / "pkg" / "mid.py"
    # Warm both caches from disk first, as a CLI run would.
    assert [d.code for d in analyze([sub], cwd=root, reuse_results=True).diagnostics] == ["IL001"]
    session = Session()
    session.diagnose(session.open(sub, sub.read_text()))
    assert codes(session, sub) == ["IL001"]
    assert session.open(mid, MID_THREADED) == sorted([mid, sub])
    session.diagnose([mid, sub])
    assert codes(session, sub) == []
    assert mid.read_text() == MID
    # The buffer's results and facts were not stored as the files': a run from disk,
    # reusing the results cache, still sees the finding.
    again = analyze([sub], cwd=root, reuse_results=True)
    assert [d.code for d in again.diagnostics] == ["IL001"]


def test_a_changed_base_reaches_its_open_subclasses_only(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    sub, mid, base = (root / "pkg" / n for n in ("sub.py", "mid.py", "base.py"))
    session = Session()
    session.diagnose(session.open(sub, sub.read_text()) + session.open(mid, mid.read_text()))
    assert codes(session, sub) == ["IL001"]
    assert session.affected([base]) == sorted([sub, mid])  # both reach base.py
    assert session.affected([sub]) == [sub]  # nothing open imports sub.py
    assert session.saved(base) == sorted([sub, mid])
    assert session.close(sub) == []
    assert session.affected([base]) == [mid]


def test_stale_results_are_recomputed_before_a_fix_is_offered(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    sub, mid = root / "pkg" / "sub.py", root / "pkg" / "mid.py"
    session = Session()
    session.diagnose(session.open(sub, sub.read_text()))
    session.open(mid, MID_THREADED)  # not diagnosed yet
    result = session.current(sub)
    assert result is not None and result.diagnostics == ()


def test_edits_are_the_fix_for_the_buffer(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    sub, mid = root / "pkg" / "sub.py", root / "pkg" / "mid.py"
    session = Session()
    shifted = "# a comment line the disk does not have\n" + MID
    session.open(mid, shifted)
    session.diagnose(session.open(sub, sub.read_text()))
    result = session.current(sub)
    assert result is not None
    (diag,) = result.diagnostics
    edits = session.edits(result, diag)
    assert edits is not None and [e.path for e in edits] == [str(mid)]
    assert edits[0].line == 6  # the `def` is one line lower in the buffer than on disk


def test_overlay_is_read_and_then_gone(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_bytes(b"x = 1\n")
    with overlaid({f: b"x = 2\n"}):
        assert read_bytes(f) == b"x = 2\n"
        assert is_overlaid(tmp_path / "." / "a.py")
    assert read_bytes(f) == b"x = 1\n"
    assert not is_overlaid(f)


def test_the_server_never_imports_torch(tmp_path: Path) -> None:
    pytest.importorskip("pygls")  # the lsp extra
    root = make_project(tmp_path / "proj")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import initlint.server.lsp\n"
        "from initlint.server.session import Session\n"
        f"p = Path({str(root / 'pkg' / 'sub.py')!r})\n"
        "s = Session()\n"
        "r = s.diagnose(s.open(p, p.read_text()))[p]\n"
        "assert [d.code for d in r.diagnostics] == ['IL001']\n"
        "assert s.edits(r, r.diagnostics[0])\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_class_whose_ancestor_cannot_be_read_gets_a_hint(tmp_path: Path) -> None:
    from lsprotocol import types

    from initlint.server.lsp import unread_hints

    child = make_plugin(tmp_path)
    session = Session()
    session.diagnose(session.open(child, child.read_text()))
    result = session.results[child]
    assert result.diagnostics == ()
    hints = unread_hints(result.unread)
    assert [(h.range.start.line, h.severity) for h in hints] == [
        (PLUGIN_CHILD_LINE - 1, types.DiagnosticSeverity.Hint)
    ]
    assert "`enginelib.layers.Rotary`" in hints[0].message
    assert "`enginelib` is neither in the project" in hints[0].message
    # once the project holds the package, nothing is hinted
    (tmp_path / "enginelib").mkdir()
    (tmp_path / "enginelib" / "__init__.py").write_text("")
    (tmp_path / "enginelib" / "layers.py").write_text("class Rotary:\n    pass\n")
    session.diagnose(session.saved(child))
    assert session.results[child].unread == ()

"""The stamp that keys the results cache to initlint's own source."""

from __future__ import annotations

import os
from pathlib import Path

from initlint.cache import package_fingerprint, sources_stamp


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("y = 2\n")
    return tmp_path / "pkg"


def test_an_edit_an_added_file_and_a_rename_change_the_stamp(tmp_path: Path) -> None:
    pkg = _tree(tmp_path)
    first = sources_stamp(str(pkg))
    assert sources_stamp(str(pkg)) == first
    (pkg / "sub" / "b.py").write_text("y = 22\n")  # another size
    edited = sources_stamp(str(pkg))
    assert edited != first
    (pkg / "sub" / "c.py").write_text("")
    added = sources_stamp(str(pkg))
    assert added != edited
    (pkg / "sub" / "c.py").rename(pkg / "sub" / "d.py")
    assert sources_stamp(str(pkg)) != added


def test_a_touched_file_changes_it_and_bytecode_does_not(tmp_path: Path) -> None:
    pkg = _tree(tmp_path)
    before = sources_stamp(str(pkg))
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "a.py").write_text("not source")
    (pkg / "notes.txt").write_text("not python")
    assert sources_stamp(str(pkg)) == before
    st = (pkg / "a.py").stat()
    os.utime(pkg / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert sources_stamp(str(pkg)) != before


def test_the_package_stamp_is_initlint_s_sources() -> None:
    import initlint

    assert package_fingerprint() == sources_stamp(os.path.dirname(initlint.__file__))

"""``.gitignore`` is respected by default, as ruff does: generated code under an ignored
folder is neither reported nor read; nested files and negations count; the setting and
the flag turn it off."""

from __future__ import annotations

import os
import time

from .conftest import CHILD_LINE, Project, child

GEN = f"gen/child.py:{CHILD_LINE}:9: IL001"
OWN = f"pkg/child.py:{CHILD_LINE}:9: IL001"


def _with_generated(project: Project) -> None:
    project.write("gen/__init__.py", "")
    project.write("gen/child.py", child())


def test_gitignored_folder_is_skipped(rope_project: Project) -> None:
    _with_generated(rope_project)
    assert GEN in rope_project.check(".").stdout  # not ignored yet
    rope_project.write(".gitignore", "# generated\ngen/\n")
    run = rope_project.check(".")
    assert GEN not in run.stdout
    assert OWN in run.stdout
    assert "Found 1 diagnostic in 1 of 3 files checked." in run.stdout


def test_setting_and_flag_turn_it_off(rope_project: Project) -> None:
    _with_generated(rope_project)
    rope_project.write(".gitignore", "gen/\n")
    assert GEN in rope_project.check("--no-respect-gitignore", ".").stdout
    rope_project.config("[tool.initlint]\nrespect-gitignore = false\n")
    assert GEN in rope_project.check(".").stdout
    assert GEN not in rope_project.check("--respect-gitignore", ".").stdout
    rope_project.config('[tool.initlint]\nrespect-gitignore = "no"\n')
    bad = rope_project.check(".")
    assert bad.code == 2 and "respect-gitignore must be true or false" in bad.stderr


def test_nested_gitignore_and_negation(rope_project: Project) -> None:
    rope_project.write("pkg/sub/__init__.py", "")
    rope_project.write("pkg/sub/made.py", child())
    rope_project.write("pkg/sub/kept.py", child())
    rope_project.write("pkg/sub/.gitignore", "*.py\n!__init__.py\n!kept.py\n")
    run = rope_project.check(".")
    assert "pkg/sub/made.py" not in run.stdout
    assert f"pkg/sub/kept.py:{CHILD_LINE}:9: IL001" in run.stdout
    # A deeper file's pattern wins over the top one's.
    rope_project.write(".gitignore", "kept.py\n")
    assert "pkg/sub/kept.py" in rope_project.check(".").stdout
    os.remove(rope_project.root / "pkg/sub/.gitignore")
    assert "pkg/sub/kept.py" not in rope_project.check(".").stdout
    assert "pkg/sub/made.py" in rope_project.check(".").stdout


def test_gitignore_above_the_project_root_counts(rope_project: Project) -> None:
    """In a monorepo the repository's .gitignore sits above a package's pyproject.toml."""
    top = rope_project.root.parent
    (top / ".git").mkdir()
    (top / ".gitignore").write_text("proj/gen/\n", encoding="utf-8")
    try:
        _with_generated(rope_project)
        assert GEN not in rope_project.check(".").stdout
    finally:
        (top / ".gitignore").unlink()
        (top / ".git").rmdir()


def test_an_ignored_base_is_not_read(rope_project: Project) -> None:
    """Ignored files are not in the project: a base in one does not resolve."""
    rope_project.write(".gitignore", "pkg/base.py\n")
    run = rope_project.check(".")
    assert OWN not in run.stdout, run.stdout


def test_a_file_named_on_the_command_line_is_checked(rope_project: Project) -> None:
    _with_generated(rope_project)
    rope_project.write(".gitignore", "gen/\n")
    assert GEN in rope_project.check("gen/child.py").stdout


def test_editing_gitignore_refreshes_a_warm_walk(rope_project: Project) -> None:
    """The project walk is cached by its folders' stamps; a .gitignore edited in place
    changes no folder, so its own stamp must count."""
    rope_project.write(".gitignore", "nothing/\n")
    old = time.time() - 10  # the walk cache trusts only stamps older than the run
    for rel in (".gitignore", "pkg", "."):
        os.utime(rope_project.root / rel, (old, old))
    assert OWN in rope_project.check("pkg/child.py").stdout
    assert OWN in rope_project.check("pkg/child.py").stdout  # warm
    with open(rope_project.root / ".gitignore", "w", encoding="utf-8") as fh:
        fh.write("pkg/base.py\n")  # in place: the root's listing stays the same
    assert OWN not in rope_project.check("pkg/child.py").stdout

"""A suppression comment of initlint's that suppresses nothing is a warning (ruff's RUF100
as a warning): on stderr, never an exit 1; other linters' noqa comments are left alone."""

from __future__ import annotations

from .conftest import CHILD_LINE, CLEAN_CHILD, Project, child


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_used_suppression_gives_no_warning(rope_project: Project) -> None:
    rope_project.write("pkg/child.py", child("  # noqa: IL001"))
    for _ in range(2):  # cold, then warm (the results come from the cache)
        run = rope_project.check(".")
        assert run.code == 0, run.stdout
        assert _warnings(run.stderr) == []


def test_suppression_that_suppresses_nothing_warns(rope_project: Project) -> None:
    """The subclass is fixed; its old suppression comment stays behind."""
    fixed = CLEAN_CHILD.replace("persistent=False)", "persistent=False)  # initlint: ignore[IL001]")
    rope_project.write("pkg/child.py", fixed)
    for _ in range(2):  # cold, then warm
        run = rope_project.check(".")
        assert run.code == 0, run.stdout
        assert _warnings(run.stderr) == [
            f"warning: pkg/child.py:{CHILD_LINE}: `# initlint: ignore[IL001]` suppresses nothing"
        ]


def test_unused_code_in_a_used_comment(rope_project: Project) -> None:
    rope_project.write("pkg/child.py", child("  # noqa: IL001, IL003"))
    run = rope_project.check(".")
    assert run.code == 0
    assert _warnings(run.stderr) == [
        f"warning: pkg/child.py:{CHILD_LINE}: IL003 in `# noqa: IL001, IL003` suppresses nothing"
    ]


def test_other_linters_comments_and_strings_are_not_reported(rope_project: Project) -> None:
    rope_project.write(
        "pkg/other.py",
        'import os  # noqa: F401\nx = 1  # noqa\ny = "# noqa: IL001"\nz = 2  # noqa: E501\n',
    )
    run = rope_project.check(".")
    assert _warnings(run.stderr) == [], run.stderr
    rope_project.write("pkg/other.py", "z = 2  # noqa: E501, IL002\n")
    run = rope_project.check(".")
    assert _warnings(run.stderr) == [
        "warning: pkg/other.py:1: `# noqa: E501, IL002` suppresses nothing"
    ], run.stderr

"""``initlint check --add-noqa``: ruff's adoption path. Each reported line gets a
``# noqa: ILxxx``; a second run adds nothing; line endings, other comments and existing noqa
codes are kept."""

from __future__ import annotations

from .conftest import CHILD_LINE, Project, child


def _line(project: Project, rel: str, n: int) -> bytes:
    return (project.root / rel).read_bytes().splitlines(keepends=True)[n - 1]


def test_adds_noqa_and_is_idempotent(rope_project: Project) -> None:
    run = rope_project.check("--add-noqa", ".")
    assert run.code == 0, run.stdout + run.stderr
    assert "Added 1 noqa directive to 1 file." in run.stderr
    assert _line(rope_project, "pkg/child.py", CHILD_LINE).endswith(
        b"persistent=False)  # noqa: IL001\n"
    )
    after = rope_project.check(".")
    assert after.code == 0, after.stdout
    data = (rope_project.root / "pkg" / "child.py").read_bytes()
    again = rope_project.check("--add-noqa", ".")
    assert "Added 0 noqa directives to 0 files." in again.stderr
    assert (rope_project.root / "pkg" / "child.py").read_bytes() == data


def test_keeps_crlf_and_other_comments_and_merges_codes(rope_project: Project) -> None:
    text = child("  # type: ignore[arg-type]").replace("\n", "\r\n")
    (rope_project.root / "pkg" / "child.py").write_bytes(text.encode())
    rope_project.write("pkg/other.py", child("  # noqa: E501").replace("class Child", "class O"))
    run = rope_project.check("--add-noqa", ".")
    assert "Added 2 noqa directives to 2 files." in run.stderr, run.stderr
    data = (rope_project.root / "pkg" / "child.py").read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")  # still CRLF throughout
    assert _line(rope_project, "pkg/child.py", CHILD_LINE).endswith(
        b"  # type: ignore[arg-type]  # noqa: IL001\r\n"
    )
    assert _line(rope_project, "pkg/other.py", CHILD_LINE).endswith(b"# noqa: E501, IL001\n")
    assert rope_project.check(".").code == 0


def test_statement_starting_in_a_multiline_string_gets_it_on_its_last_line(
    rope_project: Project,
) -> None:
    source = child().replace(
        'self.register_buffer("cache", self._build(), persistent=False)',
        'self.register_buffer("cache", self._build() if """\n""" else None,\n'
        "            persistent=False)",
    )
    rope_project.write("pkg/child.py", source)
    before = rope_project.check(".")
    assert before.code == 1, before.stdout
    code = before.stdout.split()[1]
    assert before.stdout.startswith(f"pkg/child.py:{CHILD_LINE}:9: {code}"), before.stdout
    run = rope_project.check("--add-noqa", ".")
    assert "Added 1 noqa directive" in run.stderr
    lines = (rope_project.root / "pkg" / "child.py").read_text().splitlines()
    assert lines[CHILD_LINE + 1].endswith(f"persistent=False)  # noqa: {code}"), lines
    assert rope_project.check(".").code == 0

"""Suppression comments on the reported line: initlint's own form and flake8/ruff's noqa."""

from __future__ import annotations

import pytest

from initlint.locate import suppressed_codes
from initlint.rules import REGISTRY

from .conftest import CHILD_LINE, Project, child

FINDING = f"pkg/child.py:{CHILD_LINE}:9: IL001"


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("  # initlint: ignore[IL001]", True),
        ("  # initlint: ignore[IL002]", False),
        ("  # initlint: ignore[IL002, IL001]", True),
        ("  # initlint: ignore[IL002,IL001]", True),
        ("  # initlint: ignore[IL0]", True),  # prefix
        ("  # initlint: ignore", True),  # every code
        ("  # initlint:ignore", True),
        ("  # initlint: ignore[]", False),
        ("  # initlint: ignored", False),
        ("  # noqa: IL001", True),
        ("  # noqa:IL001", True),
        ("  # NOQA: il001", True),
        ("  # noqa: IL002,IL001", True),
        ("  # noqa: E501, IL001", True),
        ("  # noqa: IL002 IL001", True),
        ("  # noqa: E501", False),
        ("  # noqa: IL002", False),
        ("  # noqa", True),  # bare: every code
        ("  # noqa - fixing later", True),
        ("  # type: ignore[attr-defined]  # noqa: IL001", True),
        ("  # noqa: F401  # initlint: ignore[IL001]", True),
        ("  # TODO: not a suppression", False),
        ("  # noqanything", False),
    ],
)
def test_comment_on_reported_line(rope_project: Project, comment: str, suppressed: bool) -> None:
    rope_project.write("pkg/child.py", child(comment))
    run = rope_project.check()
    assert (FINDING in run.stdout) is not suppressed, run.stdout
    assert run.code == (0 if suppressed else 1)


def test_comment_on_another_line_does_not_suppress(rope_project: Project) -> None:
    source = child().replace(
        "        super().__init__(n)\n", "        super().__init__(n)  # initlint: ignore\n"
    )
    rope_project.write("pkg/child.py", source + "# noqa\n")
    assert FINDING in rope_project.check().stdout


def test_string_that_looks_like_a_comment_does_not_suppress(rope_project: Project) -> None:
    source = child().replace("persistent=False)", 'persistent=False); x = "# initlint: ignore"')
    rope_project.write("pkg/child.py", source)
    assert FINDING in rope_project.check().stdout


MULTILINE = """\
from pkg.base import Base


class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer({first}
            "cache", self._build(), persistent=False
        ){last}
"""


@pytest.mark.parametrize(
    ("first", "last", "suppressed"),
    [
        ("", "", False),
        ("  # noqa: IL001", "", True),  # first line of the statement
        ("", "  # noqa: IL001", True),  # last line of the statement
        ("", "  # initlint: ignore[IL003]", False),
    ],
)
def test_multiline_statement(
    rope_project: Project, first: str, last: str, suppressed: bool
) -> None:
    rope_project.write("pkg/child.py", MULTILINE.format(first=first, last=last))
    run = rope_project.check()
    assert ("pkg/child.py:7:9: IL001" in run.stdout) is not suppressed, run.stdout


def test_suppression_is_per_line(rope_project: Project) -> None:
    source = child("  # noqa: IL001") + (
        "\n\nclass Other(Base):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("cache", self._build())\n'
    )
    rope_project.write("pkg/child.py", source)
    run = rope_project.check()
    assert FINDING not in run.stdout
    assert "pkg/child.py:13:9: IL001" in run.stdout


def test_il004_suppressed_on_the_super_call(project: Project) -> None:
    (invalid,) = REGISTRY["IL004"].INVALID
    project.write("m.py", invalid)
    run = project.check()
    line = next(ln for ln in run.stdout.splitlines() if " IL004 " in ln)
    lineno = int(line.split(":")[1])
    lines = invalid.splitlines()
    lines[lineno - 1] += "  # initlint: ignore[IL004]"
    project.write("m.py", "\n".join(lines) + "\n")
    assert project.check().code == 0


@pytest.mark.parametrize(
    ("comment", "codes"),
    [
        ("# noqa", {"*"}),
        ("# initlint: ignore", {"*"}),
        ("# noqa: IL001, IL002", {"IL001", "IL002"}),
        ("# initlint: ignore[ il001 ,IL3 ]", {"IL001", "IL3"}),
        ("# unrelated", set()),
    ],
)
def test_suppressed_codes_parser(comment: str, codes: set[str]) -> None:
    assert suppressed_codes(comment) == frozenset(codes)

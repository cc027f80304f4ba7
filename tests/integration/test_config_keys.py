"""Each [tool.initlint] key, end to end through `initlint check`, and CLI precedence."""

from __future__ import annotations

import json

import pytest

from .conftest import CHILD_LINE, Project

FINDING = f"pkg/child.py:{CHILD_LINE}:9: IL001"


def reported(text_report: str) -> list[str]:
    """Codes of the diagnostics in a text report (lines `path:line:col: CODE message`)."""
    codes = []
    for line in text_report.splitlines():
        head, _, rest = line.partition(" ")
        if head.count(":") == 3 and head.endswith(":") and rest.startswith("IL"):
            codes.append(rest.split()[0])
    return codes


# -- rule selection -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("", ["IL001"]),
        ('select = ["IL001"]', ["IL001"]),
        ('select = ["IL002"]', []),
        ('select = ["IL0"]', ["IL001"]),  # prefix
        ('select = ["IL9"]', []),
        ('select = ["ALL"]', ["IL001"]),
        ('ignore = ["IL001"]', []),
        ('ignore = ["IL00"]', []),  # prefix
        ('ignore = ["IL002"]', ["IL001"]),
        ('select = ["IL9"]\nextend-select = ["IL001"]', ["IL001"]),
        ('select = ["IL002"]\nextend-select = ["IL003"]', []),
        ('extend-select = ["IL001"]\nignore = ["IL001"]', []),  # ignore wins
    ],
)
def test_selection_keys(rope_project: Project, body: str, expected: list[str]) -> None:
    rope_project.config(f"[tool.initlint]\n{body}\n")
    run = rope_project.check()
    assert reported(run.stdout) == expected
    assert run.code == (1 if expected else 0)


def test_prefix_selects_init_rules_not_internal(rope_project: Project) -> None:
    rope_project.write("pkg/broken.py", "class Broken(:\n    pass\n")
    assert sorted(reported(rope_project.check().stdout)) == ["IL001", "IL900"]
    rope_project.config('[tool.initlint]\nselect = ["IL0"]\n')
    assert reported(rope_project.check().stdout) == ["IL001"]
    rope_project.config('[tool.initlint]\nselect = ["IL9"]\n')
    assert reported(rope_project.check().stdout) == ["IL900"]


# -- per-file-ignores -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "suppressed"),
    [
        ('"pkg/child.py" = ["IL001"]', True),
        ('"pkg/*" = ["IL0"]', True),
        ('"pkg/child.py" = ["ALL"]', True),
        ('"pkg/child.py" = ["IL002"]', False),
        ('"other/*" = ["IL001"]', False),
    ],
)
def test_per_file_ignores(rope_project: Project, table: str, suppressed: bool) -> None:
    rope_project.config(f"[tool.initlint.per-file-ignores]\n{table}\n")
    run = rope_project.check()
    assert (FINDING in run.stdout) is not suppressed
    assert run.code == (0 if suppressed else 1)


def test_per_file_ignores_match_when_run_from_a_subfolder(
    rope_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    rope_project.config('[tool.initlint.per-file-ignores]\n"pkg/child.py" = ["IL001"]\n')
    monkeypatch.chdir(rope_project.root / "pkg")
    run = rope_project.check("child.py")
    assert run.code == 0, run.stdout


# -- exclude / extend-exclude ---------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        'exclude = ["pkg/child.py"]',
        'exclude = ["child.py"]',
        'extend-exclude = ["pkg/child.py"]',
        'extend-exclude = ["ch*.py"]',
        'exclude = ["pkg"]',
    ],
)
def test_excluded_file_is_not_reported(rope_project: Project, body: str) -> None:
    rope_project.config(f"[tool.initlint]\n{body}\n")
    assert rope_project.check().code == 0
    # pre-commit passes files explicitly: the configured excludes still apply.
    assert rope_project.check("pkg/child.py").code == 0


def test_excluded_base_is_not_read_for_resolution(rope_project: Project) -> None:
    rope_project.config('[tool.initlint]\nextend-exclude = ["pkg/base.py"]\n')
    run = rope_project.check("pkg/child.py")
    assert run.code == 0, run.stdout


def test_exclude_that_matches_nothing_changes_nothing(rope_project: Project) -> None:
    rope_project.config('[tool.initlint]\nexclude = ["nothing_here"]\n')
    assert FINDING in rope_project.check().stdout


# -- src ------------------------------------------------------------------------------------

CORE_CHILD = """\
from core.base import Base


class Child(Base):
    def __init__(self, n=4096):
        super().__init__(n)
        self.register_buffer("cache", self._build(), persistent=False)
"""

PLAIN_BASE = """\
from torch import nn


class Base(nn.Module):
    def __init__(self, n=4096):
        super().__init__()

    def _build(self):
        return None
"""


@pytest.mark.parametrize(("src", "found"), [("", False), ('["lib"]', True), ('["other"]', False)])
def test_src_roots_decide_which_package_an_import_means(
    project: Project, src: str, found: bool
) -> None:
    from .conftest import BASE

    # Two folders hold a top-level package `core`: only `src` can say which one is meant.
    project.write("lib/core/__init__.py", "")
    project.write("lib/core/base.py", BASE)
    project.write("other/core/__init__.py", "")
    project.write("other/core/base.py", PLAIN_BASE)
    project.write("app.py", CORE_CHILD)
    project.config(f"[tool.initlint]\nsrc = {src}\n" if src else "")
    run = project.check("app.py")
    assert ("app.py:7:9: IL001" in run.stdout) is found, run.stdout


# -- expensive-calls / cheap-calls ----------------------------------------------------------

CALLS = """\
from mylib import make_table
from torch import nn


class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = make_table(n)
        self.proj = nn.Linear(n, n)


class Child(Base):
    def __init__(self, n):
        super().__init__(n)
        self.table = make_table(n)
        self.proj = nn.Linear(n, n)
"""


# ``mylib`` is not installed: what ``make_table`` does is unknown, so its rebuild is a
# "possibly" warning until the configuration says what it costs.
@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ("", [(15, "warning"), (16, "error")]),
        ('expensive-calls = ["mylib.make_table"]', [(15, "error"), (16, "error")]),
        ('expensive-calls = ["mylib.*"]', [(15, "error"), (16, "error")]),
        ('expensive-calls = ["otherlib.*"]', [(15, "warning"), (16, "error")]),
        ('cheap-calls = ["torch.nn.Linear"]', [(15, "warning")]),
        ('cheap-calls = ["torch.nn.*"]', [(15, "warning")]),
        ('expensive-calls = ["mylib.*"]\ncheap-calls = ["torch.nn.Linear"]', [(15, "error")]),
        ('expensive-calls = ["mylib.*"]\ncheap-calls = ["mylib.*"]', [(16, "error")]),  # cheap wins
        ('cheap-calls = ["mylib.*"]', [(16, "error")]),
    ],
)
def test_cost_keys(project: Project, body: str, lines: list[tuple[int, str]]) -> None:
    project.write("m.py", CALLS)
    project.config(f"[tool.initlint]\n{body}\n")
    run = project.check()
    found = [
        (int(line.split(":")[1]), line.split("[", 1)[1].split("]", 1)[0])
        for line in run.stdout.splitlines()
        if " IL003 " in line
    ]
    assert found == lines, run.stdout


# -- flag-name (used by the fixer; here: parsed, validated, shown, overridden) ---------------


def test_flag_name_from_config_and_cli(project: Project) -> None:
    project.config('[tool.initlint]\nflag-name = "init_tables"\n')
    shown = project.check("--show-settings").stdout
    assert 'flag-name = "init_tables"  # ' + str(project.root / "pyproject.toml") in shown
    shown = project.check("--show-settings", "--flag-name", "build_it").stdout
    assert 'flag-name = "build_it"  # command line' in shown


NO_FLAG = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n=4096):
        super().__init__()
        self.register_buffer("table", torch.zeros(n, n))


class Child(Base):
    def __init__(self, n=4096):
        super().__init__(n)
        self.register_buffer("table", torch.ones(n, n))
"""


@pytest.mark.parametrize(
    ("body", "args", "name"),
    [
        ('flag-name = "make_table"', [], "make_table"),
        ('flag-name = "make_table"', ["--flag-name", "build_it"], "build_it"),
        ("", ["--flag-name", "build_it"], "build_it"),
    ],
)
def test_flag_name_names_the_flag_a_fix_introduces(
    project: Project, body: str, args: list[str], name: str
) -> None:
    # No ancestor flag guards the registration: the (unsafe) fix must introduce one.
    project.write("m.py", NO_FLAG)
    project.config(f"[tool.initlint]\n{body}\n")
    default = json.loads(project.check("--format", "json", "--flag-name", "init_table").stdout)
    (item,) = json.loads(project.check("--format", "json", *args).stdout)
    assert item["fix"] is not None, item
    contents = "".join(e["content"] for e in item["fix"]["edits"])
    assert f"{name}: bool = True" in contents and f"{name}=False" in contents
    assert "init_table" not in contents
    assert "init_table" in "".join(e["content"] for e in default[0]["fix"]["edits"])


# -- command line overrides config ----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "args", "expected"),
    [
        ('select = ["IL9"]', ["--select", "IL001"], ["IL001"]),
        ('select = ["IL001"]', ["--select", "IL9"], []),
        ('ignore = ["IL001"]', ["--ignore", "IL002"], ["IL001"]),
        ("", ["--ignore", "IL0"], []),
        ('select = ["IL9"]', ["--extend-select", "IL001"], ["IL001"]),
        ('select = ["IL9"]', ["--select", "IL9,IL001"], ["IL001"]),  # comma list
        ('exclude = ["pkg/child.py"]', ["--exclude", "nothing"], ["IL001"]),  # replaces
        ("", ["--exclude", "pkg/child.py"], []),
        ("", ["--extend-exclude", "pkg/child.py"], []),
    ],
)
def test_cli_flags_override_config(
    rope_project: Project, body: str, args: list[str], expected: list[str]
) -> None:
    rope_project.config(f"[tool.initlint]\n{body}\n")
    assert reported(rope_project.check(*args).stdout) == expected


def test_config_option_reads_another_file(rope_project: Project) -> None:
    rope_project.write("alt.toml", '[tool.initlint]\nignore = ["IL001"]\n')
    assert rope_project.check().code == 1
    assert rope_project.check("--config", "alt.toml").code == 0


# -- --show-settings ------------------------------------------------------------------------


def test_show_settings_prints_every_key_with_its_source(rope_project: Project) -> None:
    rope_project.config(
        """\
        [tool.initlint]
        select = ["IL0"]
        src = ["lib"]
        expensive-calls = ["mylib.*"]

        [tool.initlint.per-file-ignores]
        "tests/*" = ["IL001"]
        """
    )
    run = rope_project.check("--show-settings", "--ignore", "IL004")
    assert run.code == 0  # it does not check: the finding in pkg/child.py does not count
    cfg = str(rope_project.root / "pyproject.toml")
    out = run.stdout
    assert f"# config file:  {cfg}" in out
    assert f'select = ["IL0"]  # {cfg}' in out
    assert 'ignore = ["IL004"]  # command line' in out
    assert "extend-select = []  # default" in out
    assert f'src = ["lib"]  # {cfg}' in out
    assert f'expensive-calls = ["mylib.*"]  # {cfg}' in out
    assert f"[tool.initlint.per-file-ignores]  # {cfg}" in out
    assert '"tests/*" = ["IL001"]' in out
    for key in ("exclude", "extend-exclude", "cheap-calls", "flag-name"):
        assert f"\n{key} = " in out
    assert "IL001 " not in out


def test_show_settings_without_config(project: Project) -> None:
    out = project.check("--show-settings").stdout
    assert "(none; defaults)" in out
    assert 'select = ["IL"]  # default' in out


# -- the per-file-ignores matcher (Settings.file_ignores) -----------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("pkg/child.py", "pkg/child.py", True),
        ("./pkg/child.py", "pkg/child.py", True),
        ("pkg/*", "pkg/sub/child.py", True),
        ("child.py", "pkg/child.py", True),  # no "/": the file name alone
        ("__init__.py", "a/b/__init__.py", True),
        ("*_test.py", "pkg/x_test.py", True),
        ("pkg/child.py", "other/pkg/child.py", False),
        ("tests/*", "pkg/child.py", False),
    ],
)
def test_path_matches(pattern: str, path: str, hit: bool) -> None:
    from initlint.settings import path_matches

    assert path_matches(pattern, path) is hit


def test_ignored_in_file_checks_every_matching_pattern() -> None:
    from initlint.settings import Settings

    s = Settings(per_file_ignores=(("pkg/*", ("IL001",)), ("*.py", ("IL9",)), ("x/*", ("ALL",))))
    assert s.ignored_in_file("IL001", ("pkg/a.py",))
    assert s.ignored_in_file("IL900", ("pkg/a.py",))
    assert not s.ignored_in_file("IL002", ("pkg/a.py",))
    assert s.ignored_in_file("IL901", ("other.py", "../other.py"))
    assert not s.ignored_in_file("IL001", ("other.py", "../other.py"))
    assert s.ignored_in_file("IL004", ("x/y.txt",))

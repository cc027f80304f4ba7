"""IL005 through the command line: explain-class shows its decision, and selection,
configuration and suppression comments treat it as any other code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from integration.conftest import Project

CASES = Path(__file__).parents[1] / "fixtures" / "check"
TWICE = "pkg/twice.py:10:9: IL005"


@pytest.fixture
def discards(project: Project) -> Project:
    shutil.copytree(CASES / "discarded_builds" / "pkg", project.root / "pkg")
    return project


def test_explain_class_shows_the_build_thrown_away(discards: Project) -> None:
    run = discards.invoke("explain-class", "pkg.branches:Stage")
    assert run.code == 0, run.stderr
    decisions = run.stdout.split("decisions:\n", 1)[1]
    # the first build, the store that throws it away, and the other arm's store
    first, store, other = (m.groups() for m in re.finditer(r"#(\d+) +(.*)", decisions))
    assert first[1] == f"thrown away: IL005 at #{store[0]}"
    assert store[1] == (
        f"IL005 error: `self.mixer` replaced before anything read it: #{first[0]} at "
        f"pkg/branches.py:9, replaced here (and at #{other[0]}) (cost heavy)"
    )
    assert other[1] == f"replaces #{first[0]} too, on other paths (IL005 at #{store[0]})"
    out = discards.invoke("explain-class", "pkg.branches:MaybeWider").stdout
    assert "IL005 error (possibly): `self.mixer` replaced before anything read it" in out


def test_rules_and_explain_list_it(discards: Project) -> None:
    assert re.search(r"^IL005 +fix +discarded-init-value ", discards.invoke("rules").stdout, re.M)
    out = discards.invoke("explain", "IL005").stdout
    assert out.startswith("IL005 (discarded-init-value)")
    assert "## Fix safety" in out


@pytest.mark.parametrize(
    ("args", "config", "shown"),
    [
        ((), "", True),
        (("--ignore", "IL005"), "", False),
        (("--select", "IL001"), "", False),
        (("--select", "IL0"), "", True),
        ((), '[tool.initlint]\nignore = ["IL005"]\n', False),
        ((), '[tool.initlint]\nselect = ["IL005"]\n', True),
        ((), '[tool.initlint.per-file-ignores]\n"pkg/twice.py" = ["IL005"]\n', False),
    ],
)
def test_selection_and_configuration(
    discards: Project, args: tuple[str, ...], config: str, shown: bool
) -> None:
    discards.config(config)
    run = discards.check("--no-cache", *args)
    assert (TWICE in run.stdout) is shown, run.stdout


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("  # noqa: IL005", True),
        ("  # initlint: ignore[IL005]", True),
        ("  # initlint: ignore[IL003]", False),
        ("  # noqa: IL001", False),
    ],
)
def test_suppression_on_the_replacing_line(
    discards: Project, comment: str, suppressed: bool
) -> None:
    path = discards.root / "pkg" / "twice.py"
    text = path.read_text()
    line = "        self.mixer = Mixer(width, span=4)\n"
    assert line in text
    path.write_text(text.replace(line, line.rstrip("\n") + comment + "\n"))
    run = discards.check("--no-cache")
    assert (TWICE in run.stdout) is not suppressed, run.stdout


def test_explain_class_says_a_value_went_to_copies(project: Project) -> None:
    shutil.copytree(CASES / "copying_wrapper" / "pkg", project.root / "pkg")
    out = project.invoke("explain-class", "pkg.layers:Lifting").stdout
    assert "its current value handed to Copied, which keeps only copies" in out
    assert "IL005 error: `self.proj` replaced by deep copies of it" in out

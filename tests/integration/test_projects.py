"""Several projects in one run (a monorepo's packages, each with its own pyproject.toml):
paths are grouped by project root, each group checked with its own settings and index,
and the output merged and sorted, whatever order the paths came in."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import BASE, CHILD_LINE, Project, child


def _package(project: Project, top: str, config: str = "") -> None:
    """``top/`` is a project of its own: its pyproject.toml, and ``pkg`` with the IL001."""
    project.write(f"{top}/pyproject.toml", f'[project]\nname = "{top}"\n\n{config}')
    project.write(f"{top}/pkg/__init__.py", "")
    project.write(f"{top}/pkg/base.py", BASE)
    project.write(f"{top}/pkg/child.py", child())


@pytest.fixture
def monorepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    root = tmp_path / "mono"
    root.mkdir()
    monkeypatch.chdir(root)
    project = Project(root)
    (root / "pyproject.toml").unlink()  # the top is no project: only its packages are
    _package(project, "pkg_a")
    _package(project, "pkg_b")
    return project


def _findings(stdout: str) -> list[str]:
    return [
        line.split(" ", 2)[0] + " " + line.split(" ", 2)[1]
        for line in stdout.splitlines()
        if ": IL" in line and not line.startswith(" ")
    ]


def test_two_roots_both_reported_in_either_order(monorepo: Project) -> None:
    a, b = "pkg_a/pkg/child.py", "pkg_b/pkg/child.py"
    forward = monorepo.check(a, b)
    backward = monorepo.check(b, a)
    want = [f"{a}:{CHILD_LINE}:9: IL001", f"{b}:{CHILD_LINE}:9: IL001"]
    assert _findings(forward.stdout) == want, forward.stdout + forward.stderr
    assert forward.stdout == backward.stdout
    assert forward.code == backward.code == 1
    assert "Found 2 diagnostics in 2 of 2 files checked." in forward.stdout
    # Each resolved its own base: the note points into its own project.
    assert "note: pkg_a/pkg/base.py:" in forward.stdout
    assert "note: pkg_b/pkg/base.py:" in forward.stdout


def test_each_root_has_its_own_settings(monorepo: Project) -> None:
    _package(monorepo, "pkg_b", '[tool.initlint]\nignore = ["IL001"]\n')
    run = monorepo.check("pkg_b/pkg/child.py", "pkg_a/pkg/child.py")
    assert _findings(run.stdout) == [f"pkg_a/pkg/child.py:{CHILD_LINE}:9: IL001"], run.stdout
    shown = monorepo.check("--show-settings", "pkg_a", "pkg_b").stdout
    assert shown.count("# project root:") == 2
    assert 'ignore = ["IL001"]' in shown


def test_json_output_merged_and_sorted(monorepo: Project) -> None:
    import json

    run = monorepo.check("--format", "json", "pkg_b/pkg/child.py", "pkg_a/pkg/child.py")
    paths = [d["path"] for d in json.loads(run.stdout)]
    assert paths == ["pkg_a/pkg/child.py", "pkg_b/pkg/child.py"]


def test_fix_in_two_roots(monorepo: Project) -> None:
    run = monorepo.invoke("check", "--fix", "pkg_b/pkg/child.py", "pkg_a/pkg/child.py")
    assert run.code == 0, run.stdout + run.stderr
    for top in ("pkg_a", "pkg_b"):
        text = (monorepo.root / top / "pkg" / "child.py").read_text(encoding="utf-8")
        assert "init_cache=False" in text, top


def test_read_only_file_in_one_root_stops_every_write(monorepo: Project) -> None:
    """Nothing is written anywhere in a run that cannot write one file."""
    a = monorepo.root / "pkg_a" / "pkg" / "child.py"
    b = monorepo.root / "pkg_b" / "pkg" / "child.py"
    b.chmod(0o444)
    before = a.read_bytes(), b.read_bytes()
    run = monorepo.invoke("check", "--fix", "pkg_a/pkg/child.py", "pkg_b/pkg/child.py")
    assert run.code == 2
    assert "read-only" in run.stderr and "pkg_b/pkg/child.py" in run.stderr
    assert (a.read_bytes(), b.read_bytes()) == before

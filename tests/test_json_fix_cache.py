"""JSON/SARIF fixes stored with the per-file results: a warm run gives the same bytes as a
run without the cache, and renders and checks only the fixes whose inputs changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server.project import BASE, MID, SUB  # the server tests' three-file project

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze
from initlint.fix.attach import EditAttacher
from initlint.fix.propose import fix_planner
from initlint.pipeline.analysis import Analysis

# A sibling of Rope4 in a file Rope4's closure does not hold.
SIBLING = """\
from pkg.mid import Scaled


class Other(Scaled):
    def __init__(self, dim):
        super().__init__(dim, 2.0{flag})
"""

UNRELATED = """\
class Plain:
    def __init__(self):
        self.x = 1
"""

# Imports the file the fix edits, with no class under it and no finding.
USER = """\
from pkg.mid import Scaled


def make():
    return Scaled(4, 2.0)


class Holder:
    def __init__(self):
        self.x = 1
"""


def make(root: Path) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fx"\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "mid.py").write_text(MID)
    (pkg / "sub.py").write_text(SUB)
    (pkg / "sib.py").write_text(SIBLING.format(flag=""))
    (pkg / "plain.py").write_text(UNRELATED)
    (pkg / "user.py").write_text(USER)
    return root


def cli(root: Path, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "initlint", "check", *args, "pkg"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


def test_warm_json_and_sarif_are_the_uncached_bytes(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    for fmt in ("json", "sarif"):
        uncached = cli(root, "--no-cache", "--format", fmt)
        assert '"edits"' in uncached or '"fixes"' in uncached
        assert cli(root, "--format", fmt) == uncached  # cold, then stored
        assert cli(root, "--format", fmt) == uncached  # warm
        (root / "pkg" / "plain.py").write_text(UNRELATED + "# edited\n")
        assert cli(root, "--format", fmt) == uncached
        assert cli(root, "--format", fmt) == cli(root, "--no-cache", "--format", fmt)


def test_a_sibling_change_checks_a_stored_fix_again(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    before = cli(root, "--format", "json")
    assert '"applicability": "unsafe"' in before  # threading init_cache through Scaled
    # Now the sibling passes init_cache=False and never builds the cache itself: threading
    # the flag would switch its cache off (IL004), so the fix must be withdrawn. sub.py's
    # own closure did not change; its stored fix is checked again all the same.
    (root / "pkg" / "sib.py").write_text(SIBLING.format(flag=", init_cache=False"))
    warm = cli(root, "--format", "json")
    uncached = cli(root, "--no-cache", "--format", "json")
    assert warm == uncached
    assert '"fix": null' in uncached and "[no fix]" in uncached


class Counting(EditAttacher):
    def __init__(self) -> None:
        self.checked: list[str] = []

    def attach(
        self, analysis: Analysis, diags: list[Diagnostic], known: frozenset[object]
    ) -> dict[Diagnostic, Diagnostic]:
        self.checked += [f"{d.path}:{d.line}" for d in diags]
        return super().attach(analysis, diags, known)


def run(root: Path, attacher: Counting) -> list[Diagnostic]:
    a = analyze(
        [root / "pkg"], cwd=root, fix_planner=fix_planner, reuse_results=True, fixes=attacher
    )
    return a.diagnostics


def test_only_fixes_whose_inputs_changed_are_checked(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    first = Counting()
    cold = run(root, first)
    assert first.checked == ["pkg/sub.py:9"]
    assert cold[0].fix is not None and cold[0].fix.edits
    again = Counting()
    assert run(root, again) == cold
    assert again.checked == []  # nothing changed: the stored edits are shown
    (root / "pkg" / "plain.py").write_text(UNRELATED + "# edited\n")
    unrelated = Counting()
    assert run(root, unrelated) == cold
    assert unrelated.checked == []  # plain.py reaches nothing the fix edits
    (root / "pkg" / "user.py").write_text(USER + "# edited\n")
    user = Counting()
    assert run(root, user) == cold
    assert user.checked == []  # it imports mid.py, but none of its classes sits under Scaled
    (root / "pkg" / "sib.py").write_text(SIBLING.format(flag=", init_cache=True"))
    sibling = Counting()
    assert run(root, sibling) == cold
    assert sibling.checked == ["pkg/sub.py:9"]  # sib.py imports mid.py, which the fix edits


def test_a_rechecked_fix_sees_the_classes_of_files_taken_from_the_cache(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    (root / "pkg" / "sib.py").write_text(SIBLING.format(flag=", init_cache=False"))
    cold = cli(root, "--format", "json")
    assert '"fix": null' in cold  # withdrawn: it would switch off Other's cache
    # Only sub.py changes: sib.py's results come from the cache, and its classes must still
    # be there when sub.py's fix is checked again.
    (root / "pkg" / "sub.py").write_text(SUB + "# edited\n")
    warm = cli(root, "--format", "json")
    assert warm == cli(root, "--no-cache", "--format", "json")
    assert '"fix": null' in warm


def test_fixes_checked_in_a_forked_copy_are_the_same(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import initlint.driver.fixes as engine

    root = make(tmp_path / "p")
    (root / "pkg" / "sub2.py").write_text(SUB.replace("Rope4", "Rope5"))
    alone = analyze(
        [root / "pkg"],
        cwd=root,
        fix_planner=fix_planner,
        fixes=EditAttacher(),
        jobs=1,
        use_cache=False,
    ).diagnostics
    monkeypatch.setattr(engine, "ATTACH_SPLIT_MIN", 1)
    split = analyze(
        [root / "pkg"],
        cwd=root,
        fix_planner=fix_planner,
        fixes=EditAttacher(),
        jobs=2,
        use_cache=False,
    ).diagnostics
    assert len([d for d in alone if d.fix is not None and d.fix.edits]) == 2
    assert split == alone


# A class under Scaled whose own finding is suppressed: it has no fix to attach, and every
# fix that edits mid.py must still know its finding (it keeps it after such a fix).
KEEP = """\
import torch

from pkg.mid import Scaled


class Keep(Scaled):
    def __init__(self, dim, factor):
        super().__init__(dim, factor)
        self.register_buffer("scale", torch.zeros(3), persistent=False)  # noqa: IL001
"""


def split_project(root: Path) -> Path:
    """base.py (registering a second buffer, ``scale``), mid.py and sub.py, then files whose
    names sort them into the second half of the check: Keep and a second Rope4."""
    root = make(root)
    pkg = root / "pkg"
    (pkg / "sib.py").unlink()
    (pkg / "base.py").write_text(
        BASE + '        self.register_buffer("scale", torch.ones(2), persistent=False)\n'
    )
    for i in range(2):
        (pkg / f"x_plain{i}.py").write_text(UNRELATED)
    (pkg / "y_keep.py").write_text(KEEP)
    (pkg / "z_sub.py").write_text(SUB.replace("Rope4", "Rope5"))
    return root


def json_run(root: Path, jobs: int) -> list[Diagnostic]:
    return analyze(
        [root / "pkg"],
        cwd=root,
        fix_planner=fix_planner,
        fixes=EditAttacher(),
        jobs=jobs,
        reuse_results=True,
        use_cache=False,
    ).diagnostics


@pytest.fixture
def forced_split(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], list[str]]]:
    """The check splits at its first file, however few there are: (here, there) names."""
    import initlint.driver.run as engine
    from initlint.driver.stream import FactsStream

    monkeypatch.setattr(engine, "TAIL_SPLIT_MIN", 2)
    monkeypatch.setattr(FactsStream, "produced", lambda self: True)
    halves: list[tuple[list[str], list[str]]] = []
    real = engine.check_in_two

    def recording(rest: list[Path], *args: Any) -> None:
        names = [p.name for p in rest]
        halves.append((names[: len(names) // 2], names[len(names) // 2 :]))
        real(rest, *args)

    monkeypatch.setattr(engine, "check_in_two", recording)
    return halves


def test_json_check_split_in_a_forked_copy_gives_the_same_fixes(
    tmp_path: Path, forced_split: list[tuple[list[str], list[str]]]
) -> None:
    """JSON gets text's forked second half of the check. The copy's fixes are checked in
    this process (its files with a fix are checked here again, for their plans), and every
    fix's check knows the copy's other findings: Keep's, which a fix that edits mid.py
    must not count as new. Without them both fixes would be withdrawn."""
    root = split_project(tmp_path / "p")
    alone = json_run(root, jobs=1)
    assert forced_split == []
    fixed = [d.path for d in alone if d.fix is not None and d.fix.edits]
    assert fixed == ["pkg/sub.py", "pkg/z_sub.py"]
    split = json_run(root, jobs=2)
    [(here, there)] = forced_split
    assert "sub.py" in here and {"y_keep.py", "z_sub.py"} <= set(there)
    assert split == alone


def test_json_check_split_falls_back_when_the_copy_fails(
    tmp_path: Path,
    forced_split: list[tuple[list[str], list[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import initlint.driver.run as engine

    root = split_project(tmp_path / "p")
    alone = json_run(root, jobs=1)
    parent = os.getpid()
    real = engine.check_module

    def fails_in_the_copy(*args: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the copy fails")
        return real(*args)

    monkeypatch.setattr(engine, "check_module", fails_in_the_copy)
    assert json_run(root, jobs=2) == alone
    assert forced_split


def test_a_warm_json_run_with_no_fix_to_check_does_not_import_libcst(tmp_path: Path) -> None:
    """libcst renders and checks fixes; a warm run whose changed files offer no fix shows the
    stored edits and never imports it (about half of a warm run's time on sglang)."""
    root = make(tmp_path / "p")
    cold = cli(root, "--format", "json")
    assert '"edits"' in cold
    (root / "pkg" / "plain.py").write_text(UNRELATED + "# edited\n")
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom initlint.cli import main\n"
        "r = CliRunner().invoke(main, ['check', '--format', 'json', 'pkg'])\n"
        "sys.stdout.write(r.output)\n"
        "print('libcst' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout == cold + "False\n", out.stderr
    (root / "pkg" / "sub.py").write_text(SUB + "# edited\n")  # its fix is checked again
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout == cold + "True\n", out.stderr

"""``initlint.api``: its reports are the command line's, its fixes write what ``initlint fix``
writes, and what goes wrong is a clear exception."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint import api
from initlint.cli import main
from initlint.errors import ConfigError

TESTS = Path(__file__).parent
CHECK = TESTS / "fixtures" / "check"
FIX = TESTS / "fixtures" / "fix" / "deepseek_v4_bug"


def _cli(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, [*args, "--no-cache", "-j", "1", "."])
    return result.exit_code, result.stdout


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(FIX / "in", dst)
    return dst


@pytest.mark.parametrize("case", ["deepseek_v4_bug", "deepseek_v4_fixed", "direct_buffer"])
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_check_report_is_what_the_cli_prints(
    case: str, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = CHECK / case
    report = api.check([root], cwd=root, edits=fmt in ("json", "sarif"), jobs=1, use_cache=False)
    code, out = _cli(root, monkeypatch, "check", "--format", fmt)
    expected = report.render(fmt)
    if fmt == "text":
        expected += report.summary() + "\n"
    assert out == expected
    assert code == report.exit_code
    assert report.files > 0 and report.internal_errors == 0


def test_check_finds_the_fixture_findings() -> None:
    root = CHECK / "deepseek_v4_bug"
    report = api.check([root], cwd=root, jobs=1, use_cache=False)
    got = [
        f"{d.path}:{d.line}:{d.column}: {d.code} {d.severity} {d.confidence}"
        for d in report.diagnostics
    ]
    assert got == (root / "expected.txt").read_text().splitlines()
    assert report.exit_code == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.files = 0  # type: ignore[misc]


def test_options_select_and_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    root = CHECK / "deepseek_v4_bug"
    none = api.check([root], cwd=root, options={"select": ["IL002"]}, use_cache=False)
    assert none.diagnostics == () and none.exit_code == 0
    code, out = _cli(root, monkeypatch, "check", "--select", "IL002")
    assert code == 0 and out == none.summary() + "\n"
    # A Settings, or a function of the project root, instead of pyproject.toml.
    from initlint.settings import Settings

    same = api.check([root], cwd=root, settings=Settings(select=("IL002",)), use_cache=False)
    assert same.diagnostics == ()
    seen: list[Path] = []

    def load(project: Path) -> Settings:
        seen.append(project)
        return Settings()

    assert api.check([root], cwd=root, settings=load, use_cache=False).diagnostics
    assert seen == [root]


def test_fix_writes_what_initlint_fix_writes(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "by-cli"
    shutil.copytree(work, other)
    result = api.fix([work], unsafe=True, cwd=work, use_cache=False)
    code, _ = _cli(other, monkeypatch, "fix", "--unsafe-fixes")
    assert _tree(work) == _tree(other) == _tree(FIX / "out")
    assert result.written and result.applied and result.remaining == ()
    assert result.exit_code == code == 0
    assert {c.path for c in result.changes} == {
        work / "rope" / "yarn.py",
        work / "rope" / "deepseek_v4.py",
    }


def test_fix_diff_only_writes_nothing_and_diffs_as_the_cli(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _tree(work)
    result = api.fix([work], unsafe=True, diff_only=True, cwd=work, use_cache=False)
    assert _tree(work) == before and not result.written
    code, out = _cli(work, monkeypatch, "fix", "--unsafe-fixes", "--diff")
    assert out == result.diff() and "+++ b/rope/yarn.py" in out
    assert code == result.exit_code == 1
    # Safe fixes only: the flag threading changes signatures, so it is skipped.
    safe = api.fix([work], diff_only=True, cwd=work, use_cache=False)
    assert safe.changes == () and safe.skipped_unsafe


def test_a_read_only_file_is_a_fix_failed_and_nothing_is_written(work: Path) -> None:
    (work / "rope" / "yarn.py").chmod(0o444)
    before = _tree(work)
    with pytest.raises(api.FixFailed, match="yarn.py"):
        api.fix([work], unsafe=True, cwd=work, use_cache=False)
    assert _tree(work) == before


def test_errors_are_clear_exceptions(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        api.check([tmp_path / "missing"])
    with pytest.raises(FileNotFoundError, match="does not exist"):
        api.fix([tmp_path / "missing"])
    with pytest.raises(ConfigError, match="unknown rule code 'IL999'"):
        api.check([tmp_path], options={"select": ["IL999"]})
    with pytest.raises(ConfigError, match="unknown key 'selct'"):
        api.check([tmp_path], options={"selct": ["IL001"]})
    (tmp_path / "pyproject.toml").write_text("[tool.initlint]\nmin-severity = 'loud'\n")
    with pytest.raises(ConfigError, match="min-severity"):
        api.check([tmp_path])
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        api.Report((), 0, 0).render("xml")


def test_analyze_keeps_the_plans() -> None:
    root = CHECK / "deepseek_v4_bug"
    analysis = api.analyze([root], cwd=root, jobs=1, use_cache=False)
    assert analysis.plans and all(d.fix is not None for d in analysis.plans)
    bare = api.analyze([root], cwd=root, jobs=1, use_cache=False, plan_fixes=False)
    assert not bare.plans and all(d.fix is None for d in bare.diagnostics)

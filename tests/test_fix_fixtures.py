"""Codemod fixtures: in/ trees fixed with --unsafe-fixes must equal out/ trees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.cli import main
from initlint.fix.api import run_fix

FIX = Path(__file__).parent / "fixtures" / "fix"
CHECK = Path(__file__).parent / "fixtures" / "check"


def _cases() -> list[str]:
    return sorted(p.name for p in FIX.iterdir() if (p / "in").is_dir() and (p / "out").is_dir())


def _no_fix_cases() -> list[str]:
    """Cases where every fix would change behaviour (issue 14): in/ and expected.txt."""
    return sorted(p.name for p in FIX.iterdir() if (p / "expected.txt").is_file())


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".initlint_cache" not in p.parts
    }


@pytest.fixture()
def copy_case(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(src: Path) -> Path:
        dst = tmp_path / f"{src.parent.name}-{src.name}"
        shutil.copytree(src, dst)
        return dst

    return make


@pytest.mark.parametrize("name", _cases())
def test_fix_output_matches_and_is_stable(name: str, copy_case) -> None:  # type: ignore[no-untyped-def]
    work = copy_case(FIX / name / "in")
    # One pass applies every offered fix: findings planned together share one plan, and
    # none of them is dropped as overlapping it.
    planned, dry, _ = run_fix([work], unsafe=True, write=False, use_cache=False, cwd=work)
    assert dry.failed == [] and dry.withdrawn == []
    assert len(dry.applied) == sum(1 for d in planned.diagnostics if d.fix is not None)
    before, outcome, after = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert outcome.applied, "the case must have something to fix"
    assert _tree(work) == _tree(FIX / name / "out")
    # The result is re-checked: the fixed diagnostics are gone.
    assert after is not None
    fixed = {(d.code, d.class_name) for d in outcome.applied}
    assert not fixed & {(d.code, d.class_name) for d in after.diagnostics}
    # A second run changes nothing.
    _, second, _ = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert second.changes == []
    assert _tree(work) == _tree(FIX / name / "out")


@pytest.mark.parametrize("name", _cases())
def test_diff_writes_nothing(name: str, copy_case) -> None:  # type: ignore[no-untyped-def]
    work = copy_case(FIX / name / "in")
    snapshot = _tree(work)
    result = CliRunner().invoke(main, ["fix", "--diff", "--unsafe-fixes", "--no-cache", str(work)])
    assert result.exit_code == 1, result.output
    assert "+++ b/" in result.output
    assert _tree(work) == snapshot


def test_clean_inputs_are_byte_for_byte_unchanged(copy_case) -> None:  # type: ignore[no-untyped-def]
    clean = [p for p in sorted(CHECK.iterdir()) if not (p / "expected.txt").read_text().strip()]
    assert len(clean) >= 10
    for case in clean:
        work = copy_case(case)
        snapshot = _tree(work)
        _, outcome, _ = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
        assert outcome.changes == [], case.name
        assert _tree(work) == snapshot, case.name


def test_safe_only_by_default_and_unsafe_counted(copy_case) -> None:  # type: ignore[no-untyped-def]
    work = copy_case(FIX / "flag_swallowed" / "in")
    snapshot = _tree(work)
    result = CliRunner().invoke(main, ["fix", "--no-cache", str(work)])
    assert "1 unsafe fix skipped (use --unsafe-fixes)" in result.output
    assert _tree(work) == snapshot
    work2 = copy_case(FIX / "direct_buffer" / "in")
    result = CliRunner().invoke(main, ["fix", "--no-cache", str(work2)])
    assert result.exit_code == 0, result.output
    assert "Found 1 diagnostic in 1 of 2 files checked (1 fixed, 0 remaining)." in result.output


def test_encodings_and_line_endings_kept() -> None:
    out = FIX / "encodings" / "out" / "pkg"
    crlf = (out / "crlf.py").read_bytes()
    assert b"init_cache=False" in crlf and b"\n" not in crlf.replace(b"\r\n", b"")
    latin = (out / "latin.py").read_bytes()
    assert b"Caf\xe9" in latin and b"init_cache=False" in latin
    assert (out / "bom.py").read_bytes().startswith(b"\xef\xbb\xbf")


def test_json_fix_carries_edits(copy_case) -> None:  # type: ignore[no-untyped-def]
    import json

    work = copy_case(FIX / "deepseek_v4_bug" / "in")
    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", str(work)])
    data = json.loads(result.output)
    (diag,) = data
    fix = diag["fix"]
    assert fix["applicability"] == "unsafe"
    paths = {e["path"].rsplit("/", 1)[-1] for e in fix["edits"]}
    assert paths == {"yarn.py", "deepseek_v4.py"}
    assert any("init_cache: bool = True" in e["content"] for e in fix["edits"])


@pytest.mark.parametrize("name", _no_fix_cases())
def test_no_fix_leaves_the_input_and_says_why(name: str, copy_case) -> None:  # type: ignore[no-untyped-def]
    """The finding stays, no fix is offered, and its help line says why (expected.txt)."""
    work = copy_case(FIX / name / "in")
    snapshot = _tree(work)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(work)])
    assert result.exit_code == 1, result.output
    helps = [line.strip() for line in result.output.splitlines() if "help:" in line]
    expected = [f"help: {line}" for line in (FIX / name / "expected.txt").read_text().splitlines()]
    assert helps == expected, result.output
    _, outcome, _ = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert outcome.changes == [] and outcome.applied == []
    assert _tree(work) == snapshot


@pytest.mark.parametrize("name", _cases())
def test_edited_lines_are_formatted_like_their_surroundings(name: str) -> None:
    """Issue 14: a line the fix adds has no trailing whitespace and keeps the file's line
    length (the longest code line of the input, 88 at least)."""
    from initlint.fix.layout import line_limit

    for out in sorted((FIX / name / "out").rglob("*.py")):
        src = FIX / name / "in" / out.relative_to(FIX / name / "out")
        old = src.read_text(encoding="utf-8", errors="replace").splitlines()
        limit = line_limit(old)
        for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
            if line in old:
                continue
            assert line == line.rstrip(), f"{out}: trailing whitespace in {line!r}"
            assert len(line) <= limit, f"{out}: {len(line)} > {limit}: {line!r}"


def test_fix_never_edits_an_installed_dependency(copy_case) -> None:  # type: ignore[no-untyped-def]
    """Issue 14 case 4: a plugin whose ancestors are installed (the fixture's env/, named by
    its pyproject's ``python``). Each finding would need a new or threaded flag in the
    framework; the framework's files stay byte for byte, in --diff and in a write."""
    work = copy_case(FIX / "plugin_dependency_ancestor" / "in")
    site = work / "env" / "lib" / "python3.11" / "site-packages"
    installed = _tree(site)
    assert any(p.startswith("fw/") for p in installed)
    result = CliRunner().invoke(
        main, ["fix", "--diff", "--unsafe-fixes", "--no-cache", str(work)], catch_exceptions=False
    )
    assert "site-packages" not in "".join(
        line for line in result.output.splitlines() if line.startswith(("---", "+++"))
    ), result.output
    _, outcome, _ = run_fix([work], unsafe=True, write=True, use_cache=False, cwd=work)
    assert _tree(site) == installed
    assert all("site-packages" not in str(c) for c in outcome.changes)

"""``initlint check --fix`` (and ``initlint fix``, the same thing), ``--diff``,
``--fix-only``, ``--show-fixes``: apply or show fixes, then report what is left, with
ruff's meanings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from initlint.diagnostics import Diagnostic
from initlint.output.text import files_of
from initlint.settings import Settings

if TYPE_CHECKING:
    from initlint.api import FixReport
    from initlint.options import CheckRequest

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def fix_and_report(request: CheckRequest, load: Callable[[Path], Settings]) -> int:
    """Fix (or, with --diff, show the fixes for) every project the paths are in; report.
    Returns the exit code."""
    from initlint.api import FixFailed, fix
    from initlint.reporting import emit, warn_if_nothing_checked

    cwd = Path.cwd().absolute()
    try:
        result = fix(
            request.paths,
            unsafe=request.unsafe_fixes,
            diff_only=request.diff,
            settings=load,
            cwd=cwd,
            edits=request.fmt in ("json", "sarif") and not request.fix_only,
            jobs=request.jobs,
            use_cache=not request.no_cache,
        )
    except FixFailed as exc:
        click.echo(f"error: no file was changed: {exc}", err=True)
        return EXIT_ERROR
    write = result.written
    remaining = list(result.remaining)
    if request.diff:
        for change in result.changes:
            click.echo(change.diff(_path_as_given(change.path, cwd)), nl=False)
    elif not request.fix_only:
        emit(request, remaining, None)
    to_stderr = request.fmt != "text" or request.output_file is not None or request.fix_only
    if request.show_fixes and write:
        click.echo(_fixed_list(list(result.applied)), nl=False, err=to_stderr)
    reported = not (request.diff or request.fix_only)
    if reported and request.fmt == "text" and not (request.statistics_only or request.quiet):
        summary = _summary_line(list(result.applied), remaining, result.files)
        click.echo(summary, err=to_stderr)
    if not request.quiet:
        _notes(
            result,
            remaining,
            request.diff,
            summarise=not reported or request.fmt != "text",
            list_all=not reported or request.fmt != "text",
        )
        warn_if_nothing_checked(result.files, remaining)
    code = result.exit_code
    if code == EXIT_FINDINGS and result.written and (request.fix_only or request.exit_zero):
        return EXIT_OK
    return code


def _path_as_given(path: Path, cwd: Path) -> str:
    """``path`` as the user would write it from ``cwd`` (the diff's file names)."""
    from initlint.pipeline.analysis import display_path

    return display_path(path, cwd)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _summary_line(applied: list[Diagnostic], remaining: list[Diagnostic], files: int) -> str:
    """ruff's summary after --fix: how many were found, fixed and are left."""
    n = len(applied) + len(remaining)
    if n == 0:
        return f"All checks passed ({_plural(files, 'file')} checked)."
    return (
        f"Found {_plural(n, 'diagnostic')} in {files_of([*applied, *remaining], files)} "
        f"({len(applied)} fixed, {len(remaining)} remaining)."
    )


def _fixed_list(applied: list[Diagnostic]) -> str:
    """``--show-fixes``: the fixed findings by file, then code, as ruff lists them."""
    if not applied:
        return "No findings were fixed.\n"
    by_file: dict[str, dict[tuple[str, str], int]] = {}
    for d in applied:
        codes = by_file.setdefault(d.path, {})
        codes[(d.code, d.rule)] = codes.get((d.code, d.rule), 0) + 1
    lines = [f"Fixed {_plural(len(applied), 'diagnostic')}:"]
    for path in sorted(by_file):
        lines.append(f"- {path}:")
        for (code, rule), count in sorted(by_file[path].items()):
            lines.append(f"    {count} × {code} ({rule})")
    return "\n".join(lines) + "\n"


def _notes(
    total: FixReport, remaining: list[Diagnostic], diff: bool, summarise: bool, list_all: bool
) -> None:
    """On stderr: what was (or would be) fixed (``summarise``: when no summary line said
    it), then each finding left unfixed, by location and code, with why. ``list_all``: also
    those whose rule offers no automatic fix (when the report does not show them)."""
    n, files = len(total.applied), len({c.path for c in total.changes})
    verb = "Would fix" if diff else "Fixed"
    lines = [f"{verb} {_plural(n, 'diagnostic')} in {_plural(files, 'file')}."] if summarise else []
    if total.skipped_unsafe:
        k = len(total.skipped_unsafe)
        lines.append(f"{k} unsafe fix{'es' if k != 1 else ''} skipped (use --unsafe-fixes).")
    why: dict[tuple[str, int, str], str] = {}
    for d in total.skipped_unsafe:
        why[(d.path, d.line, d.code)] = "unsafe fix not applied (use --unsafe-fixes)"
    for d, reason in total.withdrawn:
        why[(d.path, d.line, d.code)] = f"no fix offered: {reason}"
    for d, reason in total.failed:
        why[(d.path, d.line, d.code)] = f"not fixed: {reason}"
    for d in remaining:
        left = why.get((d.path, d.line, d.code))
        if left is None and not list_all:
            continue
        lines.append(f"{d.path}:{d.line}:{d.column}: {d.code} {left or 'has no automatic fix'}")
    if lines:
        click.echo("\n".join(lines), err=True)

"""Running a parsed request: each project's check (with its dependents), and the report
written in the format asked for."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze
from initlint.driver.factpass import default_jobs
from initlint.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from initlint.options import CheckRequest
from initlint.output import RENDERERS
from initlint.output.text import render_statistics, statistics, summary_line
from initlint.pipeline.analysis import display_path
from initlint.projects import Combined, ProjectGroup, group_paths, mark_dependents
from initlint.settings import (
    Settings,
)


def groups_with_dependents(
    request: CheckRequest, load: Callable[[Path], Settings]
) -> list[tuple[ProjectGroup, Settings, dict[Path, Path]]]:
    """Each project's given paths, its settings, and its dependent files (file -> the given
    file it depends on)."""
    cwd = Path.cwd().absolute()
    out = []
    for group in group_paths(request.paths, cwd):
        settings = load(group.root)
        deps: dict[Path, Path] = {}
        # Files given (pre-commit's changed files): a folder given asks for its own files.
        files_given = request.paths and not any(p.is_dir() for p in group.paths)
        if settings.dependents and files_given:
            from initlint.dependents import find_dependents
            from initlint.discovery import discover

            given = discover(
                group.paths, group.root, settings.all_excludes, settings.respect_gitignore
            ).report
            deps = find_dependents(
                group.root,
                settings,
                given,
                use_cache=not request.no_cache,
                jobs=request.jobs or default_jobs(),
            )
        out.append((group, settings, deps))
    return out


def dependent_displays(deps: dict[Path, Path], cwd: Path) -> dict[str, str]:
    return {display_path(f, cwd): display_path(g, cwd) for f, g in deps.items()}


def check_all(request: CheckRequest, load: Callable[[Path], Settings]) -> Combined:
    from initlint.fix.propose import fix_planner

    combined = Combined()
    cwd = Path.cwd().absolute()
    for group, settings, deps in groups_with_dependents(request, load):
        # A file's last results are reused while its import closure is unchanged; JSON and
        # SARIF show each fix's edits, rendered and checked with the results and stored
        # with them.
        fixes = None
        if request.fmt in ("json", "sarif"):
            from initlint.fix.attach import EditAttacher  # libcst once there is a fix to render

            fixes = EditAttacher()
        analysis = analyze(
            [*group.paths, *deps],
            cwd=cwd,
            settings=settings,
            jobs=request.jobs,
            use_cache=not request.no_cache,
            fix_planner=fix_planner,
            reuse_results=True,
            fixes=fixes,
        )
        diags = mark_dependents(analysis.diagnostics, dependent_displays(deps, cwd))
        combined.add(diags, analysis.files, analysis.internal_errors)
        combined.unused_suppressions += analysis.unused_suppressions
    combined.finish()
    return combined


def report(request: CheckRequest, combined: Combined) -> int:
    diags = combined.diagnostics
    emit(request, diags, summary_line(diags, combined.files, request.unsafe_fixes))
    for path, line, message in combined.unused_suppressions:
        click.echo(f"warning: {path}:{line}: {message}", err=True)
    warn_if_nothing_checked(combined)
    code = EXIT_OK
    if combined.internal_errors:
        code = EXIT_ERROR
    elif diags and not request.exit_zero:
        code = EXIT_FINDINGS
    return code


def warn_if_nothing_checked(combined: Combined) -> None:
    if combined.files == 0 and not combined.diagnostics:
        click.echo("warning: no Python files found under the given paths", err=True)


def emit(request: CheckRequest, diags: list[Diagnostic], summary: str | None) -> None:
    """Write the report (``--output-file`` or stdout) and, for text, the summary line."""
    fmt = request.fmt
    if request.statistics_only:
        text = _statistics(diags, fmt)
    else:
        color = fmt == "text" and request.output_file is None and color_stdout()
        text = RENDERERS[fmt](diags, color)
    if request.output_file is not None:
        try:
            request.output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            click.echo(
                f"error: cannot write {request.output_file}: {exc.strerror or exc}", err=True
            )
            sys.exit(EXIT_ERROR)
    else:
        click.echo(text, nl=False)
    if fmt == "text" and not request.statistics_only and summary is not None:
        click.echo(summary, err=request.output_file is not None)


def color_stdout() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _statistics(diags: list[Diagnostic], fmt: str) -> str:
    rows = statistics(diags)
    if fmt == "json":
        import json  # here: the text output does without it

        data = [{"code": c, "name": n, "count": k, "fixable": f} for c, n, k, f in rows]
        return json.dumps(data, indent=2) + "\n"
    return render_statistics(diags)

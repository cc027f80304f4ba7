"""Running a parsed request: each project's check (with its dependents), and the report
written in the format asked for."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from initlint.api import Report, check
from initlint.diagnostics import Diagnostic
from initlint.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from initlint.options import CheckRequest
from initlint.output import RENDERERS
from initlint.output.text import render_statistics, statistics, summary_line, unread_note
from initlint.settings import Settings


def check_all(request: CheckRequest, load: Callable[[Path], Settings]) -> Report:
    """The request's check, through :func:`initlint.api.check`: JSON and SARIF show each
    fix's edits, rendered and checked with the results and stored with them."""
    return check(
        request.paths,
        settings=load,
        edits=request.fmt in ("json", "sarif"),
        jobs=request.jobs,
        use_cache=not request.no_cache,
        progress=None,
    )


def report(request: CheckRequest, result: Report) -> int:
    """Write ``result`` as the request asks; the exit status."""
    diags = list(result.diagnostics)
    summary = None if request.quiet else summary_line(diags, result.files, request.unsafe_fixes)
    emit(request, diags, summary)
    if not request.quiet:
        for path, line, message in result.unused_suppressions:
            click.echo(f"warning: {path}:{line}: {message}", err=True)
        note = unread_note(result.unread_ancestors)
        if note is not None:
            click.echo(note, err=True)
        warn_if_nothing_checked(result.files, diags)
    code = result.exit_code
    return EXIT_OK if code == EXIT_FINDINGS and request.exit_zero else code


def warn_if_nothing_checked(files: int, diagnostics: Sequence[Diagnostic]) -> None:
    if files == 0 and not diagnostics:
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

"""``initlint fix``: apply fixes (safe by default), or show them with --diff."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from initlint.cli import PYTHON_OPTION
from initlint.fix.api import run_fix
from initlint.fix.apply import FixOutcome
from initlint.fix.transform import FixError
from initlint.settings import ConfigError, Settings
from initlint.sources import UnreadableError

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def fix_and_report(
    paths: tuple[Path, ...],
    *,
    unsafe: bool,
    diff: bool,
    over: dict[str, object],
    no_cache: bool,
    jobs: int,
    settings: Settings | None,
) -> int:
    """Shared by ``initlint fix`` and ``initlint check --fix/--diff``. Returns the exit code."""
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise click.BadParameter(f"path {str(p)!r} does not exist", param_hint="PATHS")

    def apply(s: Settings) -> Settings:
        return replace(s, **over)  # type: ignore[arg-type]

    try:
        before, outcome, after = run_fix(
            list(paths),
            unsafe=unsafe,
            write=not diff,
            overrides=apply,
            settings=settings,
            jobs=jobs,
            use_cache=not no_cache,
        )
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return EXIT_ERROR
    except (FixError, OSError, UnreadableError) as exc:
        click.echo(f"error: no file was changed: {exc}", err=True)
        return EXIT_ERROR
    if diff:
        for change in outcome.changes:
            click.echo(change.diff(before.display(change.path)), nl=False)
    _summary(outcome, diff)
    remaining = before.diagnostics if after is None else after.diagnostics
    if diff:
        fixed = set(outcome.applied)
        remaining = [d for d in before.diagnostics if d not in fixed]
    internal = (after or before).internal_errors
    if internal:
        return EXIT_ERROR
    if diff:
        return EXIT_FINDINGS if outcome.changes or remaining else EXIT_OK
    return EXIT_FINDINGS if remaining else EXIT_OK


def _summary(outcome: FixOutcome, diff: bool) -> None:
    n = len(outcome.applied)
    files = len(outcome.changes)
    verb = "Would fix" if diff else "Fixed"
    parts = [
        f"{verb} {n} diagnostic{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}."
    ]
    if outcome.skipped_unsafe:
        k = len(outcome.skipped_unsafe)
        parts.append(f"{k} unsafe fix{'es' if k != 1 else ''} skipped (use --unsafe-fixes).")
    for d, why in outcome.withdrawn:
        parts.append(f"{d.path}:{d.line}: {d.code} no fix offered: {why}")
    for d, why in outcome.failed:
        parts.append(f"{d.path}:{d.line}: {d.code} not fixed: {why}")
    click.echo("\n".join(parts), err=True)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (they change signatures)."
)
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--select", multiple=True, help="Only fix these rule codes or prefixes.")
@click.option("--ignore", multiple=True, help="Do not fix these rule codes or prefixes.")
@click.option(
    "--flag-name", default=None, help="Name for a flag a fix introduces (default init_<name>)."
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write .initlint_cache/.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes.")
@PYTHON_OPTION
def fix(
    paths: tuple[Path, ...],
    unsafe_fixes: bool,
    diff: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    flag_name: str | None,
    no_cache: bool,
    jobs: int,
) -> None:
    """Fix redundant init work in PATHS (default: the current folder).

    Safe fixes apply by default. Unsafe fixes change signatures across files (threading a
    flag such as `init_cache` through intermediate classes) and need --unsafe-fixes.
    Every changed file is re-parsed before anything is written, and all files are written
    or none. Exit status: 0 nothing left to report, 1 findings remain, 2 error.

    \b
    Examples:
      initlint fix --diff .              # preview, write nothing
      initlint fix --unsafe-fixes src/   # apply every fix, the vLLM-style flag threading too
    """
    from initlint.cli import _check_codes, _split, python_override

    over: dict[str, object] = python_override({})
    sel, ign = _split(select), _split(ignore)
    _check_codes(sel, "--select")
    _check_codes(ign, "--ignore")
    if sel:
        over["select"] = sel
    if ign:
        over["ignore"] = ign
    if flag_name is not None:
        if not flag_name.isidentifier():
            raise click.BadParameter(
                f"{flag_name!r} is not a Python identifier", param_hint="--flag-name"
            )
        over["flag_name"] = flag_name
    sys.exit(
        fix_and_report(
            paths,
            unsafe=unsafe_fixes,
            diff=diff,
            over=over,
            no_cache=no_cache,
            jobs=jobs,
            settings=None,
        )
    )

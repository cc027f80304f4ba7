"""Command line: thin. Parse options, run the API, print, OR the exit bits."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from initlint import __version__
from initlint.errors import EXIT_ERROR, ConfigError
from initlint.options import (
    CheckRequest,
    common_check_options,
    parse_request,
    settings_loader,
)
from initlint.projects import group_paths
from initlint.settings import Settings, format_settings


class _Main(click.Group):
    """The command group. ``demo`` (which imports libcst) and ``trace`` (torch) are imported
    when used, so that ``initlint check`` starts without them (``fix`` imports libcst when
    it runs). An exception that
    escapes a command is an internal error: one line on stderr and exit 2, as documented
    (the traceback with ``INITLINT_DEBUG=1``)."""

    LAZY = {
        "demo": "initlint.demo:demo",
        "explain-class": "initlint.explain_class:explain_class",
        "server": "initlint.server.command:server",
        "trace": "initlint.runtime.command:trace",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.LAZY:
            return found
        module, attr = self.LAZY[cmd_name].split(":")
        try:
            loaded = getattr(importlib.import_module(module), attr)
        except ImportError:  # pragma: no cover - an optional part not installed
            if cmd_name == "trace":
                return None
            raise
        assert isinstance(loaded, click.Command)
        self.add_command(loaded)
        return loaded

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, BrokenPipeError):
            raise  # click reports these itself (a closed pipe, as in `| head`: quietly)
        except Exception as exc:
            if os.environ.get("INITLINT_DEBUG"):
                raise
            from initlint.diagnostics import describe

            click.echo(
                f"error: internal error: {describe(exc)} (set INITLINT_DEBUG=1 for the "
                "traceback, and please report it)",
                err=True,
            )
            sys.exit(EXIT_ERROR)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="initlint")
def main() -> None:
    """initlint finds subclasses that call super().__init__() and then redo expensive setup
    their ancestors already did: a buffer registered twice, a cache built twice, a submodule
    rebuilt. It reads source only and never imports or runs your code (except `trace`).

    \b
    Quick start:
      initlint check .                 # report findings (exit 1 if any)
      initlint check --diff .          # show the fixes as a diff, write nothing
      initlint fix --unsafe-fixes .    # apply every fix, including signature changes
      initlint explain IL001           # what a rule means and how its fix works
    """


_FINISHED = False  # set when `check` wrote everything: nothing is left for teardown to do


def run() -> None:
    """The console entry point: :func:`main`, then, after a finished ``check``, the process
    ends without tearing the interpreter down (freeing a large project's facts one object
    at a time took ~50 ms of a cold run), as mypy does. Its caches are written and closed
    by then; output is flushed here."""
    try:
        main()
    except SystemExit as exc:
        if not _FINISHED or not isinstance(exc.code, int | None):
            raise
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: what click would do, quietly
                pass
        os._exit(exc.code or 0)


@main.command()
@common_check_options
@click.option("--fix/--no-fix", default=False, help="Apply the safe fixes (see --unsafe-fixes).")
def check(**kwargs: Any) -> None:
    """Report redundant init work in PATHS (default: the current folder).

    initlint reads the whole project (the folder holding pyproject.toml or .git) to
    resolve base classes, and reports on PATHS; when PATHS are files (pre-commit's changed
    files), also on the project's files whose result depends on them (subclasses of a
    changed base; --no-dependents turns that off).
    Paths in several projects are checked each with its own project's settings.
    Exit status: 0 no findings, 1 findings, 2 usage or internal error.

    \b
    Examples:
      initlint check src/
      initlint check --select IL001,IL002 --format json model.py
      initlint check --format sarif -o initlint.sarif .
      initlint check --fix --unsafe-fixes .   # apply every fix, report what is left
      initlint check --diff .                  # show the fixes, write nothing
    """
    _run(parse_request(False, kwargs))


@main.command()
@common_check_options
def fix(**kwargs: Any) -> None:
    """Fix redundant init work in PATHS: the same as `initlint check --fix`.

    Safe fixes apply by default. Unsafe fixes change signatures across files (threading a
    flag such as `init_cache` through intermediate classes) and need --unsafe-fixes.
    Every changed file is re-parsed before anything is written, and all files are written
    or none; a read-only file stops the run before anything is written. The findings left
    are reported as `check` reports them. Exit status: 0 nothing left to report, 1
    findings remain (or, with --diff, something to fix), 2 error.

    \b
    Examples:
      initlint fix --diff .              # preview, write nothing
      initlint fix --unsafe-fixes src/   # apply every fix, the vLLM-style flag threading too
    """
    _run(parse_request(True, kwargs))


@contextmanager
def _no_collections() -> Iterator[None]:
    """No garbage collection while the analysis modules load: the objects they make
    (classes, functions, a rule registry) all live for the run, so the collections that ran
    meanwhile freed nothing (~5 ms of each check)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _run(request: CheckRequest) -> None:
    try:
        load = settings_loader(request)
        if request.show_settings:
            click.echo(_resolved_settings(request, load), nl=False)
            return
        if request.add_noqa:
            from initlint.noqa import add_noqa_and_report

            sys.exit(add_noqa_and_report(request, load))
        if request.fix or request.diff or request.fix_only:
            with _no_collections():
                from initlint.fix.command import fix_and_report

            code = fix_and_report(request, load)
        else:
            with _no_collections():  # the analysis, imported when a check runs
                from initlint.reporting import check_all, report

            combined = check_all(request, load)
            code = report(request, combined)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    global _FINISHED
    _FINISHED = True
    sys.exit(code)


def _resolved_settings(request: CheckRequest, load: Callable[[Path], Settings]) -> str:
    """What analyze() would use for each project root, without running it."""
    from initlint.pipeline.project import project_environment

    out = []
    for group in group_paths(request.paths, Path.cwd().absolute()):
        settings = load(group.root)
        env = project_environment(group.root, settings, Path.cwd())
        out.append(format_settings(settings, group.root) + "\n".join(["", *env.describe(), ""]))
    return "\n".join(out)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=True, path_type=Path))
def clean(paths: tuple[Path, ...]) -> None:
    """Delete the cache folder (.initlint_cache/) of the project holding each PATH (default:
    the current directory's project). The next check is a cold one.

    \b
    The cache never needs cleaning for correctness: entries are keyed by content, and old
    generations (another initlint version or settings) and entries unused for 30 days are
    dropped by the runs themselves.
    """
    from initlint.cache import CACHE_DIR, remove_cache
    from initlint.discovery import find_root

    roots = sorted({find_root(p.absolute()) for p in paths or (Path.cwd(),)})
    for root in roots:
        shown = os.path.relpath(root / CACHE_DIR)
        if remove_cache(root):
            click.echo(f"Removed {shown}")
        elif (root / CACHE_DIR).exists():
            click.echo(f"error: could not remove {shown}", err=True)
            sys.exit(EXIT_ERROR)
        else:
            click.echo(f"No cache at {shown}")


@main.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text: one line per rule; json: for tools; markdown: the full reference (docs/rules.md).",
)
def rules(fmt: str) -> None:
    """List every rule: code, whether it has an automatic fix, name and summary."""
    from initlint.rules import REGISTRY

    if fmt == "json":
        import json  # here: a check does without it

        data = [
            {"code": r.code, "name": r.name, "summary": r.summary, "fixable": r.fixable}
            for r in REGISTRY.values()
        ]
        click.echo(json.dumps(data, indent=2))
        return
    if fmt == "markdown":
        from initlint.output.rules_doc import render_rules_markdown

        click.echo(render_rules_markdown(REGISTRY.values()), nl=False)
        return
    for r in REGISTRY.values():
        fix = "fix" if r.fixable else "   "
        click.echo(f"{r.code}  {fix}  {r.name:<32} {r.summary}")


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Print the documentation of RULE (a code like IL001, or a name like
    redundant-buffer-registration): What it does / Why is this bad / Example /
    Use instead / Fix safety.
    """
    from initlint.rules import REGISTRY

    by_name = {r.name: r for r in REGISTRY.values()}
    found = REGISTRY.get(rule.strip().upper()) or by_name.get(rule.strip().lower())
    if found is None:
        click.echo(f"error: unknown rule {rule!r}; see `initlint rules`", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(found.explain(), nl=False)

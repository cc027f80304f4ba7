"""Command line: thin. Parse options, run the API, print, OR the exit bits."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import click

from initlint import __version__
from initlint.diagnostics import Diagnostic
from initlint.discovery import find_root
from initlint.engine import Analysis, analyze
from initlint.output import RENDERERS
from initlint.output.text import render_statistics, statistics, summary_line
from initlint.rules import REGISTRY
from initlint.settings import (
    ConfigError,
    Settings,
    format_settings,
    load_settings,
    load_settings_file,
    unknown_codes,
    with_overrides,
)

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def _check_codes(codes: tuple[str, ...], option: str) -> None:
    for code in unknown_codes(codes):
        raise click.BadParameter(
            f"unknown rule code {code!r} (see `initlint rules`)", param_hint=option
        )


class _Main(click.Group):
    """The command group. ``fix`` and ``demo`` (which import libcst) and ``trace`` (torch) are
    imported when used, so that ``initlint check`` starts without them. An exception that
    escapes a command is an internal error: one line on stderr and exit 2, as documented
    (the traceback with ``INITLINT_DEBUG=1``)."""

    LAZY = {
        "demo": "initlint.demo:demo",
        "fix": "initlint.fix.command:fix",
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
            from initlint.facts.runner import describe

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


def _remember_python(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta["initlint.python"] = str(Path(value).expanduser().absolute())


PYTHON_OPTION = click.option(
    "--python",
    metavar="PATH",
    expose_value=False,
    callback=_remember_python,
    help="The project's Python environment (a venv or conda folder, or an interpreter), "
    "where installed base classes are read. Default: VIRTUAL_ENV, CONDA_PREFIX, "
    ".venv/venv in the project root, then the interpreter running initlint.",
)


def python_override(over: dict[str, object]) -> dict[str, object]:
    """Add ``--python`` (kept aside by its callback) to the command-line overrides."""
    ctx = click.get_current_context(silent=True)
    python = ctx.meta.get("initlint.python") if ctx is not None else None
    if python:
        over["python"] = python
    return over


def _common_check_options(fn: click.decorators.FC) -> click.decorators.FC:
    options = [
        PYTHON_OPTION,
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option(
            "--select", multiple=True, help="Rule codes or prefixes to enable (IL0 = IL001-IL004)."
        ),
        click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable."),
        click.option(
            "--extend-select", multiple=True, help="Add codes to the configured selection."
        ),
        click.option(
            "--exclude", multiple=True, help="Glob of files/folders to skip (replaces config)."
        ),
        click.option("--extend-exclude", multiple=True, help="Glob to skip, added to config."),
        click.option("--flag-name", default=None, help="Name for a flag the fixer introduces."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write .initlint_cache/."),
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(min=0),
            default=0,
            help="Worker processes for the fact pass (default: CPU count).",
        ),
        click.option(
            "--config",
            "config_file",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="Read settings from this pyproject.toml instead.",
        ),
    ]
    for opt in reversed(options):
        fn = opt(fn)
    return fn


def _overrides(
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    flag_name: str | None,
) -> dict[str, object]:
    sel, ign, ext = _split(select), _split(ignore), _split(extend_select)
    _check_codes(sel, "--select")
    _check_codes(ign, "--ignore")
    _check_codes(ext, "--extend-select")
    if flag_name is not None and not flag_name.isidentifier():
        raise click.BadParameter(
            f"{flag_name!r} is not a Python identifier", param_hint="--flag-name"
        )
    out: dict[str, object] = {}
    if sel:
        out["select"] = sel
    if ign:
        out["ignore"] = ign
    if ext:
        out["extend_select"] = ext
    if exclude:
        out["exclude"] = _split(exclude)
    if extend_exclude:
        out["extend_exclude"] = _split(extend_exclude)
    if flag_name:
        out["flag_name"] = flag_name
    return python_override(out)


def _run_analysis(
    paths: tuple[Path, ...],
    over: dict[str, object],
    no_cache: bool,
    jobs: int,
    config_file: Path | None,
    fix_planner: object = None,
    reuse_results: bool = False,
    fixes: object = None,
) -> Analysis:
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise click.BadParameter(f"path {str(p)!r} does not exist", param_hint="PATHS")
    settings: Settings | None = None
    if config_file is not None:
        settings = load_settings_file(config_file)

    def apply(s: Settings) -> Settings:
        return with_overrides(s, over)

    return analyze(
        list(paths),
        settings=settings,
        overrides=apply,
        jobs=jobs,
        use_cache=not no_cache,
        fix_planner=fix_planner,  # type: ignore[arg-type]
        reuse_results=reuse_results,
        fixes=fixes,  # type: ignore[arg-type]
    )


@main.command()
@_common_check_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(RENDERERS)),
    default="text",
    show_default=True,
    help="Output format: text (path:line:col: CODE message), json, sarif (SARIF 2.1.0) "
    "or github (workflow annotations).",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the report to this file instead of stdout.",
)
@click.option(
    "--statistics",
    "statistics_only",
    is_flag=True,
    help="Print the number of findings per rule code instead of the findings "
    "(as JSON with --format json).",
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the resolved settings (defaults < pyproject.toml < flags) and exit.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
def check(
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    flag_name: str | None,
    no_cache: bool,
    jobs: int,
    config_file: Path | None,
    fmt: str,
    output_file: Path | None,
    statistics_only: bool,
    show_settings: bool,
    exit_zero: bool,
) -> None:
    """Report redundant init work in PATHS (default: the current folder).

    initlint reads the whole project (the folder holding pyproject.toml or .git) to
    resolve base classes, and reports only on PATHS. Exit status: 0 no findings,
    1 findings, 2 usage or internal error.

    \b
    Examples:
      initlint check src/
      initlint check --select IL001,IL002 --format json model.py
      initlint check --format sarif -o initlint.sarif .
    """
    try:
        over = _overrides(select, ignore, extend_select, exclude, extend_exclude, flag_name)
        if show_settings:
            click.echo(_resolved_settings(paths, over, config_file), nl=False)
            return
        from initlint.fix.planning import fix_planner

        # A file's last results are reused while its import closure is unchanged; JSON and
        # SARIF show each fix's edits, rendered and checked with the results and stored
        # with them.
        fixes = None
        if fmt in ("json", "sarif"):
            from initlint.fix.attach import EditAttacher  # renders edits: imports libcst

            fixes = EditAttacher()
        analysis = _run_analysis(paths, over, no_cache, jobs, config_file, fix_planner, True, fixes)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    diags = analysis.diagnostics
    if statistics_only:
        text = _statistics(diags, fmt)
    else:
        color = fmt == "text" and output_file is None and _color_stdout()
        text = RENDERERS[fmt](diags, color)
    if output_file is not None:
        try:
            output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            click.echo(f"error: cannot write {output_file}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_ERROR)
    else:
        click.echo(text, nl=False)
    if fmt == "text" and not statistics_only:
        click.echo(summary_line(diags, analysis.files), err=output_file is not None)
    global _FINISHED
    _FINISHED = True
    sys.exit(_exit_code(analysis, exit_zero))


def _color_stdout() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _statistics(diags: list[Diagnostic], fmt: str) -> str:
    rows = statistics(diags)
    if fmt == "json":
        data = [{"code": c, "name": n, "count": k, "fixable": f} for c, n, k, f in rows]
        return json.dumps(data, indent=2) + "\n"
    return render_statistics(diags)


def _resolved_settings(
    paths: tuple[Path, ...], over: dict[str, object], config_file: Path | None
) -> str:
    """What analyze() would use, without running it: root from the first path, then config."""
    first = paths[0].absolute() if paths else Path.cwd()
    root = find_root(first)
    base = load_settings_file(config_file) if config_file else load_settings(root)
    settings = with_overrides(base, over)
    from initlint.engine import project_environment

    env = project_environment(root, settings, Path.cwd())
    return format_settings(settings, root) + "\n".join(["", *env.describe(), ""])


def _exit_code(analysis: Analysis, exit_zero: bool) -> int:
    code = EXIT_OK
    if analysis.internal_errors:
        code = EXIT_ERROR
    elif analysis.diagnostics and not exit_zero:
        code = EXIT_FINDINGS
    return code


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
    if fmt == "json":
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
    by_name = {r.name: r for r in REGISTRY.values()}
    found = REGISTRY.get(rule.strip().upper()) or by_name.get(rule.strip().lower())
    if found is None:
        click.echo(f"error: unknown rule {rule!r}; see `initlint rules`", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(found.explain(), nl=False)

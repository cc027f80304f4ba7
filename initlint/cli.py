"""Command line: thin. Parse options, run the API, print, OR the exit bits."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from initlint import __version__
from initlint.diagnostics import Diagnostic
from initlint.engine import analyze, display_path
from initlint.facts.runner import default_jobs
from initlint.output import RENDERERS
from initlint.output.text import render_statistics, statistics, summary_line
from initlint.projects import Combined, ProjectGroup, group_paths, mark_dependents
from initlint.rules import REGISTRY
from initlint.settings import (
    ConfigError,
    Settings,
    format_settings,
    load_settings,
    load_settings_file,
    parse_inline,
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
        click.option(
            "--respect-gitignore/--no-respect-gitignore",
            default=None,
            help="Skip files that .gitignore ignores [default: on; `respect-gitignore`].",
        ),
        click.option(
            "--dependents/--no-dependents",
            default=None,
            help="Also report project files whose result depends on a given file (subclasses "
            "of a changed base) [default: on; `dependents`].",
        ),
        click.option("--flag-name", default=None, help="Name for a flag the fixer introduces."),
        click.option(
            "--min-severity",
            type=click.Choice(["warning", "error"]),
            default=None,
            help="Show only findings of this severity or higher: error = repeats of heavy "
            "work (tensors, modules with parameters, I/O); warning (default) = all.",
        ),
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
            "config",
            default=None,
            metavar="FILE | KEY=VALUE",
            help="Read settings from FILE instead: a pyproject.toml's [tool.initlint], or any "
            "other TOML file's top-level keys (as ruff.toml). Or one `key = value` override.",
        ),
        click.option(
            "--format",
            "--output-format",
            "fmt",
            type=click.Choice(sorted(RENDERERS)),
            default="text",
            show_default=True,
            envvar="INITLINT_OUTPUT_FORMAT",
            show_envvar=True,
            help="Output format: text (path:line:col: CODE message), json, sarif (SARIF 2.1.0) "
            "or github (workflow annotations).",
        ),
        click.option(
            "--output-file",
            "-o",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="Write the report to this file instead of stdout.",
        ),
        click.option(
            "--statistics",
            "statistics_only",
            is_flag=True,
            help="Print the number of findings per rule code instead of the findings "
            "(as JSON with --format json).",
        ),
        click.option(
            "--show-settings",
            is_flag=True,
            help="Print the resolved settings (defaults < pyproject.toml < flags) and exit.",
        ),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
        click.option(
            "--unsafe-fixes/--no-unsafe-fixes",
            default=False,
            help="Also apply (with --fix, --diff) fixes that change signatures.",
        ),
        click.option(
            "--diff",
            is_flag=True,
            help="Print the fixes as a unified diff and write nothing (implies --fix-only); "
            "exit 1 when there is something to fix.",
        ),
        click.option(
            "--fix-only",
            is_flag=True,
            help="Apply fixes, and report neither the findings left nor exit 1 for them.",
        ),
        click.option(
            "--show-fixes/--no-show-fixes",
            default=False,
            help="List the fixed findings, by file and code, after fixing.",
        ),
        click.option(
            "--add-noqa",
            is_flag=True,
            help="Add `# noqa: ILxxx` to every line with a finding (to adopt initlint on a "
            "codebase with existing findings); idempotent.",
        ),
    ]
    for opt in reversed(options):
        fn = opt(fn)
    return fn


@dataclass(frozen=True)
class CheckRequest:
    """One ``check`` or ``fix`` invocation, as parsed from the command line."""

    paths: tuple[Path, ...]
    over: dict[str, object]
    no_cache: bool
    jobs: int
    config: str | None
    fmt: str
    output_file: Path | None
    statistics_only: bool
    show_settings: bool
    exit_zero: bool
    fix: bool
    unsafe_fixes: bool
    diff: bool
    fix_only: bool
    show_fixes: bool
    add_noqa: bool


def _overrides(
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    flag_name: str | None,
    respect_gitignore: bool | None = None,
    dependents: bool | None = None,
    min_severity: str | None = None,
) -> dict[str, object]:
    sel, ign, ext = _split(select), _split(ignore), _split(extend_select)
    if select and not sel:
        raise click.BadParameter(
            "an empty selection would check nothing; name codes or prefixes (IL001, IL0) or ALL",
            param_hint="--select",
        )
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
    if respect_gitignore is not None:
        out["respect_gitignore"] = respect_gitignore
    if dependents is not None:
        out["dependents"] = dependents
    if min_severity:
        out["min_severity"] = min_severity
    return python_override(out)


def _request(fix: bool, kwargs: dict[str, Any]) -> CheckRequest:
    over = _overrides(
        kwargs.pop("select"),
        kwargs.pop("ignore"),
        kwargs.pop("extend_select"),
        kwargs.pop("exclude"),
        kwargs.pop("extend_exclude"),
        kwargs.pop("flag_name"),
        kwargs.pop("respect_gitignore"),
        kwargs.pop("dependents"),
        kwargs.pop("min_severity"),
    )
    kwargs["fix"] = kwargs.get("fix") or fix
    request = CheckRequest(over=over, **kwargs)
    if request.statistics_only and request.fmt not in ("text", "json"):
        raise click.BadParameter(
            f"--statistics prints text or JSON; it has no {request.fmt} form",
            param_hint="--statistics",
        )
    if request.add_noqa and (request.fix or request.diff or request.fix_only):
        raise click.BadParameter(
            "--add-noqa cannot be combined with --fix, --diff or --fix-only",
            param_hint="--add-noqa",
        )
    for p in request.paths:
        if not p.exists() and not p.is_symlink():
            raise click.BadParameter(f"path {str(p)!r} does not exist", param_hint="PATHS")
    return request


def _settings_loader(request: CheckRequest) -> Callable[[Path], Settings]:
    """Settings for one project root: its own pyproject.toml (or the --config one), with
    the command line's values on top."""
    fixed: Settings | None = None
    if request.config is not None:
        path = Path(request.config)
        if path.is_file() or "=" not in request.config:
            fixed = load_settings_file(path)
        else:
            fixed = parse_inline(request.config)

    def load(root: Path) -> Settings:
        base = fixed if fixed is not None else load_settings(root)
        return with_overrides(base, request.over)

    return load


@main.command()
@_common_check_options
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
    _run(_request(False, kwargs))


@main.command()
@_common_check_options
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
    _run(_request(True, kwargs))


def _run(request: CheckRequest) -> None:
    try:
        load = _settings_loader(request)
        if request.show_settings:
            click.echo(_resolved_settings(request, load), nl=False)
            return
        if request.add_noqa:
            from initlint.noqa import add_noqa_and_report

            sys.exit(add_noqa_and_report(request, load))
        if request.fix or request.diff or request.fix_only:
            from initlint.fix.command import fix_and_report

            code = fix_and_report(request, load)
        else:
            combined = _check_all(request, load)
            code = _report(request, combined)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    global _FINISHED
    _FINISHED = True
    sys.exit(code)


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


def _check_all(request: CheckRequest, load: Callable[[Path], Settings]) -> Combined:
    from initlint.fix.planning import fix_planner

    combined = Combined()
    cwd = Path.cwd().absolute()
    for group, settings, deps in groups_with_dependents(request, load):
        # A file's last results are reused while its import closure is unchanged; JSON and
        # SARIF show each fix's edits, rendered and checked with the results and stored
        # with them.
        fixes = None
        if request.fmt in ("json", "sarif"):
            from initlint.fix.attach import EditAttacher  # renders edits: imports libcst

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


def _report(request: CheckRequest, combined: Combined) -> int:
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
        color = fmt == "text" and request.output_file is None and _color_stdout()
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


def _color_stdout() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _statistics(diags: list[Diagnostic], fmt: str) -> str:
    rows = statistics(diags)
    if fmt == "json":
        data = [{"code": c, "name": n, "count": k, "fixable": f} for c, n, k, f in rows]
        return json.dumps(data, indent=2) + "\n"
    return render_statistics(diags)


def _resolved_settings(request: CheckRequest, load: Callable[[Path], Settings]) -> str:
    """What analyze() would use for each project root, without running it."""
    from initlint.engine import project_environment

    out = []
    for group in group_paths(request.paths, Path.cwd().absolute()):
        settings = load(group.root)
        env = project_environment(group.root, settings, Path.cwd())
        out.append(format_settings(settings, group.root) + "\n".join(["", *env.describe(), ""]))
    return "\n".join(out)


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

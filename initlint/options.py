"""The options ``check`` and ``fix`` share, parsed into one :class:`CheckRequest`, and the
settings loader a request implies. (``fix`` is ``check --fix``: one option list.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from initlint.output import RENDERERS
from initlint.records import dataclass
from initlint.settings import (
    Settings,
    load_settings,
    load_settings_file,
    parse_inline,
    unknown_codes,
    with_overrides,
)


def split_values(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def check_codes(codes: tuple[str, ...], option: str) -> None:
    for code in unknown_codes(codes):
        raise click.BadParameter(
            f"unknown rule code {code!r} (see `initlint rules`)", param_hint=option
        )


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


def common_check_options(fn: click.decorators.FC) -> click.decorators.FC:
    options = [
        PYTHON_OPTION,
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option(
            "--select", multiple=True, help="Rule codes or prefixes to enable (IL0 = IL001-IL005)."
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
            "--quiet",
            "-q",
            is_flag=True,
            help="Print the findings (or the diff) only: no summary line, and none of the "
            "notes and warnings that go to stderr.",
        ),
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
    quiet: bool
    fix: bool
    unsafe_fixes: bool
    diff: bool
    fix_only: bool
    show_fixes: bool
    add_noqa: bool


def overrides(
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
    sel, ign, ext = split_values(select), split_values(ignore), split_values(extend_select)
    if select and not sel:
        raise click.BadParameter(
            "an empty selection would check nothing; name codes or prefixes (IL001, IL0) or ALL",
            param_hint="--select",
        )
    check_codes(sel, "--select")
    check_codes(ign, "--ignore")
    check_codes(ext, "--extend-select")
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
        out["exclude"] = split_values(exclude)
    if extend_exclude:
        out["extend_exclude"] = split_values(extend_exclude)
    if flag_name:
        out["flag_name"] = flag_name
    if respect_gitignore is not None:
        out["respect_gitignore"] = respect_gitignore
    if dependents is not None:
        out["dependents"] = dependents
    if min_severity:
        out["min_severity"] = min_severity
    return python_override(out)


def parse_request(fix: bool, kwargs: dict[str, Any]) -> CheckRequest:
    over = overrides(
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


def settings_loader(request: CheckRequest) -> Callable[[Path], Settings]:
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

"""initlint's Python API: check and fix from code, with the results the command line prints.

:func:`check` is ``initlint check``, :func:`fix` is ``initlint fix`` (``--diff`` with
``diff_only=True``); both return a frozen report, and the command line renders those very
reports. :func:`analyze` is one project's run with everything it learned (the project index,
each fix's plan), for tools that need more than the diagnostics, such as the language
server. Nothing here runs the code it reads. See ``docs/api.md``.

Example::

    from initlint import api

    report = api.check(["src"], options={"select": ["IL001"]})
    for d in report.diagnostics:
        print(f"{d.path}:{d.line}: {d.code} {d.message}")
    print(report.render("json"))  # what `initlint check --format json src` prints

    result = api.fix(["src"], unsafe=True, diff_only=True)
    print(result.diff())  # what `initlint fix --unsafe-fixes --diff src` prints
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze as _drive
from initlint.driver.factpass import default_jobs
from initlint.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, ConfigError
from initlint.pipeline.analysis import Analysis, FixPlanner, display_path
from initlint.pipeline.unread import UnreadAncestor
from initlint.projects import Combined, ProjectGroup, group_paths, mark_dependents
from initlint.records import dataclass
from initlint.settings import Settings, load_settings, parse_table, with_overrides

if TYPE_CHECKING:
    from initlint.fix.apply import FileChange, FixOutcome

__all__ = [
    "ConfigError",
    "FixFailed",
    "FixReport",
    "Report",
    "analyze",
    "check",
    "fix",
    "settings_for",
]

# What the paths may be given as.
PathLike = str | os.PathLike[str]
# The settings of a run: None reads each project's own pyproject.toml; a Settings is used
# for every project; a function gets each project's root and returns its settings.
SettingsSource = Settings | Callable[[Path], Settings] | None


class FixFailed(Exception):
    """A fix could not be written (a read-only file, a file that changed meanwhile, a fix
    that would not parse). Nothing was written: files are written all or none."""


@dataclass(frozen=True)
class Report:
    """What ``initlint check`` found over every project the paths are in, sorted as printed.

    ``unused_suppressions`` holds ``(path, line, message)`` for each suppression comment
    that suppressed nothing (the command line's warnings on stderr)."""

    diagnostics: tuple[Diagnostic, ...]
    files: int  # the files checked
    internal_errors: int  # IL902s: the check of a file or class failed
    unused_suppressions: tuple[tuple[str, int, str], ...] = ()
    # the classes whose construction runs an ancestor that neither the project nor the
    # environment defines: their repeats of its work cannot be seen (a note on stderr)
    unread_ancestors: tuple[UnreadAncestor, ...] = ()

    @property
    def exit_code(self) -> int:
        """The exit status ``initlint check`` gives for this report: 0 clean, 1 findings,
        2 internal errors."""
        if self.internal_errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if self.diagnostics else EXIT_OK

    def render(self, fmt: str = "text", *, color: bool = False) -> str:
        """The report as ``initlint check --format FMT`` prints it (text, json, sarif,
        github); for text, without the summary line (see :meth:`summary`). JSON and SARIF
        show each fix's edits only when :func:`check` was asked for them (``edits=True``)."""
        from initlint.output import RENDERERS

        if fmt not in RENDERERS:
            raise ValueError(f"unknown format {fmt!r}; one of: {', '.join(sorted(RENDERERS))}")
        return RENDERERS[fmt](list(self.diagnostics), color)

    def summary(self, unsafe_fixes: bool = False) -> str:
        """The text output's last line ("Found 2 diagnostics in 1 file ...")."""
        from initlint.output.text import summary_line

        return summary_line(list(self.diagnostics), self.files, unsafe_fixes)


@dataclass(frozen=True)
class FixReport:
    """What ``initlint fix`` did (or, with ``diff_only``, would do).

    ``changes`` holds each changed file's bytes before and after (written unless
    ``written`` is False); ``applied`` the findings fixed; ``remaining`` what a check
    reports afterwards (before, with ``diff_only``); the rest, the fixes not made and why."""

    changes: tuple[FileChange, ...]
    applied: tuple[Diagnostic, ...]
    remaining: tuple[Diagnostic, ...]
    skipped_unsafe: tuple[Diagnostic, ...]  # unsafe fixes not made (``unsafe=False``)
    failed: tuple[tuple[Diagnostic, str], ...]  # fixes that could not be applied, and why
    withdrawn: tuple[tuple[Diagnostic, str], ...]  # planned fixes their check withdrew, and why
    files: int
    internal_errors: int
    written: bool
    cwd: Path  # the paths in ``diff()`` are relative to it

    def diff(self) -> str:
        """The changes as a unified diff: what ``initlint fix --diff`` prints."""
        return "".join(c.diff(display_path(c.path, self.cwd)) for c in self.changes)

    @property
    def exit_code(self) -> int:
        """The exit status of ``initlint fix`` (``--diff`` when nothing was written)."""
        if self.internal_errors:
            return EXIT_ERROR
        if not self.written:
            return EXIT_FINDINGS if self.changes else EXIT_OK
        return EXIT_FINDINGS if self.remaining else EXIT_OK


def settings_for(
    settings: SettingsSource = None, options: Mapping[str, Any] | None = None
) -> Callable[[Path], Settings]:
    """The settings of each project root: ``settings`` (see :data:`SettingsSource`), with
    ``options`` on top. ``options`` are keys of ``[tool.initlint]`` (``{"select":
    ["IL001"], "min-severity": "error"}``), checked as the file's are: a bad one raises
    :class:`ConfigError`."""
    over: dict[str, Any] = {}
    if options:
        parsed = parse_table(dict(options), "options", table_name="")
        names = {f.name for f in fields(Settings)}
        for key in options:
            name = key.replace("-", "_")
            if name in names:
                over[name] = getattr(parsed, name)

    def load(root: Path) -> Settings:
        if settings is None:
            base = load_settings(root)
        elif isinstance(settings, Settings):
            base = settings
        else:
            base = settings(root)
        return with_overrides(base, over) if over else base

    return load


def analyze(
    paths: Iterable[PathLike],
    *,
    cwd: PathLike | None = None,
    settings: Settings | None = None,
    jobs: int = 0,
    use_cache: bool = True,
    plan_fixes: bool = True,
    progress: bool | None = False,
) -> Analysis:
    """One project's check, with everything it learned: the project index, the diagnostics
    before they are merged with other projects', each offered fix's plan
    (``Analysis.plans``). ``paths`` lie in one project (the first one's root is used);
    ``settings`` default to that project's pyproject.toml. ``plan_fixes=False`` skips fix
    planning (IL001-IL003 messages then end in ``[no fix]``). ``progress``: None draws a
    progress bar on stderr when it is a terminal.

    Most callers want :func:`check`; this is for tools that read the :class:`Analysis`
    (the language server offers fixes from its plans)."""
    return _drive(
        [Path(p) for p in paths],
        cwd=None if cwd is None else Path(cwd),
        settings=settings,
        jobs=jobs,
        use_cache=use_cache,
        fix_planner=_planner(plan_fixes),
        progress=progress,
    )


def check(
    paths: Iterable[PathLike] = (),
    *,
    settings: SettingsSource = None,
    options: Mapping[str, Any] | None = None,
    cwd: PathLike | None = None,
    edits: bool = False,
    plan_fixes: bool = True,
    jobs: int = 0,
    use_cache: bool = True,
    progress: bool | None = False,
) -> Report:
    """Check ``paths`` (default: ``cwd``) as ``initlint check`` does, and return its report.

    The paths are grouped by project (the folder holding ``pyproject.toml``, or else
    ``.git``); each project is checked with its own settings and the results are merged.
    When the paths are files, the project files whose result depends on them are reported
    too (``dependents = false`` turns that off). ``settings``/``options``: see
    :func:`settings_for`. ``edits``: render and check each fix's edits (what JSON and
    SARIF show). ``jobs``: worker processes (0: the CPU count). ``use_cache``: read and
    write ``.initlint_cache/``. Paths in the report are relative to ``cwd`` (default: the
    current directory).

    Raises :class:`ConfigError` for a bad setting and :class:`FileNotFoundError` for a
    path that does not exist.

    >>> report = check(["tests/fixtures/check/simple_redundant_buffer"])  # doctest: +SKIP
    >>> [d.code for d in report.diagnostics]  # doctest: +SKIP
    ['IL001']
    """
    here = _cwd(cwd)
    given = _given(paths)
    load = settings_for(settings, options)
    combined = Combined()
    for group, group_settings, deps in _groups(given, here, load, use_cache, jobs):
        fixes = None
        if edits:
            from initlint.fix.attach import EditAttacher  # libcst once there is a fix to render

            fixes = EditAttacher()
        # A file's last results are reused while its import closure is unchanged; the
        # edits, rendered and checked, are stored with them.
        analysis = _drive(
            [*group.paths, *deps],
            cwd=here,
            settings=group_settings,
            jobs=jobs,
            use_cache=use_cache,
            fix_planner=_planner(plan_fixes),
            progress=progress,
            reuse_results=True,
            fixes=fixes,
        )
        diags = mark_dependents(analysis.diagnostics, _dependent_displays(deps, here))
        combined.add(diags, analysis.files, analysis.internal_errors)
        combined.unused_suppressions += analysis.unused_suppressions
        combined.unread += analysis.unread
    combined.finish()
    return Report(
        tuple(combined.diagnostics),
        combined.files,
        combined.internal_errors,
        tuple(combined.unused_suppressions),
        tuple(combined.unread),
    )


def fix(
    paths: Iterable[PathLike] = (),
    *,
    unsafe: bool = False,
    diff_only: bool = False,
    settings: SettingsSource = None,
    options: Mapping[str, Any] | None = None,
    cwd: PathLike | None = None,
    edits: bool = False,
    jobs: int = 0,
    use_cache: bool = True,
) -> FixReport:
    """Fix ``paths`` as ``initlint fix`` does and return what was done.

    Safe fixes only, or every fix with ``unsafe`` (those that change signatures).
    ``diff_only``: write nothing, return the changes (``initlint fix --diff``). Every changed
    file is re-parsed before anything is written, and the files are written all or none.
    ``edits``: the remaining diagnostics carry their fixes' edits (what JSON and SARIF
    show). The other arguments are :func:`check`'s.

    Raises :class:`FixFailed` when a file cannot be written (nothing is then written),
    :class:`ConfigError` for a bad setting and :class:`FileNotFoundError` for a path that
    does not exist.
    """
    from initlint.fix.api import attach_edits, run_fix
    from initlint.fix.apply import FixOutcome, check_permissions
    from initlint.fix.transform import FixError
    from initlint.sources import UnreadableError

    here = _cwd(cwd)
    load = settings_for(settings, options)
    groups = _groups(_given(paths), here, load, use_cache, jobs)
    write = not diff_only

    def run(
        paths: list[Path], settings: Settings, really: bool
    ) -> tuple[Analysis, FixOutcome, Analysis | None]:
        return run_fix(
            paths,
            unsafe=unsafe,
            write=really,
            settings=settings,
            jobs=jobs,
            use_cache=use_cache,
            cwd=here,
        )

    try:
        if write and len(groups) > 1:
            # Nothing is written anywhere when one project's files cannot be: look first.
            planned: list[FileChange] = []
            for group, group_settings, deps in groups:
                planned += run([*group.paths, *deps], group_settings, False)[1].changes
            check_permissions(planned)
        combined = Combined()
        total = FixOutcome()
        for group, group_settings, deps in groups:
            before, outcome, after = run([*group.paths, *deps], group_settings, write)
            final = after if after is not None else before
            if write:
                if edits:
                    attach_edits(final)
                remaining = final.diagnostics
            else:
                fixed = set(outcome.applied)
                remaining = [d for d in before.diagnostics if d not in fixed]
            remaining = mark_dependents(remaining, _dependent_displays(deps, here))
            combined.add(remaining, before.files, final.internal_errors)
            _add(total, outcome)
    except (FixError, OSError, UnreadableError) as exc:
        raise FixFailed(str(exc)) from exc
    combined.finish()
    return FixReport(
        changes=tuple(total.changes),
        applied=tuple(total.applied),
        remaining=tuple(combined.diagnostics),
        skipped_unsafe=tuple(total.skipped_unsafe),
        failed=tuple(total.failed),
        withdrawn=tuple(total.withdrawn),
        files=combined.files,
        internal_errors=combined.internal_errors,
        written=write,
        cwd=here,
    )


# ---- shared by check and fix ---------------------------------------------------------------


def _cwd(cwd: PathLike | None) -> Path:
    return (Path.cwd() if cwd is None else Path(cwd)).absolute()


def _given(paths: Iterable[PathLike]) -> tuple[Path, ...]:
    given = tuple(Path(p) for p in ([paths] if isinstance(paths, str | os.PathLike) else paths))
    for p in given:
        if not p.exists() and not p.is_symlink():
            raise FileNotFoundError(f"path {str(p)!r} does not exist")
    return given


def _planner(plan_fixes: bool) -> FixPlanner | None:
    """The fixer's planner (imported only when fixes are planned), or None."""
    if not plan_fixes:
        return None
    from initlint.fix.propose import fix_planner

    return fix_planner


def _groups(
    paths: tuple[Path, ...],
    cwd: Path,
    load: Callable[[Path], Settings],
    use_cache: bool,
    jobs: int,
) -> list[tuple[ProjectGroup, Settings, dict[Path, Path]]]:
    """Each project's given paths, its settings, and its dependent files (file -> the given
    file it depends on)."""
    out = []
    for group in group_paths(paths, cwd):
        settings = load(group.root)
        deps: dict[Path, Path] = {}
        # Files given (pre-commit's changed files): a folder given asks for its own files.
        files_given = paths and not any(p.is_dir() for p in group.paths)
        if settings.dependents and files_given:
            from initlint.dependents import find_dependents
            from initlint.discovery import discover

            given = discover(
                group.paths, group.root, settings.all_excludes, settings.respect_gitignore
            ).report
            deps = find_dependents(
                group.root, settings, given, use_cache=use_cache, jobs=jobs or default_jobs()
            )
        out.append((group, settings, deps))
    return out


def _dependent_displays(deps: dict[Path, Path], cwd: Path) -> dict[str, str]:
    return {display_path(f, cwd): display_path(g, cwd) for f, g in deps.items()}


def _add(total: FixOutcome, outcome: FixOutcome) -> None:
    total.changes += outcome.changes
    total.applied += outcome.applied
    total.skipped_unsafe += outcome.skipped_unsafe
    total.failed += outcome.failed
    total.withdrawn += outcome.withdrawn

"""Find the project root and the Python files to read and to report on (docs/design.md)."""

from __future__ import annotations

import functools
import operator
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from fnmatch import translate
from pathlib import Path

from initlint import gitignore as gitignore_specs
from initlint.records import dataclass

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    ".initlint_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
)


def find_root(start: Path) -> Path:
    """Nearest folder at or above ``start`` holding pyproject.toml, else .git, else a guess.

    The guess is the parent of the outermost package (folder with __init__.py) around start.
    """
    start = start if start.is_dir() else start.parent
    for marker in ("pyproject.toml", ".git"):
        for folder in (start, *start.parents):
            if (folder / marker).exists():
                return folder
    folder = start
    while (folder / "__init__.py").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


_DEFAULT_NAMES = frozenset(p for p in DEFAULT_EXCLUDES if "*" not in p)
_NAME = operator.attrgetter("name")
_VENV_MARKER = "pyvenv.cfg"


def _excluded(rel: str, name: str, patterns: Iterable[str]) -> bool:
    if name in _DEFAULT_NAMES or name.endswith(".egg-info"):
        return True
    matcher, prefixes = _compiled(tuple(patterns))
    if matcher is not None and (matcher(name) is not None or matcher(rel) is not None):
        return True
    return rel.startswith(prefixes)


@functools.lru_cache(maxsize=64)
def _compiled(
    patterns: tuple[str, ...],
) -> tuple[Callable[[str], re.Match[str] | None] | None, tuple[str, ...]]:
    """One regex for all the globs (a name or path matches ``pat`` or ``pat/*``), and the
    ``pat/`` path prefixes."""
    pats = [p.rstrip("/") for p in patterns]
    if not pats:
        return None, ()
    globs = [translate(p) for p in pats] + [translate(f"{p}/*") for p in pats]
    return re.compile("|".join(f"(?:{g})" for g in globs)).match, tuple(f"{p}/" for p in pats)


def _is_venv(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, _VENV_MARKER))


@dataclass(frozen=True)
class FileProblem:
    """A path given on the command line that cannot be read as a Python file."""

    path: Path
    message: str


def walk_python_files(
    top: Path, root: Path, excludes: tuple[str, ...], gitignore: bool = False
) -> Iterator[Path]:
    """Python files below ``top`` (not following symlinked folders), excludes applied, and
    with ``gitignore`` what ``.gitignore`` files ignore.

    Depth first, each folder's files (sorted) before its subfolders (sorted), as os.walk
    yields them; os.scandir's entries answer the file-type questions without a stat each.
    """
    return map(Path, walk_python_paths(top, root, excludes, gitignore=gitignore))


def walk_python_paths(
    top: Path,
    root: Path,
    excludes: tuple[str, ...],
    record: list[str] | None = None,
    gitignore: bool = False,
) -> Iterator[str]:
    """:func:`walk_python_files` as strings: a whole project's walk makes no Path objects.

    A folder is a virtual environment (skipped) when it holds ``pyvenv.cfg``; that is asked
    of the folder's own listing, so most folders cost no ``stat`` for it. ``record``
    receives every folder listed, every ``.gitignore`` read, and ``""`` for each ``.py``
    symlink met (whose target can change with no folder changing).
    """
    matcher, prefixes = _compiled(tuple(excludes))
    prefix = str(root).rstrip(os.sep) + os.sep
    stack = [str(top)]
    below_top = False  # ``top`` itself is walked even when it is a virtual environment
    specs: dict[str, gitignore_specs.Specs] = {}  # folder -> the .gitignore specs in force
    if gitignore:
        specs[str(top)] = gitignore_specs.initial_specs(str(root), str(top), record)
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=_NAME)
        except OSError:
            continue  # unreadable folder: skipped, as os.walk skips it
        if record is not None:
            record.append(here)
        if below_top and _is_venv_listing(here, entries):
            continue
        below_top = True
        active: gitignore_specs.Specs = ()
        if gitignore:
            names = {e.name for e in entries}
            active = gitignore_specs.with_folder(specs.pop(here), here, names, record)
        subdirs: list[str] = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if name in _DEFAULT_NAMES or name.endswith(".egg-info"):
                    continue
                if matcher is not None and _user_excluded(matcher, prefixes, entry, prefix):
                    continue
                try:
                    if entry.is_symlink():
                        continue  # a symlinked folder is not walked into
                except OSError:
                    continue
                if active and gitignore_specs.ignored(active, entry.path, True):
                    continue
                subdirs.append(entry.path)
                if gitignore:
                    specs[entry.path] = active
                continue
            if not name.endswith(".py"):
                continue
            # (a name ending in .py is never one of the default excludes)
            if matcher is not None and _user_excluded(matcher, prefixes, entry, prefix):
                continue
            if active and gitignore_specs.ignored(active, entry.path, False):
                continue
            if record is not None and entry.is_symlink():
                record.append("")
            try:
                is_file = entry.is_file()  # follows a symlink: its target must be a file
            except OSError:
                continue  # dangling link or loop
            if is_file:
                yield entry.path
        stack.extend(reversed(subdirs))


def _user_excluded(
    matcher: Callable[[str], re.Match[str] | None],
    prefixes: tuple[str, ...],
    entry: os.DirEntry[str],
    prefix: str,
) -> bool:
    """Whether an ``--exclude``/config glob matches the entry's name or root-relative path."""
    rel = _rel_str(entry.path, prefix)
    if matcher(entry.name) is not None or matcher(rel) is not None:
        return True
    return rel.startswith(prefixes)


def _is_venv_listing(folder: str, entries: list[os.DirEntry[str]]) -> bool:
    """:func:`_is_venv` for a folder whose entries are known: the ``stat`` only when an entry
    could be the marker (any case, for case-insensitive file systems; always on Windows)."""
    if os.name != "nt" and _VENV_MARKER not in map(str.lower, map(_NAME, entries)):
        return False
    return _is_venv(folder)


def _rel_str(path: str, prefix: str) -> str:
    """``path`` relative to the root (``prefix`` is the root and a separator), posix style."""
    if path.startswith(prefix):
        path = path[len(prefix) :]
    return path.replace(os.sep, "/") if os.sep != "/" else path


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass(frozen=True)
class Discovery:
    """What to check: the project root, the files to report on, the paths in error."""

    root: Path
    report: tuple[Path, ...]  # absolute paths to report on
    problems: tuple[FileProblem, ...]  # given paths that cannot be read as files


def _ancestry(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))] if rel not in ("", ".") else []


def discover(
    paths: Iterable[Path], root: Path, excludes: tuple[str, ...], gitignore: bool = False
) -> Discovery:
    """The files to report on. A path given by name is taken even when ``.gitignore``
    ignores it (as ruff does); what lies below a given folder is walked with it applied."""
    report: dict[Path, None] = {}
    problems: list[FileProblem] = []
    for given in paths:
        p = given.absolute()
        if p.is_dir():
            # A folder named on the command line is checked even if a pattern excludes it
            # (as ruff does); patterns still apply to what lies below it.
            rel_p = _rel(p, root)
            own = tuple(
                pat
                for pat in excludes
                if any(_excluded(a, a.rsplit("/", 1)[-1], (pat,)) for a in _ancestry(rel_p))
            )
            below = tuple(pat for pat in excludes if pat not in own)
            for f in walk_python_files(p, root, below, gitignore):
                report[f] = None
            continue
        if not p.exists() and not p.is_symlink():
            problems.append(FileProblem(p, "no such file or directory"))
            continue
        rel = _rel(p, root)
        if _excluded(rel, p.name, excludes):
            continue
        try:
            mode = p.stat().st_mode
        except OSError as exc:
            problems.append(FileProblem(p, exc.strerror or str(exc)))
            continue
        if not stat.S_ISREG(mode):
            problems.append(FileProblem(p, "not a regular file"))
            continue
        report[p] = None
    return Discovery(root, tuple(report), tuple(problems))

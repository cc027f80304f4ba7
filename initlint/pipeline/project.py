"""The project around the checked files: source roots, the walk of its modules, the Python
environment installed ancestors are read from, and the facts of a dependency's file."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from initlint.cache import content_key
from initlint.discovery import walk_python_paths
from initlint.environment import Distribution, Environment, PythonNotRun, find_environment
from initlint.facts.cache import FactsCache
from initlint.facts.extract import extract_facts
from initlint.facts.load import EMPTY
from initlint.facts.model import ModuleFacts, Span
from initlint.index.modules import module_name_for
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.settings import Settings
from initlint.sources import UnreadableError, decode, read_bytes


def source_roots(root: Path, settings: Settings) -> list[Path]:
    """The folders module names are relative to: the root, and ``src`` (or ``src/``)."""
    roots = [root]
    for s in settings.src:
        roots.append((root / s).resolve())
    if not settings.src and (root / "src").is_dir():
        roots.append(root / "src")
    return roots


def enclosing_function(index: ProjectIndex) -> Callable[[Path, int], tuple[int, int, int] | None]:
    """The innermost function around a line, from the facts: the Locator parses only it."""
    by_path: dict[str, Module] = {}
    indexed = [0]  # how many of index.modules by_path has seen

    def find(path: Path, line: int) -> tuple[int, int, int] | None:
        if indexed[0] < len(index.modules):
            for known in index.modules.values():
                by_path.setdefault(os.path.normpath(known.path), known)
            indexed[0] = len(index.modules)
        mod = by_path.get(os.path.normpath(path))
        if mod is None:
            return None
        best: Span | None = None
        facts = mod.facts
        for fn in (*facts.functions, *(m for c in facts.classes for m in c.methods)):
            s = fn.span
            if s.line <= line <= s.end_line and (
                best is None or s.end_line - s.line < best.end_line - best.line
            ):
                best = s
        return None if best is None else (best.line, best.end_line, best.col)

    return find


def project_environment(root: Path, settings: Settings, cwd: Path) -> Environment:
    """The environment ``settings`` (``python``) or discovery chooses for the project at
    ``root``. A relative ``python`` is taken from the folder of the config file that set it
    (the working directory for the command line). Raises PythonNotFound (a ConfigError)."""
    python = settings.python
    source = settings.sources.get("python", "")
    if python and not os.path.isabs(os.path.expanduser(python)):
        base = Path(source).parent if source and source != "command line" else cwd
        python = str(base / python)
    where = "--python" if source in ("command line", "") else f"python in {source}"
    typed = source in ("command line", "--config", "")  # typed by the user (or an API caller)
    try:
        return find_environment(root, python, where if python else "", may_run=typed)
    except PythonNotRun:
        try:
            shown_source = os.path.relpath(source, cwd)
            shown_python = os.path.relpath(python, cwd)
        except ValueError:  # another drive (Windows)
            shown_source, shown_python = source, python
        import shlex

        raise PythonNotRun(
            f'python = "{settings.python}" in {shown_source} names a program whose '
            "site-packages cannot be read from the folders around it (no venv, conda or "
            "lib/pythonX.Y/site-packages layout); initlint does not run programs a "
            "repository names. Pass it on the command line instead: "
            f"initlint check --python {shlex.quote(shown_python)}"
        ) from None


def dependency_facts(path: Path, dist: Distribution, cache: FactsCache) -> tuple[ModuleFacts, str]:
    """Facts of a dependency's file, and their cache key: the path, size, mtime and the
    distribution's version (a dependency file is read only on a miss: warm runs stat it).
    An unreadable or unparsable file has no facts: its names stay unresolved (clean)."""
    try:
        st = os.stat(path)
    except OSError:
        return EMPTY, ""
    if not os.path.isfile(path):
        return EMPTY, ""
    stamp = f"dep\0{path}\0{st.st_size}\0{st.st_mtime_ns}\0{dist.name}\0{dist.version}"
    key = "dep-" + content_key(stamp.encode("utf-8", "surrogateescape"))
    facts = cache.get(key)
    if facts is not None:
        return facts, key
    facts = read_dependency(path)
    if facts is None:
        return EMPTY, ""
    cache.put(key, facts)
    return facts, key


def read_dependency(path: Path) -> ModuleFacts | None:
    """Facts of a dependency's file, read afresh: None when it cannot be read, EMPTY when it
    cannot be parsed (either way its names stay unresolved: clean)."""
    try:
        text, _ = decode(read_bytes(path))
        facts = extract_facts(text)
    except (UnreadableError, RecursionError, MemoryError):
        return None
    except Exception:  # noqa: BLE001 - a dependency must never stop the run
        return None
    return EMPTY if facts.error is not None else facts


def module_names(
    files: Iterable[Path | str], roots: list[Path]
) -> dict[str, tuple[Path | str, bool]]:
    """Module name -> (file, is a package) of the project's files (the first file wins)."""
    module_paths: dict[str, tuple[Path | str, bool]] = {}
    for path in files:
        named = module_name_for(path, roots)
        if named is not None and named[0] not in module_paths:
            module_paths[named[0]] = (path, named[1])
    return module_paths


def project_map(
    root: Path,
    roots: list[Path],
    settings: Settings,
    walk: Callable[..., Iterator[str]] = walk_python_paths,
) -> tuple[set[str], dict[str, tuple[Path | str, bool]]]:
    """The project's Python files, by ``walk`` (``discovery.walk_python_paths``), and their
    module names (the first file wins a name)."""
    files = list(walk(root, root, settings.all_excludes, gitignore=settings.respect_gitignore))
    return set(files), module_names(files, roots)

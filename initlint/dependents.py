"""The project files whose result depends on some given files (pre-commit's changed files).

initlint is a cross-file linter: a change in ``base.py`` alone can give an unchanged
subclass file a new finding. A file's analysis only ever leaves the file through its
imports (DESIGN §8: the results cache keys each file's results by its import closure), so
the files that can change with a given file are those whose import closure holds it.
Only those that define a class can have a finding; they are reported with the given files.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from initlint.engine import project_modules
from initlint.facts.runner import EMPTY, compute_facts
from initlint.index.deps import ImportGraph
from initlint.index.project import Module
from initlint.settings import Settings


def find_dependents(
    root: Path,
    settings: Settings,
    given: Iterable[Path],
    *,
    use_cache: bool = True,
    jobs: int = 1,
) -> dict[Path, Path]:
    """Project file -> a given file it depends on, for every file outside ``given`` that
    defines a class and imports (directly or not) one of the given files.

    Every project file's imports are read (the facts cache answers on a warm run)."""
    module_paths = project_modules(root, settings, use_cache)
    given_set = {Path(p) for p in given}
    by_path = {str(path): (name, is_pkg) for name, (path, is_pkg) in module_paths.items()}
    if not any(str(p) in by_path for p in given_set):
        return {}
    files = [Path(p) for p in by_path]
    fact_pass = compute_facts(
        files,
        root,
        settings.fingerprint(),
        use_cache=use_cache,
        jobs=jobs,
        prefilter=False,  # a class-less __init__.py's re-exports carry dependence too
    )
    modules: dict[str, Module] = {}
    try:
        for outcome in fact_pass:
            name, is_pkg = by_path[str(outcome.path)]
            modules[name] = Module(name, outcome.path, is_pkg, outcome.facts or EMPTY)
    finally:
        fact_pass.close()
    graph = ImportGraph(modules)
    importers: dict[str, set[str]] = {}
    for name, mod in modules.items():
        for dep in graph.edges(mod):
            importers.setdefault(dep, set()).add(name)
    out: dict[Path, Path] = {}
    reached: dict[str, Path] = {}  # module -> the given file it was reached from
    todo: list[str] = []
    for name in sorted(modules):
        if modules[name].path in given_set:
            reached[name] = modules[name].path
            todo.append(name)
    while todo:
        name = todo.pop()
        for importer in sorted(importers.get(name, ())):
            if importer not in reached:
                reached[importer] = reached[name]
                todo.append(importer)
    for name, origin in reached.items():
        mod = modules[name]
        if mod.path not in given_set and mod.facts.classes:
            out[mod.path] = origin
    return dict(sorted(out.items()))

"""The whole check, serially, in one process and with no cache: the reference path that
``initlint.driver.analyze`` runs fast (tests/test_pipeline_serial.py holds the two equal).

    discover -> facts of each report file -> its kind (FileOutcome) -> its module in the
    index -> its classes simulated -> the rules -> its share of the report -> the report
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from initlint.discovery import discover, find_root, walk_python_paths
from initlint.environment import Distribution, ModuleFinder
from initlint.facts.load import EMPTY, NoStore, facts_for, facts_or_empty
from initlint.facts.model import ModuleFacts
from initlint.generated import GeneratedCode
from initlint.index.modules import module_name_for
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.locate import Locator
from initlint.pipeline.analysis import Analysis, FixPlanner
from initlint.pipeline.check import (
    Crashed,
    Parsed,
    Unparsable,
    Unreadable,
    admit_module,
    check_module,
    triage,
)
from initlint.pipeline.project import (
    enclosing_function,
    module_names,
    project_environment,
    read_dependency,
    source_roots,
)
from initlint.pipeline.report import Entry, Share, comments_of, file_diag, finish
from initlint.rules.il900_internal import UnreadableFile
from initlint.settings import Settings, load_settings
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator


def check_paths(
    paths: Iterable[Path],
    *,
    cwd: Path | None = None,
    settings: Settings | None = None,
    fix_planner: FixPlanner | None = None,
) -> Analysis:
    """Check ``paths`` (default: the working directory) as ``initlint check`` does."""
    cwd = (cwd or Path.cwd()).absolute()
    paths = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    root = find_root(paths[0])
    settings = settings if settings is not None else load_settings(root)
    disc = discover(paths, root, settings.all_excludes, settings.respect_gitignore)
    generated = GeneratedCode()
    if not settings.check_templates:  # templates of generated code are never run
        disc = replace(disc, report=tuple(p for p in disc.report if not generated.is_template(p)))

    # The project: every file's module name, and the environment installed ancestors are in.
    roots = source_roots(root, settings)
    walked = walk_python_paths(
        root, root, settings.all_excludes, [], gitignore=settings.respect_gitignore
    )
    module_paths = module_names(walked, roots)
    names = {p: module_name_for(p, roots) for p in disc.report}
    for file, named in names.items():  # a report file the walk did not meet
        if named is not None and named[0] not in module_paths:
            module_paths[named[0]] = (str(file), named[1])
    environment = project_environment(root, settings, cwd)

    store = NoStore()

    def load(path: Path) -> ModuleFacts:
        return facts_or_empty(facts_for(path, store, prefilter=False))

    def load_dependency(path: Path, dist: Distribution) -> ModuleFacts:
        return read_dependency(path) or EMPTY

    index = ProjectIndex(
        module_paths, load, finder=ModuleFinder(environment), load_dependency=load_dependency
    )
    locator = Locator(enclosing_function(index), root, use_cache=False)
    sim = Simulator(index, CostModel(index, settings.expensive_calls, settings.cheap_calls))
    analysis = Analysis(
        root, cwd, settings, index, environment, locator, sim, files=len(disc.report)
    )

    # Each report file's kind; the modules of those with classes go in the index first (a
    # report file wins its module name over another file of that name).
    entries: dict[Path, list[Entry]] = {}
    modules: dict[Path, Module] = {}
    for file in disc.report:
        match triage(analysis, facts_for(file, store, prefilter=True)):
            case Unreadable(diag=diag) | Unparsable(diag=diag) | Crashed(diag=diag):
                entries[file] = [Share(diag)]
            case Parsed(facts=facts) if not facts.classes:
                entries[file] = list(comments_of(analysis, file, facts))
            case Parsed(facts=facts):
                modules[file] = admit_module(index, file, names[file], facts)

    # Each module's classes simulated, the rules run, the findings worded and located.
    for file, mod in modules.items():
        entries[file] = check_module(analysis, sim, mod, fix_planner)

    problems = [
        file_diag(analysis, p.path, UnreadableFile.code, p.message, 1, 1) for p in disc.problems
    ]
    finish(analysis, problems, [e for f in disc.report for e in entries.get(f, [])], disc.report)
    return analysis

"""The whole check, serially, in one process and with no cache: the reference path that
``initlint.driver.analyze`` runs fast (tests/test_pipeline_serial.py holds the two equal).

    set-up (pipeline/setup.py) -> facts of each report file -> its kind (FileOutcome) ->
    its module in the index -> its classes simulated -> the rules -> its fixes planned ->
    its share of the report -> the report
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from initlint.environment import Distribution
from initlint.facts.load import EMPTY, NoStore, facts_for, facts_or_empty
from initlint.facts.model import ModuleFacts
from initlint.index.modules import module_name_for
from initlint.index.records import Module
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
from initlint.pipeline.project import project_map, read_dependency
from initlint.pipeline.report import Entry, Share, comments_of, finish
from initlint.pipeline.setup import build_analysis, discovery_problems, find_scope, map_project
from initlint.settings import Settings


class FreshReads:
    """The serial check's loader: every module read afresh from its file, nothing stored."""

    def __init__(self) -> None:
        self.store = NoStore()

    def load(self, path: Path) -> ModuleFacts:
        return facts_or_empty(facts_for(path, self.store, prefilter=False))

    def load_dependency(self, path: Path, dist: Distribution) -> ModuleFacts:
        return read_dependency(path) or EMPTY


def check_paths(
    paths: Iterable[Path],
    *,
    cwd: Path | None = None,
    settings: Settings | None = None,
    fix_planner: FixPlanner | None = None,
) -> Analysis:
    """Check ``paths`` (default: the working directory) as ``initlint check`` does."""
    # The set-up: the report files, the project's modules and environment, the index.
    scope = find_scope(paths, cwd, settings)
    setup = map_project(scope, project_map)
    loader = FreshReads()
    analysis = build_analysis(setup, loader, cache_locations=False)
    disc, index = scope.disc, analysis.index
    names = {p: module_name_for(p, setup.roots) for p in disc.report}

    # Each report file's kind; the modules of those with classes go in the index first (a
    # report file wins its module name over another file of that name).
    entries: dict[Path, list[Entry]] = {}
    modules: dict[Path, Module] = {}
    for file in disc.report:
        match triage(analysis, facts_for(file, loader.store, prefilter=True)):
            case Unreadable(diag=diag) | Unparsable(diag=diag) | Crashed(diag=diag):
                entries[file] = [Share(diag)]
            case Parsed(facts=facts) if not facts.classes:
                entries[file] = list(comments_of(analysis, file, facts))
            case Parsed(facts=facts):
                modules[file] = admit_module(index, file, names[file], facts)

    # Each module's classes simulated, the rules run, the fixes planned, the findings worded
    # and located.
    for file, mod in modules.items():
        entries[file] = check_module(analysis, analysis.simulator, mod, fix_planner)

    problems = discovery_problems(analysis, disc)
    finish(analysis, problems, [e for f in disc.report for e in entries.get(f, [])], disc.report)
    return analysis

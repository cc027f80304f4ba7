"""A check's set-up, shared by the serial check (``pipeline/run.py``) and the driver: what to
report on (:func:`find_scope`), the project around it (:func:`map_project`), then the index,
simulator and analysis over a loader the caller hands in (:func:`build_analysis`). The driver
starts its fact pass between the first two steps, so that it reads while the project is
walked."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.discovery import Discovery, discover, find_root
from initlint.environment import Environment, ModuleFinder
from initlint.generated import GeneratedCode
from initlint.index.loading import ModuleLoader
from initlint.index.modules import module_name_for
from initlint.index.project import ProjectIndex
from initlint.locate import Locator
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.project import enclosing_function, project_environment, source_roots
from initlint.pipeline.report import file_diag
from initlint.records import dataclass
from initlint.rules.il900_internal import UnreadableFile
from initlint.settings import Settings, load_settings
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator

# The project walk: (root, source roots, settings) -> (the project's Python files, module
# name -> (file, is a package) with the first file winning a name).
ProjectWalk = Callable[
    [Path, list[Path], Settings], tuple[set[str], dict[str, tuple[Path | str, bool]]]
]


@dataclass(frozen=True)
class Scope:
    """What a check reports on: its folders, its settings and the report files."""

    cwd: Path
    root: Path
    settings: Settings
    disc: Discovery


@dataclass(frozen=True)
class SetUp:
    """What the set-up found: the scope, and the project around it."""

    scope: Scope
    roots: list[Path]  # the source roots module names are relative to
    # module name -> (file, is a package); the index this is handed to adds what it admits
    module_paths: dict[str, tuple[Path | str, bool]]
    environment: Environment  # where installed ancestors are looked up


def find_scope(
    paths: Iterable[Path],
    cwd: Path | None,
    settings: Settings | None,
    overrides: Callable[[Settings], Settings] | None = None,
) -> Scope:
    """The report files of ``paths`` (default: the working directory), under the settings
    given or the project's own (then ``overrides``)."""
    cwd = (cwd or Path.cwd()).absolute()
    paths = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    root = find_root(paths[0])
    if settings is None:
        settings = load_settings(root)
    if overrides is not None:
        settings = overrides(settings)
    disc = discover(paths, root, settings.all_excludes, settings.respect_gitignore)
    if not settings.check_templates:
        # Templates of generated code are never run: their findings are not real.
        generated = GeneratedCode()
        disc = replace(disc, report=tuple(p for p in disc.report if not generated.is_template(p)))
    return Scope(cwd, root, settings, disc)


def map_project(scope: Scope, walk: ProjectWalk) -> SetUp:
    """The project's modules, by ``walk`` and for the report files it did not meet
    (excluded, outside the root), and its environment. Raises PythonNotFound."""
    root, settings = scope.root, scope.settings
    roots = source_roots(root, settings)
    walked, module_paths = walk(root, roots, settings)
    for file in scope.disc.report:
        if str(file) not in walked:
            named = module_name_for(file, roots)
            if named is not None and named[0] not in module_paths:
                module_paths[named[0]] = (str(file), named[1])
    environment = project_environment(root, settings, scope.cwd)
    return SetUp(scope, roots, module_paths, environment)


def build_analysis(setup: SetUp, loader: ModuleLoader, *, cache_locations: bool) -> Analysis:
    """The run's index over the project (its modules read by ``loader``), its simulator and
    the analysis holding them. ``cache_locations``: the locator stores what it parses."""
    scope = setup.scope
    root, settings = scope.root, scope.settings
    index = ProjectIndex(setup.module_paths, loader, finder=ModuleFinder(setup.environment))
    locator = Locator(enclosing_function(index), root, cache_locations)
    sim = Simulator(index, CostModel(index, settings.expensive_calls, settings.cheap_calls))
    return Analysis(
        root,
        scope.cwd,
        settings,
        index,
        setup.environment,
        locator,
        sim,
        files=len(scope.disc.report),
    )


def discovery_problems(analysis: Analysis, disc: Discovery) -> list[Diagnostic]:
    """IL901 for each path discovery could not read."""
    return [
        file_diag(analysis, p.path, UnreadableFile.code, p.message, 1, 1) for p in disc.problems
    ]

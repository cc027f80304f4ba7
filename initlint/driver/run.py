"""The check run: settings, discovery, the fact pass streaming into the pipeline's check of
each file, the caches, the report."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from initlint.diagnostics import Diagnostic
from initlint.discovery import Discovery, discover, find_root
from initlint.driver import factpass
from initlint.driver.factpass import FactPass, compute_facts, default_jobs
from initlint.driver.fixes import attach_fixes
from initlint.driver.gctune import age_objects, few_collections
from initlint.driver.results import (
    FixInputs,
    Previous,
    ResultsCache,
    results_key,
    store_fresh_bodies,
)
from initlint.driver.split import check_in_two
from initlint.driver.stream import FactsStream
from initlint.driver.walk import project_map
from initlint.environment import Distribution, ModuleFinder
from initlint.facts.cache import FactsCache
from initlint.facts.load import EMPTY, facts_for
from initlint.facts.model import ModuleFacts
from initlint.generated import GeneratedCode
from initlint.index.project import Module, ProjectIndex, module_name_for
from initlint.locate import Locator
from initlint.pipeline.analysis import Analysis, FixAttacher, FixPlanner
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
    dependency_facts,
    enclosing_function,
    project_environment,
    source_roots,
)
from initlint.pipeline.report import (
    Entry,
    Share,
    comments_of,
    file_diag,
    finish,
)
from initlint.progress import Progress
from initlint.rules import Finding
from initlint.rules.il900_internal import UnreadableFile
from initlint.settings import Settings, load_settings
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.sources import overlay_active

if TYPE_CHECKING:
    from initlint.driver.forkpool import PoolFuture


@few_collections
def analyze(
    paths: Iterable[Path],
    *,
    cwd: Path | None = None,
    settings: Settings | None = None,
    overrides: Callable[[Settings], Settings] | None = None,
    jobs: int = 0,
    use_cache: bool = True,
    fix_planner: FixPlanner | None = None,
    progress: bool | None = None,
    reuse_results: bool = False,
    fixes: FixAttacher | None = None,
) -> Analysis:
    """Run the check pipeline. ``progress``: None draws on stderr only when it is a TTY.

    ``reuse_results``: take a file's diagnostics from the last run while nothing in its
    import closure changed. ``fixes``: attach each fix's edits (JSON, SARIF) before the
    results are stored, so that a reused file's diagnostics come with theirs."""
    cwd = (cwd or Path.cwd()).absolute()
    paths = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    root = find_root(paths[0])
    if settings is None:
        settings = load_settings(root)
    if overrides is not None:
        settings = overrides(settings)
    jobs = jobs or default_jobs()
    disc = discover(paths, root, settings.all_excludes, settings.respect_gitignore)
    generated = GeneratedCode()
    if not settings.check_templates:
        # Templates of generated code are never run: their findings are not real.
        disc = replace(disc, report=tuple(p for p in disc.report if not generated.is_template(p)))
    cache = FactsCache(root, settings.fingerprint(), use_cache)
    chunks: list[PoolFuture] = []
    passes: list[FactPass] = []  # at most one; closed in the end whatever happens

    def start(files: Iterable[Path]) -> None:
        passes.append(
            compute_facts(
                files,
                root,
                settings.fingerprint(),
                use_cache=use_cache,
                jobs=jobs,
                cache=cache,
                chunks=chunks,
            )
        )

    if jobs > 1 and len(disc.report) >= factpass.POOL_THRESHOLD and not cache.exists():
        # Cold: every report file is read, so the pool starts now and reads while this
        # process walks the project and builds the index.
        start(disc.report)
    try:
        return _analyze(
            cwd,
            root,
            settings,
            jobs,
            use_cache,
            fix_planner,
            progress,
            reuse_results,
            fixes,
            disc,
            cache,
            chunks,
            passes,
            start,
        )
    finally:
        for fact_pass in passes:
            fact_pass.close()  # a no-op after a whole pass; else no worker outlives the run


def _analyze(
    cwd: Path,
    root: Path,
    settings: Settings,
    jobs: int,
    use_cache: bool,
    fix_planner: FixPlanner | None,
    progress: bool | None,
    reuse_results: bool,
    fixes: FixAttacher | None,
    disc: Discovery,
    cache: FactsCache,
    chunks: list[PoolFuture],
    passes: list[FactPass],
    start: Callable[[Iterable[Path]], None],
) -> Analysis:
    roots = source_roots(root, settings)
    walked, module_paths = project_map(root, roots, settings, use_cache)
    for file in disc.report:  # a report file the walk did not meet (excluded, outside)
        if str(file) not in walked:
            named = module_name_for(file, roots)
            if named is not None and named[0] not in module_paths:
                module_paths[named[0]] = (str(file), named[1])

    keys: dict[Path, str] = {}  # content hash of each module's cache entry
    environment = project_environment(root, settings, cwd)

    stream: FactsStream | None = None  # this run's fact pass, once started

    def load(path: Path) -> ModuleFacts:
        outcome = stream.wait_for(path) if stream is not None else None
        if outcome is None or outcome.filtered or not outcome.key:  # not read in the pass
            outcome = facts_for(path, cache, prefilter=False)
        if outcome.key:
            keys[path] = outcome.key
        return outcome.facts or EMPTY

    def load_dependency(path: Path, dist: Distribution) -> ModuleFacts:
        facts, key = dependency_facts(path, dist, cache)
        if key:
            keys[path] = key
        return facts

    index = ProjectIndex(
        module_paths, load, finder=ModuleFinder(environment), load_dependency=load_dependency
    )
    # (nothing an editor's buffers yield is stored: each keystroke would add entries)
    locator = Locator(enclosing_function(index), root, use_cache and not overlay_active())
    sim = Simulator(index, CostModel(index, settings.expensive_calls, settings.cheap_calls))
    analysis = Analysis(
        root, cwd, settings, index, environment, locator, sim, files=len(disc.report)
    )
    diags: list[Diagnostic] = []
    for problem in disc.problems:
        diags.append(file_diag(analysis, problem.path, UnreadableFile.code, problem.message, 1, 1))

    # Results with fixes' edits are stored apart: text output's carry none.
    flavour = "+fixes" if fixes is not None else ""
    results = ResultsCache(root, settings.fingerprint() + flavour, use_cache)
    map_key = ""
    if use_cache and not overlay_active():
        map_key = results_key(module_paths, cwd) + environment.fingerprint()
    previous = Previous(results.read(map_key) if reuse_results and use_cache else None)
    order = {p: i for i, p in enumerate(disc.report)}
    partials: dict[Path, list[Entry]] = {}  # report file -> the diagnostics it gives
    todo = [p for p in disc.report if not previous.reuse(p, partials)]

    if not passes:
        start(todo)
    outcomes = passes[0]
    names = {p: module_name_for(p, roots) for p in todo}
    stream = FactsStream(outcomes, todo, chunks)
    report_modules: list[Module] = []
    self_contained: dict[Path, str] = {}  # report files whose results depend on their content only

    def admit(file: Path) -> Module | None:
        """Put a report file's module in the index; None when it has nothing to check."""
        outcome = stream.wait_for(file)
        assert outcome is not None
        match triage(analysis, outcome):
            case Unparsable(diag=diag, key=key):
                partials[file] = [Share(diag)]
                if key:  # IL900: its own content's
                    self_contained[file] = key
                return None
            case Unreadable(diag=diag) | Crashed(diag=diag):
                partials[file] = [Share(diag)]
                return None
            case Parsed(facts=facts, key=key):
                pass
        if not facts.classes:
            if key:
                self_contained[file] = key  # no classes: nothing to check, next time too
            if facts.suppressions:  # they can only suppress nothing
                partials[file] = list(comments_of(analysis, file, facts))
            return None
        if key:
            keys[file] = key
        mod = admit_module(index, file, names[file], facts)
        report_modules.append(mod)
        return mod

    checking = Progress(len(todo), progress, label="initlint: checking")
    found: dict[Path, list[Finding]] = {}  # each checked report file's findings

    def check_admitted(mod: Module) -> None:
        before = len(analysis.findings)
        partials[mod.path] = check_module(analysis, sim, mod, fix_planner)
        found[mod.path] = analysis.findings[before:]

    def check(file: Path) -> None:
        checking.advance()
        mod = admit(file)
        if mod is not None:
            check_admitted(mod)

    def check_again(files: list[Path]) -> None:
        """Check report files whose results were taken from the cache (not in the pass)."""
        for file in files:
            stream.provide(file, facts_for(file, cache, prefilter=False))
            names[file] = module_name_for(file, roots)
            mod = admit(file)
            if mod is not None:
                check_admitted(mod)

    if any(_shadows(module_paths, p, n) for p, n in names.items()):
        # A report file whose module name also names another file must win that name
        # before anything resolves it: every report module goes in first.
        admitted = [admit(file) for file in todo]
        age_objects()
        for mod in admitted:
            checking.advance()
            if mod is not None:
                check_admitted(mod)
    else:
        # Each file is checked as soon as its facts arrive, while the pool reads the rest;
        # a class that needs a file still in the pool waits for it (DESIGN §8).
        # (not with fixes: their checks need every finding in this process)
        split = reuse_results and fixes is None and jobs > 1 and hasattr(os, "fork")
        for pos, file in enumerate(todo):
            rest = todo[pos:]
            if split and len(rest) >= TAIL_SPLIT_MIN and stream.produced():
                stream.finish()
                check_in_two(rest, check, admit, analysis, cache, keys, partials, checking)
                break
            check(file)
    checking.close()
    stream.finish()  # outcomes no file asked for (an early pass) still go into the cache
    inputs: dict[Path, FixInputs] = {}
    if fixes is not None:
        split_fixes = jobs > 1 and hasattr(os, "fork")
        inputs = attach_fixes(
            analysis, fixes, previous, partials, found, check_again, cache, split_fixes
        )

    cache.flush()  # SQLite writes the last batch while the results are stored
    if use_cache and not overlay_active():  # an editor's buffers are not the files' content
        checked = {m.path for m in report_modules}
        previous.store(results, map_key, index, keys, checked, partials, self_contained, inputs)
    ordered = [x for p in sorted(partials, key=order.__getitem__) for x in partials[p]]
    finish(analysis, diags, ordered, disc.report)
    if not reuse_results:
        # With per-file results cached, a later run re-simulates only what an edit reaches,
        # and reads those few bodies again: cheaper than rewriting every module whose body
        # this run read (~0.06 s of a cold run on vLLM's layers).
        store_fresh_bodies(index, cache, keys)
    cache.close()  # waits for the last writes (a later load reopens it)
    return analysis


TAIL_SPLIT_MIN = 16  # files left to check below which a second process does not pay


def _shadows(module_paths: dict[str, tuple[Path | str, bool]], path: Path, named: object) -> bool:
    """Whether the report file ``path`` must take its module name from another file."""
    if not isinstance(named, tuple):
        return False
    entry = module_paths.get(named[0])
    return entry is not None and str(entry[0]) != str(path)

"""The check run: the set-up, the fact pass streaming into the pipeline's check of each
file, the caches, the report."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from initlint.diagnostics import Diagnostic
from initlint.driver import factpass
from initlint.driver.factpass import FactPass, compute_facts, default_jobs
from initlint.driver.fixes import attach_fixes
from initlint.driver.gctune import age_objects, no_collections
from initlint.driver.loading import RunLoader
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
from initlint.facts.cache import FactsCache
from initlint.facts.load import facts_for
from initlint.index.modules import module_name_for
from initlint.index.records import Module
from initlint.pipeline.analysis import Analysis, FindingKey, FixAttacher, FixPlanner
from initlint.pipeline.check import (
    Crashed,
    Parsed,
    Unparsable,
    Unreadable,
    admit_module,
    check_module,
    triage,
)
from initlint.pipeline.report import (
    Entry,
    Share,
    comments_of,
    finish,
)
from initlint.pipeline.setup import (
    Scope,
    SetUp,
    build_analysis,
    discovery_problems,
    find_scope,
    map_project,
)
from initlint.progress import Progress
from initlint.records import dataclass
from initlint.settings import Settings
from initlint.sources import overlay_active

if TYPE_CHECKING:
    from concurrent.futures import Future


@no_collections
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
    scope = find_scope(paths, cwd, settings, overrides)
    jobs = jobs or default_jobs()
    request = _Request(scope, jobs, use_cache, fix_planner, progress, reuse_results)
    root, settings = scope.root, scope.settings
    facts = _FactPasses(request, FactsCache(root, settings.fingerprint(), use_cache))
    report = scope.disc.report
    if jobs > 1 and len(report) >= factpass.POOL_THRESHOLD and not facts.cache.exists():
        # Cold: every report file is read, so the pool starts now and reads while this
        # process walks the project and builds the index.
        facts.start(report)
    try:
        return _CheckRun(request, map_project(scope, project_map), facts, fixes).run()
    finally:
        facts.close()


@dataclass(frozen=True)
class _Request:
    """What the caller asked of one run (see :func:`analyze`)."""

    scope: Scope
    jobs: int
    use_cache: bool
    fix_planner: FixPlanner | None
    progress: bool | None
    reuse_results: bool


class _FactPasses:
    """The run's fact pass: at most one, started early (a cold run: before the walk) or
    once the files to check are known, and closed in the end whatever happens."""

    def __init__(self, request: _Request, cache: FactsCache) -> None:
        self.request = request
        self.cache = cache
        self.chunks: list[Future[object]] = []  # the pool's futures, once it started
        self.passes: list[FactPass] = []

    def start(self, files: Iterable[Path]) -> None:
        req = self.request
        self.passes.append(
            compute_facts(
                files,
                req.scope.root,
                req.scope.settings.fingerprint(),
                use_cache=req.use_cache,
                jobs=req.jobs,
                cache=self.cache,
                chunks=self.chunks,
            )
        )

    def close(self) -> None:
        for fact_pass in self.passes:
            fact_pass.close()  # a no-op after a whole pass; else no worker outlives the run


class _CheckRun:
    """One check run, from the set-up to the stored results: the analysis over the run's
    loader, the fact stream, and what each report file gave. Its methods are the steps of
    the check loop; :meth:`run` is the loop and the end."""

    def __init__(
        self, request: _Request, setup: SetUp, facts: _FactPasses, fixes: FixAttacher | None
    ) -> None:
        self.request = request
        self.disc = disc = setup.scope.disc
        self.fixes = fixes
        self.cache = facts.cache
        root, settings, cwd = setup.scope.root, setup.scope.settings, setup.scope.cwd
        use_cache = request.use_cache
        self.roots = setup.roots
        self.module_paths = module_paths = setup.module_paths
        self.loader = loader = RunLoader(self.cache)
        self.keys = loader.keys  # content hash of each module's cache entry
        # (nothing an editor's buffers yield is stored: each keystroke would add entries)
        cache_locations = use_cache and not overlay_active()
        self.analysis = analysis = build_analysis(setup, loader, cache_locations=cache_locations)
        self.index, self.sim = analysis.index, analysis.simulator
        self.diags: list[Diagnostic] = discovery_problems(analysis, disc)

        # Results with fixes' edits are stored apart: text output's carry none.
        flavour = "+fixes" if fixes is not None else ""
        self.results = ResultsCache(root, settings.fingerprint() + flavour, use_cache)
        self.map_key = ""
        if use_cache and not overlay_active():
            self.map_key = results_key(module_paths, cwd) + setup.environment.fingerprint()
        reuse = request.reuse_results and use_cache
        self.previous = Previous(self.results.read(self.map_key) if reuse else None)
        self.order = {p: i for i, p in enumerate(disc.report)}
        self.partials: dict[Path, list[Entry]] = {}  # report file -> the diagnostics it gives
        self.todo = [p for p in disc.report if not self.previous.reuse(p, self.partials)]

        if not facts.passes:
            facts.start(self.todo)
        self.names = {p: module_name_for(p, self.roots) for p in self.todo}
        loader.stream = FactsStream(facts.passes[0], self.todo, facts.chunks)
        self.report_modules: list[Module] = []
        # report files whose results depend on their content only
        self.self_contained: dict[Path, str] = {}
        self.checking = Progress(len(self.todo), request.progress, label="initlint: checking")
        # each checked report file's findings, as the fix checks know them (with fixes only)
        self.found: dict[Path, frozenset[FindingKey]] = {}

    @property
    def stream(self) -> FactsStream:
        stream = self.loader.stream
        assert stream is not None  # (set before anything is checked)
        return stream

    # -- the steps of the check loop -------------------------------------------------------
    def admit(self, file: Path) -> Module | None:
        """Put a report file's module in the index; None when it has nothing to check."""
        outcome = self.stream.wait_for(file)
        assert outcome is not None  # (the pass was started on every file to check)
        analysis, partials = self.analysis, self.partials
        match triage(analysis, outcome):
            case Unparsable(diag=diag, key=key):
                partials[file] = [Share(diag)]
                if key:  # IL900: its own content's
                    self.self_contained[file] = key
                return None
            case Unreadable(diag=diag) | Crashed(diag=diag):
                partials[file] = [Share(diag)]
                return None
            case Parsed(facts=facts, key=key):
                pass
        if not facts.classes:
            if key:
                self.self_contained[file] = key  # no classes: nothing to check, next time too
            if facts.suppressions:  # they can only suppress nothing
                partials[file] = list(comments_of(analysis, file, facts))
            return None
        if key:
            self.keys[file] = key
        mod = admit_module(self.index, file, self.names[file], facts)
        self.report_modules.append(mod)
        return mod

    def check_admitted(self, mod: Module) -> None:
        analysis = self.analysis
        before = len(analysis.findings)
        self.partials[mod.path] = check_module(analysis, self.sim, mod, self.request.fix_planner)
        if self.fixes is not None:
            self.found[mod.path] = self.fixes.keys(analysis.findings[before:])

    def check(self, file: Path) -> None:
        self.checking.advance()
        mod = self.admit(file)
        if mod is not None:
            self.check_admitted(mod)

    def check_again(self, files: list[Path]) -> None:
        """Check report files whose results were taken from the cache (not in the pass)."""
        for file in files:
            self.stream.provide(file, facts_for(file, self.cache, prefilter=False))
            self.names[file] = module_name_for(file, self.roots)
            mod = self.admit(file)
            if mod is not None:
                self.check_admitted(mod)

    # -- the run ---------------------------------------------------------------------------
    def run(self) -> Analysis:
        request, analysis, cache, todo = self.request, self.analysis, self.cache, self.todo
        if any(_shadows(self.module_paths, p, n) for p, n in self.names.items()):
            # A report file whose module name also names another file must win that name
            # before anything resolves it: every report module goes in first.
            admitted = [self.admit(file) for file in todo]
            age_objects()
            for mod in admitted:
                self.checking.advance()
                if mod is not None:
                    self.check_admitted(mod)
        else:
            # Each file is checked as soon as its facts arrive, while the pool reads the
            # rest; a class that needs a file still in the pool waits for it.
            # Once the pool is done, a forked copy shares what is left, from its back end (with
            # fixes, the copy's files that offer one are checked here again: check_in_two).
            split = request.reuse_results and request.jobs > 1 and hasattr(os, "fork")
            for pos, file in enumerate(todo):
                rest = todo[pos:]
                if split and len(rest) >= TAIL_SPLIT_MIN and self.stream.produced():
                    self.stream.finish()
                    check_in_two(rest, self, self.fixes is not None)
                    break
                self.check(file)
        self.checking.close()
        self.stream.finish()  # outcomes no file asked for (an early pass) still go in the cache
        inputs: dict[Path, FixInputs] = {}
        if self.fixes is not None:
            split_fixes = request.jobs > 1 and hasattr(os, "fork")
            inputs = attach_fixes(
                analysis,
                self.fixes,
                self.previous,
                self.partials,
                self.found,
                self.check_again,
                cache,
                split_fixes,
            )

        cache.flush()  # SQLite writes the last batch while the results are stored
        if request.use_cache and not overlay_active():  # an editor's buffers are not the files
            checked = {m.path for m in self.report_modules}
            self.previous.store(
                self.results,
                self.map_key,
                self.index,
                self.keys,
                checked,
                self.partials,
                self.self_contained,
                inputs,
            )
        order = self.order
        ordered = [
            x for p in sorted(self.partials, key=order.__getitem__) for x in self.partials[p]
        ]
        finish(analysis, self.diags, ordered, self.disc.report)
        # With per-file results cached, a later run re-simulates only what an edit reaches:
        # rewriting every module whose body this run read would cost a cold run more (~0.05
        # s on vLLM's layers, 70 modules) than it saves. A run that read bodies of a few
        # modules only (a warm one) stores them: the next edit's run finds them read.
        most = FEW_FRESH if request.reuse_results else None
        store_fresh_bodies(self.index, cache, self.keys, most)
        cache.close()  # waits for the last writes (a later load reopens it)
        return analysis


TAIL_SPLIT_MIN = 16  # files left to check below which a second process does not pay
FEW_FRESH = 16  # modules with bodies read afresh that a run reusing results still stores


def _shadows(module_paths: dict[str, tuple[Path | str, bool]], path: Path, named: object) -> bool:
    """Whether the report file ``path`` must take its module name from another file."""
    if not isinstance(named, tuple):
        return False
    entry = module_paths.get(named[0])
    return entry is not None and str(entry[0]) != str(path)

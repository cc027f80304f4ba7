"""The check pipeline: discover -> facts -> index -> simulate -> rules -> diagnostics."""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import pickle
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

from initlint import __version__
from initlint.cache import (
    CACHE_DIR,
    BlobCache,
    FactsCache,
    ResultsCache,
    StoredResults,
    content_key,
    package_fingerprint,
    pickle_facts,
    unpickle_facts,
)
from initlint.diagnostics import Diagnostic, Fix, Related
from initlint.discovery import Discovery, discover, find_root, walk_python_paths
from initlint.environment import Distribution, Environment, ModuleFinder, find_environment
from initlint.facts import runner
from initlint.facts.extract import BodySyntaxError, extract_facts
from initlint.facts.model import ModuleFacts, Span, has_fresh_bodies
from initlint.facts.runner import (
    EMPTY,
    FactPass,
    FactsOutcome,
    compute_facts,
    default_jobs,
    describe,
    facts_for,
)
from initlint.generated import GeneratedCode
from initlint.index.deps import ImportGraph
from initlint.index.project import ClassInfo, Module, ProjectIndex, module_name_for
from initlint.locate import Locator
from initlint.progress import Progress
from initlint.rules import REGISTRY, Finding, select_codes
from initlint.rules.repeats import find_disabled, find_repeats
from initlint.settings import Settings, load_settings, severity_shown
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.sources import UnreadableError, decode, is_overlaid, overlay_active, read_bytes
from initlint.suppressions import unused

if TYPE_CHECKING:
    from initlint.facts.forkpool import PoolFuture


@dataclass
class Analysis:
    """Everything one run learned; the renderer and the fixer both read it."""

    root: Path
    cwd: Path
    settings: Settings
    index: ProjectIndex
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    internal_errors: int = 0
    locator: Locator | None = None
    simulator: Simulator | None = None
    generated: GeneratedCode = field(default_factory=GeneratedCode)
    plans: dict[Diagnostic, object] = field(default_factory=dict)
    environment: Environment | None = None  # where installed ancestors were looked up
    # (path, line, message) of each suppression comment that suppressed nothing
    unused_suppressions: list[tuple[str, int, str]] = field(default_factory=list)

    def display(self, path: Path) -> str:
        return display_path(path, self.cwd)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd) if path.is_absolute() else path.as_posix()


# A fix and its plan, or why there is no fix ("" when there is nothing to say).
FixPlanner = Callable[["Analysis", Finding], tuple[Fix, object] | str | None]


class FixAttacher(Protocol):
    """Renders and checks the fix plans of a run's fresh diagnostics (for JSON and SARIF),
    so that the edits are stored with the per-file results (``initlint.fix.attach``)."""

    def keys(self, findings: list[Finding]) -> frozenset[object]:
        """What ``findings`` are to a later check of fixes (stored with their file)."""
        ...

    def edited(self, analysis: Analysis, diag: Diagnostic) -> frozenset[Path]:
        """The files ``diag``'s fix plan edits (empty when it has none)."""
        ...

    def attach(
        self, analysis: Analysis, diags: list[Diagnostic], known: frozenset[object]
    ) -> dict[Diagnostic, Diagnostic]:
        """Each of ``diags`` with its fix's edits, or with its fix withdrawn. ``known``: the
        findings of the report files whose results this run took from the cache."""
        ...


P = ParamSpec("P")
R = TypeVar("R")


def _few_collections(fn: Callable[P, R]) -> Callable[P, R]:
    """Run with rare garbage collections. A run allocates a million long-lived objects (the
    facts) and few cycles; every collection of a young generation walked all of them (a third
    of a warm run, and a second-long collection just after it)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        old = gc.get_threshold()
        gc.set_threshold(max(old[0], 50_000), max(old[1], 50), max(old[2], 1_000))
        try:
            return fn(*args, **kwargs)
        finally:
            _age_objects()
            gc.set_threshold(*old)

    return run


def _age_objects() -> None:
    """Move every tracked object to the oldest generation without walking it (a freeze and
    an unfreeze are list moves): what is alive now is long-lived, young collections skip it."""
    gc.freeze()
    gc.unfreeze()


@_few_collections
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

    if jobs > 1 and len(disc.report) >= runner.POOL_THRESHOLD and not cache.exists():
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
    roots = _source_roots(root, settings)
    walked, module_paths = _project_map(root, roots, settings, use_cache)
    for file in disc.report:  # a report file the walk did not meet (excluded, outside)
        if str(file) not in walked:
            named = module_name_for(file, roots)
            if named is not None and named[0] not in module_paths:
                module_paths[named[0]] = (str(file), named[1])

    keys: dict[Path, str] = {}  # content hash of each module's cache entry
    environment = project_environment(root, settings, cwd)

    stream: _FactsStream | None = None  # this run's fact pass, once started

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
    analysis = Analysis(root, cwd, settings, index, files=len(disc.report))
    analysis.environment = environment
    # (nothing an editor's buffers yield is stored: each keystroke would add entries)
    locator = Locator(_enclosing(index), root, use_cache and not overlay_active())
    analysis.locator = locator
    diags: list[Diagnostic] = []
    for problem in disc.problems:
        diags.append(_file_diag(analysis, problem.path, "IL901", problem.message, 1, 1))

    # Results with fixes' edits are stored apart: text output's carry none.
    flavour = "+fixes" if fixes is not None else ""
    results = ResultsCache(root, settings.fingerprint() + flavour, use_cache)
    map_key = ""
    if use_cache and not overlay_active():
        map_key = _results_key(module_paths, cwd) + environment.fingerprint()
    previous = _Previous(results.read(map_key) if reuse_results and use_cache else None)
    order = {p: i for i, p in enumerate(disc.report)}
    partials: dict[Path, list[_Entry]] = {}  # report file -> the diagnostics it gives
    todo = [p for p in disc.report if not previous.reuse(p, partials)]

    if not passes:
        start(todo)
    outcomes = passes[0]
    names = {p: module_name_for(p, roots) for p in todo}
    stream = _FactsStream(outcomes, todo, chunks)
    cost = CostModel(index, settings.expensive_calls, settings.cheap_calls)
    sim = Simulator(index, cost)
    analysis.simulator = sim
    report_modules: list[Module] = []
    lone: dict[Path, str] = {}  # report files whose results depend on their content only

    def admit(file: Path) -> Module | None:
        """Put a report file's module in the index; None when it has nothing to check."""
        outcome = stream.wait_for(file)
        assert outcome is not None
        diag = _outcome_diag(analysis, outcome)
        if diag is not None:
            partials[file] = [_Partial(diag)]
            if outcome.facts is not None and outcome.key:  # IL900: its own content's
                lone[file] = outcome.key
            return None
        assert outcome.facts is not None
        if not outcome.facts.classes:
            if outcome.key:
                lone[file] = outcome.key  # no classes: nothing to check, next time too
            if outcome.facts.suppressions:  # they can only suppress nothing
                partials[file] = list(_comments(analysis, file, outcome.facts))
            return None
        if outcome.key:
            keys[file] = outcome.key
        named = names[file]
        name = named[0] if named else f"<file>{file}"
        is_pkg = bool(named and named[1])
        mod = index.modules.get(name)
        if mod is None or mod.path != file:
            mod = index.add_module(name, file, is_pkg, outcome.facts)
        report_modules.append(mod)
        return mod

    checking = Progress(len(todo), progress, label="initlint: checking")
    found: dict[Path, list[Finding]] = {}  # each checked report file's findings

    def check_module(mod: Module) -> None:
        before = len(analysis.findings)
        partials[mod.path] = _check_module(analysis, sim, mod, fix_planner)
        found[mod.path] = analysis.findings[before:]

    def check(file: Path) -> None:
        checking.advance()
        mod = admit(file)
        if mod is not None:
            check_module(mod)

    def check_again(files: list[Path]) -> None:
        """Check report files whose results were taken from the cache (not in the pass)."""
        for file in files:
            stream.provide(file, facts_for(file, cache, prefilter=False))
            names[file] = module_name_for(file, roots)
            mod = admit(file)
            if mod is not None:
                check_module(mod)

    if any(_shadows(module_paths, p, n) for p, n in names.items()):
        # A report file whose module name also names another file must win that name
        # before anything resolves it: every report module goes in first.
        admitted = [admit(file) for file in todo]
        _age_objects()
        for mod in admitted:
            checking.advance()
            if mod is not None:
                check_module(mod)
    else:
        # Each file is checked as soon as its facts arrive, while the pool reads the rest;
        # a class that needs a file still in the pool waits for it (DESIGN §8).
        # (not with fixes: their checks need every finding in this process)
        split = reuse_results and fixes is None and jobs > 1 and hasattr(os, "fork")
        for pos, file in enumerate(todo):
            rest = todo[pos:]
            if split and len(rest) >= TAIL_SPLIT_MIN and stream.produced():
                stream.finish()
                _check_in_two(rest, check, admit, analysis, cache, keys, partials, checking)
                break
            check(file)
    checking.close()
    stream.finish()  # outcomes no file asked for (an early pass) still go into the cache
    inputs: dict[Path, _FixInputs] = {}
    if fixes is not None:
        split_fixes = jobs > 1 and hasattr(os, "fork")
        inputs = _attach_fixes(
            analysis, fixes, previous, partials, found, check_again, cache, split_fixes
        )

    cache.flush()  # SQLite writes the last batch while the results are stored
    if use_cache and not overlay_active():  # an editor's buffers are not the files' content
        checked = {m.path for m in report_modules}
        previous.store(results, map_key, index, keys, checked, partials, lone, inputs)
    shown = {analysis.display(p) for p in disc.report}
    ordered = [x for p in sorted(partials, key=order.__getitem__) for x in partials[p]]
    shares = [x for x in ordered if isinstance(x, _Partial)]
    analysis.unused_suppressions = unused(
        ((c.path, c.line, c.text) for c in ordered if isinstance(c, _Comment)),
        ((x.diag.path, x.suppressed_line, x.diag.code) for x in shares if x.suppressed_line),
    )
    shares = [x for x in shares if not x.suppressed_line]
    diags.extend(_merge(analysis, [x for x in shares if x.site is None or x.site[1] in shown]))
    analysis.internal_errors += sum(d.code == "IL902" for d in diags)
    enabled = select_codes((*settings.select, *settings.extend_select), settings.ignore)
    # IL902 is always shown: the run exits 2 for it, so no selection may hide it.
    diags = [
        d
        for d in diags
        if d.code == "IL902"
        or (
            d.code in enabled
            and severity_shown(d.severity, settings.min_severity)
            and not _file_ignored(analysis, d)
        )
    ]
    analysis.diagnostics = sorted(diags, key=Diagnostic.sort_key)
    if not reuse_results:
        # With per-file results cached, a later run re-simulates only what an edit reaches,
        # and reads those few bodies again: cheaper than rewriting every module whose body
        # this run read (~0.06 s of a cold run on vLLM's layers).
        _store_fresh_bodies(index, cache, keys)
    cache.close()  # waits for the last writes (a later load reopens it)
    return analysis


TAIL_SPLIT_MIN = 16  # files left to check below which a second process does not pay


def _check_in_two(
    rest: list[Path],
    check: Callable[[Path], None],
    admit: Callable[[Path], Module | None],
    analysis: Analysis,
    cache: FactsCache,
    keys: dict[Path, str],
    partials: dict[Path, list[_Entry]],
    checking: Progress,
) -> None:
    """Check ``rest`` with a forked copy of this process taking the second half.

    Once the pool has read every file, its workers sit idle while this process checks what
    is left alone. The copy starts with everything loaded so far and sends back what the
    check loop would have recorded for its half: each file's diagnostics, and each module
    it loaded (facts and content key) for the results cache and the facts cache. Text and
    GitHub output only (``reuse_results``): the copy's findings and fix plans stay there.
    If the copy fails in any way, this process checks its half itself.
    """
    half = len(rest) // 2
    mine, theirs = rest[:half], rest[half:]
    index = analysis.index
    before = set(index.modules)
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        for file in rest:
            check(file)
        return
    if pid == 0:  # the copy: no cache writes (its file handles belong to the parent)
        status = 1
        try:
            os.close(read_fd)
            cache.enabled = False
            checking.enabled = False
            for file in theirs:
                check(file)
            own = set(theirs)  # the parent has these files' facts in its own stream
            loaded = [
                (
                    name,
                    str(m.path),
                    m.is_package,
                    keys.get(m.path, ""),
                    pickle_facts(m.facts),
                    m.dist,
                )
                for name, m in index.modules.items()
                if name not in before and m.path not in own
            ]
            sent = {str(f): partials.get(f) for f in theirs}
            data = pickle.dumps((sent, loaded), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    for file in mine:
        check(file)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        if status != 0:
            raise ValueError(f"checking copy ended with status {status}")
        sent, loaded = pickle.loads(data)
    except Exception:  # noqa: BLE001 - the copy failed: check its half here
        for file in theirs:
            check(file)
        return
    for name, path, is_pkg, key, blob, dist in loaded:
        if name in index.modules or blob is None:
            continue
        facts = unpickle_facts(blob)
        index.modules[name] = Module(name, Path(path), is_pkg, facts, dist)
        if dist is not None:
            index.dependency_paths.add(path)
        if key:
            keys[Path(path)] = key
            cache.put_blob(key, blob)
    for file in theirs:
        checking.advance()
        admit(file)  # what the copy admitted, admitted here too (the results cache needs it)
        got = sent.get(str(file))
        if got is not None:
            partials[file] = got


def _shadows(module_paths: dict[str, tuple[Path | str, bool]], path: Path, named: object) -> bool:
    """Whether the report file ``path`` must take its module name from another file."""
    if not isinstance(named, tuple):
        return False
    entry = module_paths.get(named[0])
    return entry is not None and str(entry[0]) != str(path)


class _FactsStream:
    """The fact pass's outcomes, in the order they come, with a wait for one file's: the
    check loop and the index's loads share the one pass, and nothing is read twice."""

    def __init__(
        self, outcomes: Iterator[FactsOutcome], paths: Iterable[Path], chunks: list[PoolFuture]
    ) -> None:
        self._outcomes = outcomes
        self._expected = set(paths)
        self._got: dict[Path, FactsOutcome] = {}
        self._chunks = chunks  # the pool's, once it started

    def produced(self) -> bool:
        """Whether a pool ran and every chunk is done: the rest of the pass is at hand."""
        return bool(self._chunks) and all(f.done() for f in self._chunks)

    def wait_for(self, path: Path) -> FactsOutcome | None:
        """``path``'s outcome, waiting for it if the pass has it still to come; None when
        ``path`` is not in the pass."""
        got = self._got.get(path)
        if got is not None or path not in self._expected:
            return got
        for outcome in self._outcomes:
            self._got[outcome.path] = outcome
            if len(self._got) % 64 == 0:
                _age_objects()  # what arrived is long-lived: young collections skip it
            if outcome.path == path:
                return outcome
        return self._got.get(path)  # the pass ended without it (it never does)

    def finish(self) -> None:
        """Run the pass to its end: its pool (and its cache use) end with it."""
        for outcome in self._outcomes:
            self._got[outcome.path] = outcome

    def provide(self, path: Path, outcome: FactsOutcome) -> None:
        """An outcome read outside the pass (a file the pass was not given)."""
        self._got.setdefault(path, outcome)


@dataclass(frozen=True)
class _Partial:
    """One report file's share of a diagnostic. Shares of one statement from several files
    (a mixin's, say) merge into one diagnostic."""

    diag: Diagnostic
    site: tuple[str, str, int, int] | None = None  # (code, site path, line, col) to merge on
    owner: str = ""  # the class whose code the statement is in
    message_tail: str = ""  # the fix note, after the class list
    suppressed_line: int = 0  # the line of the comment that suppresses it (0: shown)


@dataclass(frozen=True)
class _Comment:
    """One of initlint's suppression comments in a report file (whether it suppresses
    anything is known once every report file's shares are in)."""

    path: str  # as displayed
    line: int
    text: str


_Entry = _Partial | _Comment


def _comments(analysis: Analysis, path: Path, facts: ModuleFacts) -> Iterator[_Comment]:
    shown = analysis.display(path)
    for line, text in facts.suppressions:
        yield _Comment(shown, line, text)


@dataclass(frozen=True)
class _FixInputs:
    """Stored with a report file's results when fixes are attached: its findings (the checks
    of other files' fixes need them) and the files its fixes edit (a change that can reach
    one of them checks its fixes again)."""

    keys: frozenset[object]
    edits: frozenset[str]
    # The files of every class in the MROs of the file's classes (what a fix's check asks
    # of this file when it has no finding: whether a class of it sits under the edit).
    mro: frozenset[str] = frozenset()


def _attach_fixes(
    analysis: Analysis,
    fixes: FixAttacher,
    previous: _Previous,
    partials: dict[Path, list[_Entry]],
    found: dict[Path, list[Finding]],
    check_again: Callable[[list[Path]], None],
    cache: FactsCache,
    split: bool,
) -> dict[Path, _FixInputs]:
    """Give the fresh diagnostics their fixes' edits; check only the fixes whose inputs may
    have changed.

    A fix's check (``fix/verify.py``) reads the files it edits, simulates again the classes
    with an MRO entry in an edited file, and those with a finding whose construction reads
    one. Only the files that changed, or were checked again here, can have changed what
    their classes are to the check: for each of them, the files its classes' MROs held
    (before and now), or, when it had or has a finding, its whole import closure (what its
    construction can read). A file taken from the cache is checked again when one of its
    fixes edits such a file. Before the checks, the files whose last closure held an edited
    file are loaded, as a run over all of them would have them; the findings of the files
    taken from the cache count as known."""
    index = analysis.index
    stored = previous.fix_inputs()
    reused = {p: x for p, x in stored.items() if Path(p) not in found}
    if reused and found:
        reach = _reach_of_changes(
            index, found, previous.fix_inputs(valid_only=False), previous.changed_paths()
        )
        check_again(sorted(Path(p) for p, x in reused.items() if x.edits & reach))
        reused = {p: x for p, x in reused.items() if Path(p) not in found}
    fresh = [
        part.diag
        for p in found
        for part in partials[p]
        if isinstance(part, _Partial) and not part.suppressed_line and part.diag.fix is not None
    ]
    edited: set[Path] = set()
    for d in fresh:
        edited |= fixes.edited(analysis, d)
    for name in previous.importers({str(p) for p in edited}, index.module_paths):
        index.module(name)
    known: set[object] = set()
    for x in reused.values():
        known |= x.keys
    attached: dict[Diagnostic, Diagnostic] = {}
    if fresh:
        attach = functools.partial(fixes.attach, analysis, known=frozenset(known))
        if split and len(fresh) >= ATTACH_SPLIT_MIN:
            # Files edited by the same fixes stay in one half: their parses are shared.
            fresh.sort(key=lambda d: sorted(str(p) for p in fixes.edited(analysis, d)))
            attached = _attach_in_two(fresh, attach, cache)
        else:
            attached = attach(fresh)
    out: dict[Path, _FixInputs] = {}
    by_path = {m.path: m for m in index.modules.values()}
    for path in found:
        parts: list[_Entry] = []
        touched: set[Path] = set()
        for part in partials[path]:
            if not isinstance(part, _Partial):
                parts.append(part)
                continue
            new = attached.get(part.diag)
            if new is not None:
                touched |= fixes.edited(analysis, part.diag)
                plan = analysis.plans.pop(part.diag, None)
                if new.fix is not None:
                    if plan is not None:
                        analysis.plans[new] = plan
                else:
                    part = replace(part, message_tail=" [no fix]")
                part = replace(part, diag=new)
            parts.append(part)
        partials[path] = parts
        out[path] = _FixInputs(
            fixes.keys(found[path]),
            frozenset(str(t) for t in touched),
            _mro_files(index, by_path.get(path)),
        )
    return out


ATTACH_SPLIT_MIN = 8  # fixes to check below which a second process does not pay


def _attach_in_two(
    diags: list[Diagnostic],
    attach: Callable[[list[Diagnostic]], dict[Diagnostic, Diagnostic]],
    cache: FactsCache,
) -> dict[Diagnostic, Diagnostic]:
    """``attach(diags)``, with a forked copy of this process checking the second half: each
    fix's check and edits depend on its plan and the sources only, and the copy sends back
    plain diagnostics. If the copy fails in any way, this process does its half itself."""
    half = len(diags) // 2
    mine, theirs = diags[:half], diags[half:]
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return attach(diags)
    if pid == 0:  # the copy: no cache writes (its file handles belong to the parent)
        status = 1
        try:
            os.close(read_fd)
            cache.enabled = False
            got = attach(theirs)
            data = pickle.dumps([got.get(d) for d in theirs], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    done = attach(mine)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        if status != 0:
            raise ValueError(f"fix-checking copy ended with status {status}")
        sent = pickle.loads(data)
        if len(sent) != len(theirs):
            raise ValueError("fix-checking copy sent a short answer")
    except Exception:  # noqa: BLE001 - the copy failed: check its half here
        done.update(attach(theirs))
        return done
    done.update({d: new for d, new in zip(theirs, sent, strict=True) if new is not None})
    return done


def _mro_files(index: ProjectIndex, mod: Module | None) -> frozenset[str]:
    """The files of the project classes in the MROs of the classes of ``mod``."""
    out: set[str] = set()
    if mod is not None:
        for info in index.classes_of(mod):
            for qual in index.mro(info.qualname).classes:
                known = index.class_info(qual)
                if known is not None:
                    out.add(str(known.module.path))
    return frozenset(out)


def _reach_of_changes(
    index: ProjectIndex,
    found: dict[Path, list[Finding]],
    before: dict[str, _FixInputs],
    changed: set[str],
) -> set[str]:
    """Files whose fixes' checks the changes of this run may alter (see _attach_fixes)."""
    reach: set[str] = set()
    wide: set[str] = set()  # files whose whole closure counts
    by_path = {str(m.path): m for m in index.modules.values()}
    for path in {str(p) for p in found} | changed:
        old = before.get(path)
        now = found.get(Path(path))
        if old is None or old.keys or now is None or now:
            wide.add(path)  # had or has a finding, or is not known as a checked file
            continue
        reach |= old.mro | _mro_files(index, by_path.get(path))
    return reach | (_closure_paths(index, wide) if wide else set())


def _closure_paths(index: ProjectIndex, paths: set[str]) -> set[str]:
    """The files in the import closures of the loaded modules at ``paths``."""
    names = list(index.modules)
    bits = {name: i for i, name in enumerate(names)}
    masks = ImportGraph(index.modules).closure_masks(bits)
    mask = 0
    for name, mod in index.modules.items():
        if str(mod.path) in paths:
            mask |= masks.get(name, 0)
    return {str(index.modules[names[i]].path) for i in range(len(names)) if mask >> i & 1}


def _check_module(
    analysis: Analysis, sim: Simulator, mod: Module, fix_planner: FixPlanner | None
) -> list[_Entry]:
    """The diagnostics one report file's classes give (their sites may lie elsewhere), the
    suppressed ones marked, and the file's suppression comments."""
    out: list[_Entry] = list(_comments(analysis, mod.path, mod.facts))
    findings: list[Finding] = []
    for info in analysis.index.classes_of(mod):
        try:
            findings.extend(_check_class(sim, info))
        except BodySyntaxError as exc:  # a body the skeleton pass skipped: IL900
            diag = _body_syntax(analysis, exc)
            if diag is not None and all(not isinstance(p, _Partial) or diag != p.diag for p in out):
                out.append(_Partial(diag))
        except RecursionError:
            out.append(_Partial(_internal(analysis, info, "RecursionError: hierarchy too deep")))
        except Exception as exc:  # noqa: BLE001 - per-class isolation, reported as IL902
            out.append(_Partial(_internal(analysis, info, describe(exc))))
    # A repeat whose statement lies in an installed dependency is the dependency's own:
    # never reported (DESIGN §2), whichever project class reached it.
    findings = [f for f in findings if not analysis.index.is_dependency(_finding_site(f)[0])]
    analysis.findings.extend(findings)
    for group in _group(findings):
        try:
            share = _to_partial(analysis, group, fix_planner)
        except Exception as exc:  # noqa: BLE001
            out.append(_Partial(_internal(analysis, group[0].sim.cls, describe(exc))))
            continue
        # A suppression comment sits at the site, which is in this file's closure: decided
        # here, it is cached with the rest (IL9xx are never suppressed).
        assert analysis.locator is not None
        line = analysis.locator.suppressing_line(share.diag, analysis.cwd)
        out.append(share if line is None else replace(share, suppressed_line=line))
    return out


def _merge(analysis: Analysis, partials: list[_Partial]) -> list[Diagnostic]:
    """One diagnostic per site, in the order of the report files."""
    sites: dict[object, list[_Partial]] = {}
    for p in partials:
        sites.setdefault(p.site if p.site is not None else p.diag, []).append(p)
    out = []
    for group in sites.values():
        first = group[0]
        d = first.diag
        if first.site is not None:
            classes = tuple(sorted({c for p in group for c in p.diag.classes}))
            message = d.message
            if len(classes) > 1 or (classes and classes[0] != first.owner):
                message += f" (in {', '.join(c.rsplit('.', 1)[-1] for c in classes)})"
            possible = any(p.diag.confidence == "possible" for p in group)
            error = any(p.diag.severity == "error" for p in group)
            d = replace(
                d,
                message=message + first.message_tail,
                classes=classes,
                confidence="possible" if possible else "definite",
                severity="error" if error else "warning",
            )
        plan = analysis.plans.pop(first.diag, None) if first.site is not None else None
        if plan is not None:
            analysis.plans[d] = plan
        out.append(d)
    return out


def _results_key(module_paths: dict[str, tuple[Path | str, bool]], cwd: Path) -> str:
    """The module map (a new, moved or deleted module can change any resolution) and the
    folder paths are shown relative to."""
    h = hashlib.blake2b(str(cwd).encode("utf-8", "surrogateescape"), digest_size=16)
    for name in sorted(module_paths):
        path, is_pkg = module_paths[name]
        h.update(f"{name}\0{path}\0{is_pkg}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class _Previous:
    """The last run's per-file results, and which of them still hold."""

    def __init__(self, stored: StoredResults | None) -> None:
        self.stored = stored
        self.started_ns = time.time_ns()
        self.changed = 0  # mask of the table's modules whose content changed since
        self._keys: dict[str, str | None] = {}
        self._trusted: dict[str, tuple[int, int]] = {}  # stats that matched: kept as they are
        if stored is not None:
            for bit, (path, key) in enumerate(stored.table):
                if not self._same_stat(path) and self._key(path) != key:
                    self.changed |= 1 << bit

    def _same_stat(self, path: str) -> bool:
        """Unchanged by its size and mtime since the key was known (as git and ruff do)."""
        known = self.stored.stats.get(path) if self.stored is not None else None
        if known is None:
            return False
        try:
            st = os.stat(path)
        except OSError:
            return False
        if (st.st_size, st.st_mtime_ns) != known:
            return False
        self._trusted[path] = known
        return True

    def _key(self, path: str) -> str | None:
        if path not in self._keys:
            try:
                self._keys[path] = content_key(read_bytes(Path(path)))
            except UnreadableError:
                self._keys[path] = None
        return self._keys[path]

    def _stats(self, table: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
        """Stats of the files last modified a second or more before this run started: one
        changed during the run might not have the content its key says. A stat that matched
        at the start is kept without a second stat (an edit since shows as a new mtime
        next time, and is read then)."""
        out = {}
        limit = self.started_ns - 1_000_000_000
        for path, _ in table:
            if path in self._trusted:
                out[path] = self._trusted[path]
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue
            if st.st_mtime_ns < limit:
                out[path] = (st.st_size, st.st_mtime_ns)
        return out

    def _valid(self, path: str) -> bool:
        entry = self.stored.files.get(path) if self.stored is not None else None
        return entry is not None and not entry[1] & self.changed

    def changed_paths(self) -> set[str]:
        if self.stored is None:
            return set()
        return {p for bit, (p, _) in enumerate(self.stored.table) if self.changed >> bit & 1}

    def fix_inputs(self, valid_only: bool = True) -> dict[str, _FixInputs]:
        """Each stored file's fix inputs (stored with fixes attached only); only those whose
        results still hold, unless ``valid_only`` is False."""
        if self.stored is None:
            return {}
        out = {}
        for path, entry in self.stored.files.items():
            if not valid_only or self._valid(path):
                for x in entry[2]:
                    if isinstance(x, _FixInputs):
                        out[path] = x
        return out

    def importers(
        self, paths: set[str], module_paths: dict[str, tuple[Path | str, bool]]
    ) -> list[str]:
        """Module names of the stored files whose closure held one of ``paths``."""
        if self.stored is None or not paths:
            return []
        mask = 0
        for bit, (p, _) in enumerate(self.stored.table):
            if p in paths:
                mask |= 1 << bit
        if not mask:
            return []
        hit = {p for p, e in self.stored.files.items() if e[1] & mask}
        return sorted(n for n, (p, _) in module_paths.items() if str(p) in hit)

    def reuse(self, path: Path, into: dict[Path, list[_Entry]]) -> bool:
        if not self._valid(str(path)):
            return False
        assert self.stored is not None
        entries = self.stored.files[str(path)][2]
        into[path] = [p for p in entries if isinstance(p, _Partial | _Comment)]
        return True

    def store(
        self,
        results: ResultsCache,
        map_key: str,
        index: ProjectIndex,
        keys: dict[Path, str],
        checked: set[Path],
        partials: dict[Path, list[_Entry]],
        lone: dict[Path, str],
        inputs: dict[Path, _FixInputs],
    ) -> None:
        """Carry over what still holds, add what this run computed. Bits keep their
        numbers (carried masks stay right); a changed module's bit gets its new key."""
        stored = self.stored
        table = list(stored.table) if stored is not None else []
        files: dict[str, tuple[str, int, tuple[object, ...]]] = {}
        if stored is not None:
            for bit, (path, _) in enumerate(table):
                if self.changed >> bit & 1:
                    table[bit] = (path, self._key(path) or "")
            files = {p: e for p, e in stored.files.items() if self._valid(p)}
        bits = {path: bit for bit, (path, _) in enumerate(table)}

        def bit_for(path: str, key: str) -> int | None:
            """``path``'s bit, added if new; None if its key changed during the run."""
            if path not in bits:
                bits[path] = len(table)
                table.append((path, key))
            return bits[path] if table[bits[path]][1] == key else None

        names: dict[str, int] = {}
        for name, mod in index.modules.items():
            key = keys.get(mod.path)
            if key is None:
                continue  # not read through the cache: its content is not known
            at = bit_for(str(mod.path), key)
            if at is None:
                return  # changed during the run: store nothing rather than a wrong entry
            names[name] = at
        graph = ImportGraph({n: index.modules[n] for n in names})
        masks = graph.closure_masks(names)
        for name, mod in index.modules.items():
            if mod.path in checked and name in masks:
                got = inputs.get(mod.path)
                held = (*partials[mod.path], *((got,) if got is not None else ()))
                files[str(mod.path)] = (keys[mod.path], masks[name], held)
        # A report file without classes (or with a syntax error) depends on itself alone.
        for file, key in lone.items():
            at = bit_for(str(file), key)
            if at is not None:  # (not stored if it changed during the run)
                files[str(file)] = (key, 1 << at, tuple(partials.get(file, ())))
        results.write(map_key, StoredResults(tuple(table), files, self._stats(table)))


def _store_fresh_bodies(index: ProjectIndex, cache: FactsCache, keys: dict[Path, str]) -> None:
    """Function bodies read on demand (DESIGN §8) go back into their cache entries, so that a
    warm run finds them read."""
    if not cache.enabled:
        return
    for mod in index.modules.values():
        key = keys.get(mod.path)
        if key and has_fresh_bodies(mod.facts) and not is_overlaid(mod.path):
            cache.put(key, mod.facts)


def _enclosing(index: ProjectIndex) -> Callable[[Path, int], tuple[int, int, int] | None]:
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


def project_modules(
    root: Path, settings: Settings, use_cache: bool = True
) -> dict[str, tuple[Path | str, bool]]:
    """The project's module map, module name -> (file, is a package), as a check builds it
    (from the walk cache when no folder changed)."""
    return _project_map(root, source_roots(root, settings), settings, use_cache)[1]


def source_roots(root: Path, settings: Settings) -> list[Path]:
    """The folders module names are relative to: the root, and ``src`` (or ``src/``)."""
    return _source_roots(root, settings)


def _source_roots(root: Path, settings: Settings) -> list[Path]:
    roots = [root]
    for s in settings.src:
        roots.append((root / s).resolve())
    if not settings.src and (root / "src").is_dir():
        roots.append(root / "src")
    return roots


def _project_map(
    root: Path, roots: list[Path], settings: Settings, use_cache: bool
) -> tuple[set[str], dict[str, tuple[Path | str, bool]]]:
    """The project's Python files and their module names (the first file wins a name).

    Kept in the cache with what each folder the walk listed looked like: a file added,
    removed or renamed changes its folder's mtime. While none changed (~2 ms of stats for
    vLLM's 637 folders) the walk (~8 ms) and the names (~5 ms) stand. The root is stamped
    by its listing instead, as this run adds the cache folder to it. A folder changed in
    the 50 ms before the walk (a second, where mtimes are whole seconds) might not show
    a change right after: then nothing is kept, nor when the walk met a ``.py`` symlink.
    """
    cache = BlobCache(root, f"walk-{__version__}-{package_fingerprint()}", use_cache)
    key = content_key(
        repr(
            (str(root), [str(r) for r in roots], settings.all_excludes, settings.respect_gitignore)
        ).encode()
    )
    top = str(root)
    if use_cache:
        try:
            (root / CACHE_DIR).mkdir(exist_ok=True)  # before the root is stamped
        except OSError:
            pass
    stored = cache.load(key)
    if isinstance(stored, tuple) and len(stored) == 3 and _same_stamps(top, stored[0]):
        return set(stored[1]), dict(stored[2])
    started = time.time_ns()
    record: list[str] = []
    files = list(
        walk_python_paths(
            root, root, settings.all_excludes, record, gitignore=settings.respect_gitignore
        )
    )
    module_paths: dict[str, tuple[Path | str, bool]] = {}
    for path in files:
        named = module_name_for(path, roots)
        if named is not None and named[0] not in module_paths:
            module_paths[named[0]] = (path, named[1])
    if use_cache and "" not in record:
        stamps = _stamps(top, record, started)
        if stamps is not None:
            cache.store(key, (stamps, tuple(files), tuple(module_paths.items())))
    return set(files), module_paths


def _stamp(top: str, folder: str) -> object:
    if folder == top:
        return tuple(sorted(os.listdir(folder)))
    return os.stat(folder).st_mtime_ns


def _stamps(top: str, folders: list[str], started: int) -> tuple[tuple[str, object], ...] | None:
    out = []
    for folder in folders:
        try:
            stamp = _stamp(top, folder)
        except OSError:
            return None
        if isinstance(stamp, int):
            whole = stamp % 1_000_000_000 == 0  # a file system that keeps seconds only
            if stamp >= started - (2_000_000_000 if whole else 50_000_000):
                return None
        out.append((folder, stamp))
    return tuple(out)


def _same_stamps(top: str, stamps: object) -> bool:
    try:
        for folder, stamp in stamps:  # type: ignore[attr-defined]
            if _stamp(top, folder) != stamp:
                return False
    except (OSError, TypeError, ValueError):
        return False
    return True


def _check_class(sim: Simulator, info: ClassInfo) -> list[Finding]:
    if not sim.needs_simulation(info):
        return []
    result = sim.simulate(info)
    if result is None:
        return []
    return [*find_repeats(result), *find_disabled(result)]


def _outcome_diag(analysis: Analysis, outcome: FactsOutcome) -> Diagnostic | None:
    if outcome.problem:
        return _file_diag(analysis, outcome.path, "IL901", outcome.problem, 1, 1)
    if outcome.internal:
        return _file_diag(analysis, outcome.path, "IL902", outcome.internal, 1, 1)
    facts = outcome.facts
    if facts is not None and facts.error is not None:
        msg = f"cannot parse: {facts.error}"
        return _file_diag(analysis, outcome.path, "IL900", msg, facts.error_line, facts.error_col)
    return None


def _body_syntax(analysis: Analysis, exc: BodySyntaxError) -> Diagnostic | None:
    for mod in analysis.index.modules.values():
        if mod.is_dependency:
            continue  # a dependency's file is never reported on
        facts = mod.facts
        if any(
            fn.reads_from(exc.source)
            for fn in (*facts.functions, *(m for c in facts.classes for m in c.methods))
        ):
            return _file_diag(
                analysis, mod.path, "IL900", f"cannot parse: {exc.msg}", exc.line, exc.col
            )
    return None


def _file_diag(
    analysis: Analysis, path: Path, code: str, message: str, line: int, col: int
) -> Diagnostic:
    rule = REGISTRY[code]
    return Diagnostic(
        path=analysis.display(path),
        line=line,
        column=col,
        end_line=line,
        end_column=col,
        code=code,
        rule=rule.name,
        message=message,
        severity=rule.severity,
    )


def _internal(analysis: Analysis, info: ClassInfo, message: str) -> Diagnostic:
    span = info.facts.span
    return _file_diag(
        analysis,
        info.module.path,
        "IL902",
        f"internal error in {info.qualname}: {message}",
        span.line,
        span.col + 1,
    )


def _finding_site(f: Finding) -> tuple[Path, Span]:
    if f.origin is not None:
        return f.origin.path, f.origin.span
    assert f.event is not None
    return f.event.fn.module.path, f.event.effect.span


def _group(findings: list[Finding]) -> list[list[Finding]]:
    """One diagnostic per (code, statement): a mixin's statement lists every concrete class."""
    groups: dict[tuple[str, Path, int, int], list[Finding]] = {}
    for f in findings:
        path, span = _finding_site(f)
        groups.setdefault((f.code, path, span.line, span.col), []).append(f)
    return list(groups.values())


def _short(analysis: Analysis, path: Path, line: int) -> str:
    return f"{analysis.display(path)}:{line}"


def _owner_name(f: Finding) -> str:
    fn = f.event.fn if f.event is not None else f.sim.top_fn
    assert fn is not None
    return fn.owner.qualname if fn.owner is not None else fn.qualname


_VERBS = {
    "IL001": ("registered again", "registered it"),
    "IL002": ("called again", "called it"),
    "IL003": ("rebuilt", "built it"),
}


def _method_label(fn_qualname: str) -> str:
    parts = fn_qualname.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else fn_qualname


def _to_partial(
    analysis: Analysis, group: list[Finding], fix_planner: FixPlanner | None
) -> _Partial:
    """One file's share of the diagnostic at a site; _merge adds the class list."""
    f = group[0]
    rule = REGISTRY[f.code]
    path, span = _finding_site(f)
    first = f.discarded  # the build this class throws away: the nearest ancestor's
    assert first is not None
    first_where = _short(analysis, first.fn.module.path, first.effect.span.line)
    if first.fn.module.dist is not None:
        first_where += f" ({first.fn.module.dist})"
    first_fn = _method_label(first.fn.qualname)
    possibly = "possibly " if f.confidence == "possible" else ""
    classes = tuple(sorted({g.sim.cls.qualname for g in group}))
    if f.code == "IL004":
        assert f.origin is not None
        param = f.origin.keyword or (first.flags[-1].param if first.flags else "")
        passed = f"{param}={f.origin.text}" if param else f.origin.text
        message = (
            f"passing `{passed}` switches off {f.what} set up in {first_fn} ({first_where}), "
            "and nothing in the construction sets it up instead"
        )
    else:
        assert f.event is not None
        again, did = _VERBS[f.code]
        message = (
            f"{f.what} is {possibly}{again}: {first_fn} already {did} at {first_where} "
            "during super().__init__()"
        )
        if f.flag is not None:
            message += (
                f"; flag `{f.flag.param}` of {_method_label(f.flag.function.qualname)} can "
                "switch that off"
            )
    template = analysis.generated.template_of(path)
    if template is not None:
        message += (
            f"; this file is generated from {analysis.display(template)}: make the change there"
        )
    planned = None
    if fix_planner is not None and rule.fixable and template is None and not first.external:
        planned = fix_planner(analysis, f)  # (never a fix on a generated file)
    no_fix = ""
    if template is not None and rule.fixable:
        no_fix = f"the file is generated from {analysis.display(template)}"
    if isinstance(planned, str):
        no_fix, planned = planned, None
        if first.fn.module.dist is not None:  # any guard there is an edit of the dependency
            no_fix = f"the work is done in {first.fn.module.dist}; {no_fix}"
    elif first.external and rule.fixable and template is None:
        no_fix = (
            f"the work is done in torch's {first_fn}, known from initlint's built-in table "
            "(torch is not installed in the checked environment)"
        )
    refused = _dependency_edit(analysis, planned[0]) if planned is not None else None
    if refused is not None:
        planned = None
        no_fix = f"the work is done in {refused}"
    elif planned is not None and _edits_generated(analysis, planned[0]):
        planned = None
        no_fix = "the fix would edit a generated file (its generator would undo the edit)"
    fix = planned[0] if planned is not None else None
    if fix is None:
        tail = ""
        if rule.fixable:
            tail = f" [no fix: the work is done in {refused}]" if refused else " [no fix]"
    else:
        tail = f" [fix: {fix.applicability}]"
    related = [
        Related(
            analysis.display(first.fn.module.path),
            first.effect.span.line,
            f"{'done again here' if f.earlier else 'first done here'}, in {first_fn}"
            f"{_in_dist(first.fn.module)}",
        )
    ]
    for before in f.earlier:  # builds an intermediate class's rebuild already threw away
        related.append(
            Related(
                analysis.display(before.fn.module.path),
                before.effect.span.line,
                f"also done earlier here, in {_method_label(before.fn.qualname)}",
            )
        )
    if f.flag is not None:
        fspan = f.flag.function.facts.span
        related.append(
            Related(
                analysis.display(f.flag.function.module.path),
                fspan.line,
                f"flag `{f.flag.param}` is a parameter of "
                f"{_method_label(f.flag.function.qualname)}{_in_dist(f.flag.function.module)}",
            )
        )
    if template is not None:
        related.append(
            Related(analysis.display(template), 1, "the template this file is generated from")
        )
    assert analysis.locator is not None
    line, col, end_line, end_col = analysis.locator.range(path, span, statement=f.code != "IL004")
    diag = Diagnostic(
        path=analysis.display(path),
        line=line,
        column=col,
        end_line=end_line,
        end_column=end_col,
        code=f.code,
        rule=rule.name,
        message=message,
        severity="error" if any(g.severity == "error" for g in group) else "warning",
        confidence="possible" if any(g.confidence == "possible" for g in group) else "definite",
        class_name=_owner_name(f),
        related=tuple(related),
        fix=fix,
        classes=classes,
        no_fix=no_fix,
    )
    if planned is not None:
        analysis.plans[diag] = planned[1]
    site = (f.code, analysis.display(path), span.line, span.col)
    return _Partial(diag, site, _owner_name(f), tail)


def _in_dist(mod: Module) -> str:
    return f" ({mod.dist})" if mod.dist is not None else ""


def _dependency_edit(analysis: Analysis, fix: Fix) -> Distribution | None:
    """The distribution a fix would edit, if any: such a fix is refused (only project files
    are ever edited; DESIGN §5)."""
    index = analysis.index
    by_path = {os.path.normpath(m.path): m for m in index.modules.values() if m.is_dependency}
    for edited in (*fix.files, *(e.path for e in fix.edits)):
        mod = by_path.get(os.path.normpath(analysis.cwd / edited))
        if mod is not None and mod.dist is not None:
            return mod.dist
    return None


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
    return find_environment(root, python, where if python else "")


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
    try:
        text, _ = decode(read_bytes(path))
        facts = extract_facts(text)
    except (UnreadableError, RecursionError, MemoryError):
        return EMPTY, ""
    except Exception:  # noqa: BLE001 - a dependency must never stop the run
        return EMPTY, ""
    if facts.error is not None:
        facts = EMPTY
    cache.put(key, facts)
    return facts, key


def _edits_generated(analysis: Analysis, fix: Fix) -> bool:
    """Whether a fix would edit a generated file: the generator would undo the edit, so the
    fix is not offered."""
    for edited in (*fix.files, *(e.path for e in fix.edits)):
        if analysis.generated.template_of(analysis.cwd / edited) is not None:
            return True
    return False


def _file_ignored(analysis: Analysis, d: Diagnostic) -> bool:
    if not analysis.settings.per_file_ignores:
        return False
    try:
        rel = (analysis.cwd / d.path).resolve().relative_to(analysis.root.resolve()).as_posix()
    except ValueError:
        rel = d.path
    return analysis.settings.ignored_in_file(d.code, (rel, d.path))

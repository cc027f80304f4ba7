"""The check pipeline: discover -> facts -> index -> simulate -> rules -> diagnostics."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ParamSpec, TypeVar

from initlint.cache import FactsCache
from initlint.diagnostics import Diagnostic, Fix, Related
from initlint.discovery import discover, find_root, walk_python_files
from initlint.facts.model import ModuleFacts, Span, has_fresh_bodies
from initlint.facts.runner import (
    EMPTY,
    FactsOutcome,
    compute_facts,
    default_jobs,
    describe,
    facts_for,
)
from initlint.index.project import ClassInfo, Module, ProjectIndex, module_name_for
from initlint.locate import Locator
from initlint.progress import Progress
from initlint.rules import REGISTRY, Finding, select_codes
from initlint.rules.repeats import find_disabled, find_repeats
from initlint.settings import Settings, load_settings
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator


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
    plans: dict[Diagnostic, object] = field(default_factory=dict)

    def display(self, path: Path) -> str:
        return display_path(path, self.cwd)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd) if path.is_absolute() else path.as_posix()


FixPlanner = Callable[["Analysis", Finding], tuple[Fix, object] | None]


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
) -> Analysis:
    """Run the check pipeline. ``progress``: None draws on stderr only when it is a TTY."""
    cwd = (cwd or Path.cwd()).absolute()
    paths = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    root = find_root(paths[0])
    if settings is None:
        settings = load_settings(root)
    if overrides is not None:
        settings = overrides(settings)
    jobs = jobs or default_jobs()
    disc = discover(paths, root, settings.all_excludes)
    roots = _source_roots(root, settings)
    module_paths: dict[str, tuple[Path, bool]] = {}
    for path in _project_files(root, disc.report, settings):
        named = module_name_for(path, roots)
        if named is not None and named[0] not in module_paths:
            module_paths[named[0]] = (path, named[1])

    cache = FactsCache(root, settings.fingerprint(), use_cache)

    keys: dict[Path, str] = {}  # content hash of each module's cache entry

    def load(path: Path) -> ModuleFacts:
        outcome = facts_for(path, cache, prefilter=False)
        if outcome.key:
            keys[path] = outcome.key
        return outcome.facts or EMPTY

    index = ProjectIndex(module_paths, load)
    analysis = Analysis(root, cwd, settings, index, files=len(disc.report))
    locator = Locator(_enclosing(index), root, use_cache)
    analysis.locator = locator
    diags: list[Diagnostic] = []
    for problem in disc.problems:
        diags.append(_file_diag(analysis, problem.path, "IL901", problem.message, 1, 1))

    report_modules = []
    outcomes = compute_facts(
        disc.report, root, settings.fingerprint(), use_cache=use_cache, jobs=jobs
    )
    reading = Progress(len(disc.report), progress, label="initlint: reading")
    for outcome in outcomes:
        reading.advance()
        diag = _outcome_diag(analysis, outcome)
        if diag is not None:
            diags.append(diag)
            if diag.code == "IL902":
                analysis.internal_errors += 1
            continue
        assert outcome.facts is not None
        if not outcome.facts.classes:
            continue
        if outcome.key:
            keys[outcome.path] = outcome.key
        named = module_name_for(outcome.path, roots)
        name = named[0] if named else f"<file>{outcome.path}"
        is_pkg = bool(named and named[1])
        mod = index.modules.get(name)
        if mod is None or mod.path != outcome.path:
            mod = index.add_module(name, outcome.path, is_pkg, outcome.facts)
        report_modules.append(mod)

    _age_objects()  # the facts are loaded
    cost = CostModel(index, settings.expensive_calls, settings.cheap_calls)
    sim = Simulator(index, cost)
    analysis.simulator = sim
    reading.close()
    report_paths = {m.path for m in report_modules}
    checking = Progress(len(report_modules), progress, label="initlint: checking")
    for mod in report_modules:
        checking.advance()
        for info in index.classes_of(mod):
            try:
                analysis.findings.extend(_check_class(sim, info))
            except RecursionError:
                diags.append(_internal(analysis, info, "RecursionError: hierarchy too deep"))
            except Exception as exc:  # noqa: BLE001 - per-class isolation, reported as IL902
                diags.append(_internal(analysis, info, describe(exc)))
    checking.close()
    for d in diags:
        if d.code == "IL902":
            analysis.internal_errors += 1

    enabled = select_codes((*settings.select, *settings.extend_select), settings.ignore)
    grouped = _group(analysis.findings, report_paths)
    for key_findings in grouped:
        try:
            diag = _to_diagnostic(analysis, key_findings, fix_planner)
        except Exception as exc:  # noqa: BLE001
            f = key_findings[0]
            diags.append(_internal(analysis, f.sim.cls, describe(exc)))
            analysis.internal_errors += 1
            continue
        diags.append(diag)
    diags = [d for d in diags if d.code in enabled and not _file_ignored(analysis, d)]
    diags = [d for d in diags if not locator.suppressed(d, analysis.cwd)]
    analysis.diagnostics = sorted(diags, key=Diagnostic.sort_key)
    _store_fresh_bodies(index, cache, keys)
    return analysis


def _store_fresh_bodies(index: ProjectIndex, cache: FactsCache, keys: dict[Path, str]) -> None:
    """Function bodies read on demand (DESIGN §8) go back into their cache entries, so that a
    warm run finds them read."""
    if not cache.enabled:
        return
    for mod in index.modules.values():
        key = keys.get(mod.path)
        if key and has_fresh_bodies(mod.facts):
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


def _source_roots(root: Path, settings: Settings) -> list[Path]:
    roots = [root]
    for s in settings.src:
        roots.append((root / s).resolve())
    if not settings.src and (root / "src").is_dir():
        roots.append(root / "src")
    return roots


def _project_files(root: Path, report: Iterable[Path], settings: Settings) -> list[Path]:
    files = list(walk_python_files(root, root, settings.all_excludes))
    seen = set(files)
    files.extend(p for p in report if p not in seen)
    return files


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


def _group(findings: list[Finding], report_paths: set[Path]) -> list[list[Finding]]:
    """One diagnostic per (code, statement): a mixin's statement lists every concrete class."""
    groups: dict[tuple[str, Path, int, int], list[Finding]] = {}
    for f in findings:
        path, span = _finding_site(f)
        if path not in report_paths:
            continue
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


def _to_diagnostic(
    analysis: Analysis, group: list[Finding], fix_planner: FixPlanner | None
) -> Diagnostic:
    f = group[0]
    rule = REGISTRY[f.code]
    path, span = _finding_site(f)
    first = f.first
    assert first is not None
    first_where = _short(analysis, first.fn.module.path, first.effect.span.line)
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
    if len(classes) > 1 or (classes and classes[0] != _owner_name(f)):
        message += f" (in {', '.join(c.rsplit('.', 1)[-1] for c in classes)})"
    planned = fix_planner(analysis, f) if fix_planner is not None and rule.fixable else None
    fix = planned[0] if planned is not None else None
    if fix is None:
        message += " [no fix]" if rule.fixable else ""
    else:
        message += f" [fix: {fix.applicability}]"
    related = [
        Related(
            analysis.display(first.fn.module.path),
            first.effect.span.line,
            f"first done here, in {first_fn}",
        )
    ]
    if f.flag is not None:
        fspan = f.flag.function.facts.span
        related.append(
            Related(
                analysis.display(f.flag.function.module.path),
                fspan.line,
                f"flag `{f.flag.param}` is a parameter of "
                f"{_method_label(f.flag.function.qualname)}",
            )
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
        severity=rule.severity,
        confidence="possible" if any(g.confidence == "possible" for g in group) else "definite",
        class_name=_owner_name(f),
        related=tuple(related),
        fix=fix,
        classes=classes,
    )
    if planned is not None:
        analysis.plans[diag] = planned[1]
    return diag


def _file_ignored(analysis: Analysis, d: Diagnostic) -> bool:
    if not analysis.settings.per_file_ignores:
        return False
    try:
        rel = (analysis.cwd / d.path).resolve().relative_to(analysis.root.resolve()).as_posix()
    except ValueError:
        rel = d.path
    return analysis.settings.ignored_in_file(d.code, (rel, d.path))

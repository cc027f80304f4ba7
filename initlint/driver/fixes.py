"""Fixes' edits attached to the per-file results (JSON, SARIF), checked again only where
an edit can reach."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.driver.results import FixInputs, Previous
from initlint.driver.split import attach_in_two
from initlint.facts.cache import FactsCache
from initlint.index.deps import ImportGraph
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.pipeline.analysis import Analysis, FindingKey, FixAttacher
from initlint.pipeline.report import Entry, Share


def attach_fixes(
    analysis: Analysis,
    fixes: FixAttacher,
    previous: Previous,
    partials: dict[Path, list[Entry]],
    found: dict[Path, frozenset[FindingKey]],
    check_again: Callable[[list[Path]], None],
    cache: FactsCache,
    split: bool,
) -> dict[Path, FixInputs]:
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
    taken from the cache, and of those a forked copy checked, count as known by their keys."""
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
        if isinstance(part, Share) and not part.suppressed_line and part.diag.fix is not None
    ]
    edited: set[Path] = set()
    for d in fresh:
        edited |= fixes.edited(analysis, d)
    for name in previous.importers({str(p) for p in edited}, index.module_paths):
        index.module(name)
    # Every finding's key, the files taken from the cache included (and those a forked
    # copy checked: this process holds only their keys).
    known: set[FindingKey] = set()
    for x in reused.values():
        known |= x.keys
    for keys in found.values():
        known |= keys
    attached: dict[Diagnostic, Diagnostic] = {}
    if fresh:
        attach = functools.partial(fixes.attach, analysis, known=frozenset(known))
        if split and len(fresh) >= ATTACH_SPLIT_MIN:
            # Files edited by the same fixes stay in one half: their parses are shared.
            fresh.sort(key=lambda d: sorted(str(p) for p in fixes.edited(analysis, d)))
            attached = attach_in_two(fresh, attach, cache)
        else:
            attached = attach(fresh)
    out: dict[Path, FixInputs] = {}
    by_path = {m.path: m for m in index.modules.values()}
    for path in found:
        parts: list[Entry] = []
        touched: set[Path] = set()
        for part in partials[path]:
            if not isinstance(part, Share):
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
        out[path] = FixInputs(
            found[path],
            frozenset(str(t) for t in touched),
            _mro_files(index, by_path.get(path)),
        )
    return out


ATTACH_SPLIT_MIN = 8  # fixes to check below which a second process does not pay


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
    found: dict[Path, frozenset[FindingKey]],
    before: dict[str, FixInputs],
    changed: set[str],
) -> set[str]:
    """Files whose fixes' checks the changes of this run may alter (see attach_fixes)."""
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
    return reach | (closure_paths(index, wide) if wide else set())


def closure_paths(index: ProjectIndex, paths: set[str]) -> set[str]:
    """The files in the import closures of the loaded modules at ``paths``."""
    names = list(index.modules)
    bits = {name: i for i, name in enumerate(names)}
    masks = ImportGraph(index.modules).closure_masks(bits)
    mask = 0
    for name, mod in index.modules.items():
        if str(mod.path) in paths:
            mask |= masks.get(name, 0)
    return {str(index.modules[names[i]].path) for i in range(len(names)) if mask >> i & 1}

"""Checking one report file: its facts outcome as one of four kinds, its module's classes
simulated, the rules' findings grouped by site, each site's fix planned (``plan.py``), and
the groups turned into its share of the report. Never raises for a file: a failure is that
file's IL900/IL901/IL902."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic, describe
from initlint.facts.load import FactsCrashed, FactsOutcome, FactsRead, FactsUnreadable
from initlint.facts.model import BodyError, ModuleFacts
from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo, Module
from initlint.pipeline.analysis import Analysis, FixPlanner
from initlint.pipeline.plan import PlanFailed, plan_fixes
from initlint.pipeline.report import Entry, Share, comments_of, file_diag, finding_site, to_share
from initlint.pipeline.unread import unread_ancestors
from initlint.records import dataclass
from initlint.rules import Finding, findings_of
from initlint.rules.il900_internal import InternalError, SyntaxErrorRule, UnreadableFile
from initlint.simulation.engine import Simulator


def admit_module(
    index: ProjectIndex, path: Path, named: tuple[str, bool] | None, facts: ModuleFacts
) -> Module:
    """The report file ``path``'s module, put in the index under its module name
    (``named``: the name and whether it is a package; None outside every source root)."""
    name = named[0] if named else f"<file>{path}"
    is_pkg = bool(named and named[1])
    mod = index.modules.get(name)
    if mod is None or mod.path != path:
        mod = index.add_module(name, path, is_pkg, facts)
    return mod


def check_module(
    analysis: Analysis, sim: Simulator, mod: Module, fix_planner: FixPlanner | None
) -> list[Entry]:
    """The diagnostics one report file's classes give (their sites may lie elsewhere), the
    suppressed ones marked, and the file's suppression comments: its classes checked, their
    findings grouped by site, each site's fix planned, then worded and located."""
    out: list[Entry] = list(comments_of(analysis, mod.path, mod.facts))
    findings: list[Finding] = []
    shown = analysis.display(mod.path)
    for info in analysis.index.classes_of(mod):
        try:
            out.extend(unread_ancestors(analysis.index, info, shown))
            found = check_class(sim, info)
        except RecursionError:
            out.append(Share(internal_diag(analysis, info, "RecursionError: hierarchy too deep")))
            continue
        except Exception as exc:  # noqa: BLE001 - per-class isolation, reported as IL902
            out.append(Share(internal_diag(analysis, info, describe(exc))))
            continue
        if isinstance(found, BodyError):
            # A body the skeleton pass skipped does not parse: IL900 on its file, once, when
            # that is a project file; the class has no findings.
            diag = body_syntax_diag(analysis, found)
            if diag is not None and all(not isinstance(p, Share) or diag != p.diag for p in out):
                out.append(Share(diag))
        else:
            findings.extend(found)
    # A repeat whose statement lies in an installed dependency is the dependency's own:
    # never reported (docs/design.md, "The environment"), whichever project class reached it.
    findings = [f for f in findings if not analysis.index.is_dependency(finding_site(f)[0])]
    analysis.findings.extend(findings)
    groups = group_by_site(findings)
    for group, proposal in zip(groups, plan_fixes(analysis, groups, fix_planner), strict=True):
        if isinstance(proposal, PlanFailed):
            out.append(Share(internal_diag(analysis, group[0].sim.cls, proposal.error)))
            continue
        try:
            share = to_share(analysis, group, proposal)
        except Exception as exc:  # noqa: BLE001
            out.append(Share(internal_diag(analysis, group[0].sim.cls, describe(exc))))
            continue
        # A suppression comment sits at the site, which is in this file's closure: decided
        # here, it is cached with the rest (IL9xx are never suppressed).
        line = analysis.locator.suppressing_line(share.diag, analysis.cwd)
        out.append(share if line is None else replace(share, suppressed_line=line))
    return out


def check_class(sim: Simulator, info: ClassInfo) -> list[Finding] | BodyError:
    """The rules' findings on ``info``'s construction, or the error of a body it reads that
    does not parse."""
    if not sim.needs_simulation(info):
        return []
    result = sim.simulate(info)
    if result is None:
        return []
    if isinstance(result, BodyError):
        return result
    return findings_of(result)


@dataclass(frozen=True)
class Parsed:
    """The file's facts are in hand: its classes are checked."""

    path: Path
    facts: ModuleFacts
    key: str  # content hash ("" when not known)


@dataclass(frozen=True)
class Unreadable:
    """IL901: bad encoding, permissions, not a regular file."""

    path: Path
    diag: Diagnostic


@dataclass(frozen=True)
class Unparsable:
    """IL900: a syntax error. Its result depends on its own content only (``key``)."""

    path: Path
    diag: Diagnostic
    key: str


@dataclass(frozen=True)
class Crashed:
    """IL902: reading the file's facts failed inside initlint."""

    path: Path
    diag: Diagnostic


# What one file's facts pass gave, as the check sees it.
FileOutcome = Parsed | Unreadable | Unparsable | Crashed


def triage(analysis: Analysis, outcome: FactsOutcome) -> FileOutcome:
    """The kind of ``outcome``: facts to check, or the file's one diagnostic."""
    path = outcome.path
    match outcome:
        case FactsUnreadable(problem=problem):
            return Unreadable(path, file_diag(analysis, path, UnreadableFile.code, problem, 1, 1))
        case FactsCrashed(internal=internal):
            return Crashed(path, file_diag(analysis, path, InternalError.code, internal, 1, 1))
        case FactsRead(facts=facts, key=key) if facts.error is not None:
            msg = f"cannot parse: {facts.error}"
            diag = file_diag(
                analysis, path, SyntaxErrorRule.code, msg, facts.error_line, facts.error_col
            )
            return Unparsable(path, diag, key)
        case FactsRead(facts=facts, key=key):
            return Parsed(path, facts, key)


def body_syntax_diag(analysis: Analysis, error: BodyError) -> Diagnostic | None:
    """IL900 for the project file whose text holds the body that does not parse; None for
    an installed dependency's (never reported on)."""
    for mod in analysis.index.modules.values():
        if mod.is_dependency:
            continue  # a dependency's file is never reported on
        facts = mod.facts
        if any(
            fn.reads_from(error.source)
            for fn in (*facts.functions, *(m for c in facts.classes for m in c.methods))
        ):
            return file_diag(
                analysis,
                mod.path,
                SyntaxErrorRule.code,
                f"cannot parse: {error.msg}",
                error.line,
                error.col,
            )
    return None


def internal_diag(analysis: Analysis, info: ClassInfo, message: str) -> Diagnostic:
    span = info.facts.span
    return file_diag(
        analysis,
        info.module.path,
        InternalError.code,
        f"internal error in {info.qualname}: {message}",
        span.line,
        span.col + 1,
    )


def group_by_site(findings: list[Finding]) -> list[list[Finding]]:
    """One diagnostic per (code, statement): a mixin's statement lists every concrete class.
    The diagnostic speaks of the costliest work the statement throws away (a method run
    again that builds a light part anew and fills a heavy weight again: the weight)."""
    groups: dict[tuple[str, Path, int, int], list[Finding]] = {}
    for f in findings:
        path, span = finding_site(f)
        groups.setdefault((f.code, path, span.line, span.col), []).append(f)
    return [sorted(group, key=lambda f: -f.cost) for group in groups.values()]

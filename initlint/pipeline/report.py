"""From findings to diagnostics: each report file's shares of a diagnostic (worded, located,
with the fix or why there is none), merged across files, then selected and sorted."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from initlint.diagnostics import Diagnostic, Fix, Related
from initlint.environment import Distribution
from initlint.facts.model import ModuleFacts, Span
from initlint.index.records import Module
from initlint.pipeline.analysis import Analysis, FixProposal, NoFix, Proposed
from initlint.pipeline.unread import UnreadAncestor
from initlint.records import dataclass
from initlint.rules import REGISTRY, DisabledFinding, Finding, RepeatFinding, select_codes
from initlint.rules.base import Wording, method_label
from initlint.rules.il900_internal import InternalError
from initlint.settings import severity_shown
from initlint.simulation.levels import HEAVY
from initlint.suppressions import unused


@dataclass(frozen=True)
class Share:
    """One report file's share of a diagnostic. Shares of one statement from several files
    (a mixin's, say) merge into one diagnostic."""

    diag: Diagnostic
    site: tuple[str, str, int, int] | None = None  # (code, site path, line, col) to merge on
    owner: str = ""  # the class whose code the statement is in
    message_tail: str = ""  # the fix note, after the class list
    suppressed_line: int = 0  # the line of the comment that suppresses it (0: shown)


@dataclass(frozen=True)
class Comment:
    """One of initlint's suppression comments in a report file (whether it suppresses
    anything is known once every report file's shares are in)."""

    path: str  # as displayed
    line: int
    text: str


Entry = Share | Comment | UnreadAncestor


def _excluded_here(analysis: Analysis, package: str) -> bool:
    """Whether ``package`` is a folder or module of the project's own that its settings
    leave out (``extend-exclude = ["third_party"]``): not something to install."""
    roots = [analysis.root, *(analysis.root / s for s in analysis.settings.src)]
    return any((r / package).is_dir() or (r / f"{package}.py").is_file() for r in roots)


def comments_of(analysis: Analysis, path: Path, facts: ModuleFacts) -> Iterator[Comment]:
    shown = analysis.display(path)
    for line, text in facts.suppressions:
        yield Comment(shown, line, text)


def merge_shares(analysis: Analysis, partials: list[Share]) -> list[Diagnostic]:
    """One diagnostic per site. A site's wording and fix come from one of its shares, chosen
    by what the shares say, never by the order the files were checked in: the share of the
    class whose code holds the statement, else the one of the first class by name."""
    sites: dict[object, list[Share]] = {}
    for p in partials:
        sites.setdefault(p.site if p.site is not None else p.diag, []).append(p)
    out = []
    for group in sites.values():
        first = min(group, key=_representative) if len(group) > 1 else group[0]
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


def _representative(share: Share) -> tuple[bool, tuple[str, ...], str]:
    return share.owner not in share.diag.classes, share.diag.classes, share.diag.message


def file_diag(
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


def finding_site(f: Finding) -> tuple[Path, Span]:
    match f:
        case RepeatFinding(event=event):  # the repeated statement
            return event.fn.module.path, event.effect.span
        case DisabledFinding(origin=origin):  # the argument that switched the setup off
            return origin.path, origin.span


def _short(analysis: Analysis, path: Path, line: int) -> str:
    return f"{analysis.display(path)}:{line}"


def _owner_name(f: Finding) -> str:
    fn = f.event.fn if isinstance(f, RepeatFinding) else f.sim.top_fn
    return fn.owner.qualname if fn.owner is not None else fn.qualname


def to_share(analysis: Analysis, group: list[Finding], proposal: FixProposal) -> Share:
    """One file's share of the diagnostic at a site, with the fixer's ``proposal`` for it
    (``pipeline/plan.py``); merge_shares adds the class list."""
    f = group[0]
    rule = REGISTRY[f.code]
    path, span = finding_site(f)
    first = f.discarded  # the build this class throws away: the nearest ancestor's
    # (a switched-off setup has no earlier builds and no flag of its own to name)
    earlier, flag = (f.earlier, f.flag) if isinstance(f, RepeatFinding) else ((), None)
    others = f.alternatives if isinstance(f, RepeatFinding) else ()
    first_where = _short(analysis, first.fn.module.path, first.effect.span.line)
    if first.fn.module.dist is not None:
        first_where += f" ({first.fn.module.dist})"
    first_fn = method_label(first.fn.qualname)
    classes = tuple(sorted({g.sim.cls.qualname for g in group}))
    alternatives = tuple(_short(analysis, b.fn.module.path, b.effect.span.line) for b in others)
    through = ""
    if isinstance(f, RepeatFinding) and f.through is not None:
        by = f.through
        through = f"`{method_label(by.fn.qualname)}` at "
        through += _short(analysis, by.fn.module.path, by.effect.span.line)
        if by.fn.module.dist is not None:
            through += f" ({by.fn.module.dist})"
    message = rule.message(f, Wording(first_fn, first_where, alternatives, through))
    if f.cost >= HEAVY and f.world_test:
        message += (
            f"; it happens only on a path that `{f.world_test}` decides, a state outside the "
            "construction (files on disk, the environment): not every construction pays for it"
        )
    template = analysis.generated.template_of(path)
    if template is not None:
        message += (
            f"; this file is generated from {analysis.display(template)}: make the change there"
        )
    no_fix = ""
    if template is not None and rule.fixable:
        no_fix = f"the file is generated from {analysis.display(template)}"
    planned: Proposed | None = None
    match proposal:
        case Proposed():
            planned = proposal
        case NoFix(reason=reason) if reason:
            no_fix = reason
            if first.fn.module.dist is not None:  # the work being repeated is the dependency's
                no_fix = f"the work is done in {first.fn.module.dist}; {no_fix}"
        case NoFix() if first.external and rule.fixable and template is None:
            no_fix = (
                f"the work is done in torch's {first_fn}, known from initlint's built-in table "
                "(torch is not installed in the checked environment)"
            )
    refused = dependency_edit(analysis, planned.fix) if planned is not None else None
    if refused is not None:
        planned = None
        no_fix = f"the work is done in {refused}"
    elif planned is not None and _edits_generated(analysis, planned.fix):
        planned = None
        no_fix = "the fix would edit a generated file (its generator would undo the edit)"
    fix = planned.fix if planned is not None else None
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
            f"{'done again here' if earlier else rule.note_for(f, first)}, in {first_fn}"
            f"{_in_dist(first.fn.module)}",
        )
    ]
    for other in others:  # builds that may be the discarded one instead
        related.append(
            Related(
                analysis.display(other.fn.module.path),
                other.effect.span.line,
                f"{rule.alternative_note}, in {method_label(other.fn.qualname)}",
            )
        )
    for before in earlier:  # builds an intermediate class's rebuild already threw away
        related.append(
            Related(
                analysis.display(before.fn.module.path),
                before.effect.span.line,
                f"also done earlier here, in {method_label(before.fn.qualname)}",
            )
        )
    if flag is not None:
        fspan = flag.function.facts.span
        related.append(
            Related(
                analysis.display(flag.function.module.path),
                fspan.line,
                f"flag `{flag.param}` is a parameter of "
                f"{method_label(flag.function.qualname)}{_in_dist(flag.function.module)}",
            )
        )
    if template is not None:
        related.append(
            Related(analysis.display(template), 1, "the template this file is generated from")
        )
    line, col, end_line, end_col = analysis.locator.range(
        path, span, statement=rule.points_at_statement
    )
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
        analysis.plans[diag] = planned.planned
    site = (f.code, analysis.display(path), span.line, span.col)
    return Share(diag, site, _owner_name(f), tail)


def _in_dist(mod: Module) -> str:
    return f" ({mod.dist})" if mod.dist is not None else ""


def dependency_edit(analysis: Analysis, fix: Fix) -> Distribution | None:
    """The distribution a fix would edit, if any: such a fix is refused (only project files
    are ever edited; docs/design.md, "Fixes")."""
    index = analysis.index
    by_path = {os.path.normpath(m.path): m for m in index.modules.values() if m.is_dependency}
    for edited in (*fix.files, *(e.path for e in fix.edits)):
        mod = by_path.get(os.path.normpath(analysis.cwd / edited))
        if mod is not None and mod.dist is not None:
            return mod.dist
    return None


def _edits_generated(analysis: Analysis, fix: Fix) -> bool:
    """Whether a fix would edit a generated file: the generator would undo the edit, so the
    fix is not offered."""
    for edited in (*fix.files, *(e.path for e in fix.edits)):
        if analysis.generated.template_of(analysis.cwd / edited) is not None:
            return True
    return False


def file_ignored(analysis: Analysis, d: Diagnostic) -> bool:
    if not analysis.settings.per_file_ignores:
        return False
    try:
        rel = (analysis.cwd / d.path).resolve().relative_to(analysis.root.resolve()).as_posix()
    except ValueError:
        rel = d.path
    return analysis.settings.ignored_in_file(d.code, (rel, d.path))


def finish(
    analysis: Analysis, file_diags: list[Diagnostic], entries: list[Entry], report: Iterable[Path]
) -> None:
    """The run's diagnostics, from the files' own (``file_diags``: IL901 for what discovery
    could not read) and each report file's entries in the report's order: a share that a
    comment suppresses is left out (a comment that suppressed nothing is noted), shares of
    one site merge into one diagnostic, then the selection applies, and they are sorted."""
    settings = analysis.settings
    shown = {analysis.display(p) for p in report}
    shares = [x for x in entries if isinstance(x, Share)]
    unread = {x for x in entries if isinstance(x, UnreadAncestor)}
    excluded = {p for p in {u.package for u in unread} if _excluded_here(analysis, p)}
    analysis.unread = sorted(
        (u for u in unread if u.package not in excluded), key=UnreadAncestor.order
    )
    analysis.unused_suppressions = unused(
        ((c.path, c.line, c.text) for c in entries if isinstance(c, Comment)),
        ((x.diag.path, x.suppressed_line, x.diag.code) for x in shares if x.suppressed_line),
    )
    shares = [x for x in shares if not x.suppressed_line]
    diags = [
        *file_diags,
        *merge_shares(analysis, [x for x in shares if x.site is None or x.site[1] in shown]),
    ]
    analysis.internal_errors += sum(d.code == InternalError.code for d in diags)
    enabled = select_codes((*settings.select, *settings.extend_select), settings.ignore)
    # An always-shown rule (IL902: the run exits 2 for it) is never hidden by a selection.
    diags = [
        d
        for d in diags
        if REGISTRY[d.code].always_shown
        or (
            d.code in enabled
            and severity_shown(d.severity, settings.min_severity)
            and not file_ignored(analysis, d)
        )
    ]
    analysis.diagnostics = sorted(diags, key=Diagnostic.sort_key)

"""The default ruff-like format: ``path:line:col: CODE [severity] message``, then notes and
a fix hint.

::

    pkg/child.py:7:9: IL001 [error] buffer `cache` is registered again: ...
        note: pkg/base.py:11: first done here, in Base.__init__
        help: pass `init_cache=False` to super().__init__() (safe fix: `initlint fix`)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from initlint.diagnostics import Diagnostic
from initlint.pipeline.unread import UnreadAncestor

_BOLD, _RED, _YELLOW, _CYAN, _DIM, _RESET = (
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[33m",
    "\x1b[36m",
    "\x1b[2m",
    "\x1b[0m",
)


_SURROGATE = r"[\ud800-\udfff]"  # compiled (and cached by re) only when text holds one


def _escape_surrogate(m: re.Match[str]) -> str:
    point = ord(m.group())
    if 0xDC80 <= point <= 0xDCFF:  # an undecodable byte of a file name (os.fsdecode)
        return f"\\x{point - 0xDC00:02x}"
    return f"\\u{point:04x}"


def printable(text: str) -> str:
    """``text`` made encodable as UTF-8: a file name's undecodable bytes, which os.fsdecode
    turns into lone surrogates, are shown as ``\\xNN`` (what ``ls -b`` shows)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, _escape_surrogate, text)
    return text


def fix_hint(d: Diagnostic) -> str:
    """One line telling the user how to fix ``d``: the planned fix, or where to read up."""
    if d.fix is not None:
        if d.fix.applicability == "safe":
            return f"{d.fix.message} (safe fix: `initlint fix`)"
        return f"{d.fix.message} (unsafe fix: `initlint fix --unsafe-fixes`)"
    if d.no_fix:
        return f"no fix: {d.no_fix}"
    return f"no automatic fix; see `initlint explain {d.code}`"


def render_text(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    def c(code: str, s: str) -> str:
        return f"{code}{s}{_RESET}" if color else s

    out: list[str] = []
    for d in diagnostics:
        where = c(_BOLD, f"{d.path}:{d.line}:{d.column}:")
        code = c(_RED if d.severity == "error" else _YELLOW, f"{d.code} [{d.severity}]")
        out.append(f"{where} {code} {d.message}")
        for r in d.related:
            out.append(c(_DIM, f"    note: {r.path}:{r.line}: {r.message}"))
        if d.dependent_of:
            out.append(c(_DIM, f"    note: dependent of {d.dependent_of} (a given file)"))
        if not d.code.startswith("IL9"):
            out.append(c(_CYAN, f"    help: {fix_hint(d)}"))
    return printable("\n".join(out) + ("\n" if out else ""))


def files_of(diagnostics: Sequence[Diagnostic], checked: int) -> str:
    """'2 of 40 files checked': the files with findings among those checked."""
    with_findings = len({d.path for d in diagnostics})
    return f"{with_findings} of {checked} file{'s' if checked != 1 else ''} checked"


def summary_line(diagnostics: Sequence[Diagnostic], files: int, unsafe: bool = False) -> str:
    """The line after a text report; ``unsafe``: the run was given --unsafe-fixes."""
    if not diagnostics:
        return f"All checks passed ({files} file{'s' if files != 1 else ''} checked)."
    fixable = sum(1 for d in diagnostics if d.fix is not None)
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe")
    n = len(diagnostics)
    line = f"Found {n} diagnostic{'s' if n != 1 else ''} in {files_of(diagnostics, files)}."
    if fixable and unsafe:
        line += f" {fixable} fixable with `initlint check --fix --unsafe-fixes`."
    elif fixable:
        line += f" {fixable} fixable ({safe} safe; run `initlint check --fix`"
        line += ", add --unsafe-fixes for the rest)." if fixable > safe else ")."
    return line


def render_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """``--statistics``: one line per code, most frequent first: count, code, name, [*] fixable."""
    rows = statistics(diagnostics)
    return "".join(
        f"{n:>5}  {code}  {'[*]' if fix else '   '} {name}\n" for code, name, n, fix in rows
    )


def statistics(diagnostics: Sequence[Diagnostic]) -> list[tuple[str, str, int, bool]]:
    """(code, rule name, count, any fixable) per code, by count then code."""
    counts: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        counts.setdefault(d.code, []).append(d)
    rows = [
        (code, ds[0].rule, len(ds), any(d.fix is not None for d in ds))
        for code, ds in counts.items()
    ]
    return sorted(rows, key=lambda r: (-r[2], r[0]))


def unread_note(unread: Sequence[UnreadAncestor], most: int = 4) -> str | None:
    """The stderr note after a report when some classes' ancestors could not be read: which
    packages were missing, how many classes each hides, and one class of each to look at."""
    if not unread:
        return None
    # each package's classes, with the first entry of each (a class may miss several bases)
    by_package: dict[str, dict[str, UnreadAncestor]] = {}
    for u in unread:
        by_package.setdefault(u.package, {}).setdefault(u.cls, u)
    classes = len({u.cls for u in unread})
    ranked = sorted(by_package.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    parts = []
    for package, items in ranked[:most]:
        n, first = len(items), next(iter(items.values()))
        name = first.cls.rpartition(".")[2]
        where = f"e.g. {name} at {first.path}:{first.line}"
        parts.append(f"{package} ({n} class{'es' if n != 1 else ''}, {where})")
    if len(ranked) > most:
        rest = len(ranked) - most
        parts.append(f"{rest} more package{'s' if rest != 1 else ''}")
    return (
        f"note: {classes} {'classes call' if classes != 1 else 'class calls'} into ancestors from "
        "packages initlint could not find, so repeats of what those ancestors build were not "
        f"checked: {', '.join(parts)}. Install them in the environment initlint reads (shown by "
        "`initlint check --show-settings`), or name another with `--python`."
    )

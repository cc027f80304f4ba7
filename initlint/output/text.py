"""The default ruff-like format: ``path:line:col: CODE message``, plus related locations."""

from __future__ import annotations

from collections.abc import Sequence

from initlint.diagnostics import Diagnostic

_BOLD, _RED, _YELLOW, _CYAN, _DIM, _RESET = (
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[33m",
    "\x1b[36m",
    "\x1b[2m",
    "\x1b[0m",
)


def render_text(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    def c(code: str, s: str) -> str:
        return f"{code}{s}{_RESET}" if color else s

    out: list[str] = []
    for d in diagnostics:
        where = c(_BOLD, f"{d.path}:{d.line}:{d.column}:")
        code = c(_RED if d.severity == "error" else _YELLOW, d.code)
        out.append(f"{where} {code} {d.message}")
        for r in d.related:
            out.append(c(_DIM, f"    note: {r.path}:{r.line}: {r.message}"))
    return "\n".join(out) + ("\n" if out else "")


def summary_line(diagnostics: Sequence[Diagnostic], files: int) -> str:
    if not diagnostics:
        return f"All checks passed ({files} file{'s' if files != 1 else ''} checked)."
    fixable = sum(1 for d in diagnostics if d.fix is not None)
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe")
    n = len(diagnostics)
    line = (
        f"Found {n} diagnostic{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}."
    )
    if fixable:
        line += f" {fixable} fixable ({safe} safe; run `initlint fix`"
        line += ", add --unsafe-fixes for the rest)." if fixable > safe else ")."
    return line

"""initlint's own suppression comments in a file, and which of them suppress nothing.

A comment counts as initlint's when it is ``# initlint: ignore`` (with or without codes) or a
``# noqa: ...`` that lists an ``IL`` code; a bare ``# noqa`` or ``# noqa: E501`` belongs to
other linters and is never reported. The facts pass finds them (a text search, then
``tokenize`` for the few files that have one, so that a ``#`` inside a string does not
count); the check records which comment suppressed each diagnostic; what is left over is
an unused suppression, as ruff's RUF100 reports (here a warning on stderr, never an exit 1).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Iterable

# A comment holding `initlint: ignore` (optionally `[IL001, IL002]`) or flake8's `noqa`
# (optionally `: IL001,E501`); codes are prefixes, separated by commas or spaces.
_SUPPRESS = (
    r"#\s*(?:initlint:\s*ignore\b(?:\s*\[(?P<codes>[^\]]*)\])?"
    r"|noqa\b(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)"
)
ALL = frozenset({"*"})


@functools.cache
def _suppress() -> re.Pattern[str]:
    """The compiled suppression pattern: compiled on first use (~0.6 ms), as a run whose
    regions all come from the cache never reads a comment."""
    return re.compile(_SUPPRESS, re.IGNORECASE)


def suppressed_codes(comment: str) -> frozenset[str]:
    """Codes (or prefixes) a comment suppresses; ``ALL`` for a bare ignore / noqa."""
    out: set[str] = set()
    for m in _suppress().finditer(comment):
        listed = m.group("codes") if m.group("codes") is not None else m.group("noqa")
        if listed is None:
            return ALL
        out.update(c.upper() for c in re.split(r"[\s,]+", listed) if c)
    return frozenset(out)


_CANDIDATE = re.compile(r"#[ \t]*(?:initlint[ \t]*:[ \t]*ignore|noqa[ \t]*:[^\r\n]*\bIL\d)", re.I)


def own_codes(comment: str) -> frozenset[str] | None:
    """The codes (prefixes) of initlint's that ``comment`` suppresses, ``ALL`` for a bare
    ``# initlint: ignore``; None when the comment is not initlint's."""
    codes = suppressed_codes(comment)
    if not codes:
        return None
    if codes is ALL:
        return ALL if re.search(r"initlint\s*:\s*ignore", comment, re.I) else None
    own = frozenset(c for c in codes if c.startswith("IL"))
    return own or None


def suppression_comments(text: str) -> tuple[tuple[int, str], ...]:
    """(line, comment) of each of initlint's suppression comments in a module's text."""
    if "initlint" not in text and "noqa" not in text:
        return ()
    if _CANDIDATE.search(text) is None:
        return ()
    out: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if tok.type == tokenize.COMMENT and own_codes(tok.string) is not None:
                out.append((tok.start[0], tok.string))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return ()
    return tuple(out)


def unused(
    comments: Iterable[tuple[str, int, str]], used: Iterable[tuple[str, int, str]]
) -> list[tuple[str, int, str]]:
    """(path, line, message) for each comment, or code of a comment, that suppressed none of
    ``used`` ((path, line of the comment, code suppressed))."""
    hits: dict[tuple[str, int], set[str]] = {}
    for path, line, code in used:
        hits.setdefault((path, line), set()).add(code)
    out: list[tuple[str, int, str]] = []
    seen: set[tuple[str, int]] = set()
    for path, line, comment in comments:
        if (path, line) in seen:
            continue
        seen.add((path, line))
        codes = own_codes(comment)
        if codes is None:
            continue
        got = hits.get((path, line), set())
        text = comment.strip()
        if codes is ALL:
            if not got:
                out.append((path, line, f"`{text}` suppresses nothing"))
            continue
        idle = sorted(c for c in codes if not any(g.startswith(c) for g in got))
        if len(idle) == len(codes):
            out.append((path, line, f"`{text}` suppresses nothing"))
        elif idle:
            listed = ", ".join(idle)
            out.append((path, line, f"{listed} in `{text}` suppresses nothing"))
    return sorted(out)

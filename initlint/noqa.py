"""``initlint check --add-noqa``: a ``# noqa: ILxxx`` comment on every line with a finding,
to adopt initlint on a codebase with existing findings (ruff's ``--add-noqa``).

The comment goes on the finding's first line (a suppression on the first or last line of
the statement counts), or on the statement's last line when the first one ends inside a
multi-line string. An existing ``# noqa: CODES`` on that line gets the new codes added; any
other comment is kept, the noqa after it. Line endings, encoding and BOM stay as they are.
A second run finds nothing to add.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from initlint.diagnostics import Diagnostic
from initlint.sources import decode, read_bytes

if TYPE_CHECKING:
    from initlint.fix.apply import FileChange
    from initlint.options import CheckRequest
    from initlint.settings import Settings

_NOQA = re.compile(r"#\s*noqa\b(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.I)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
BOM = b"\xef\xbb\xbf"
_BLANK = " \t"


def _unbreakable(text: str) -> set[int]:
    """Lines that end inside a token (a multi-line string): no comment can go there."""
    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if tok.start[0] < tok.end[0] and tok.type == tokenize.STRING:
                out.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def _comments(text: str) -> dict[int, tuple[int, str]]:
    """Line -> (character column, text) of its comment."""
    out: dict[int, tuple[int, str]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = (tok.start[1], tok.string)
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def add_noqa_text(text: str, wanted: dict[int, set[str]]) -> tuple[str, int]:
    """``text`` with the codes of ``wanted`` (line -> codes, from :func:`plan_lines`)
    suppressed on their lines, and how many lines got a directive."""
    lines = _LINE.findall(text)
    comments = _comments(text)
    added = 0
    for line, codes in sorted(wanted.items()):
        if not 1 <= line <= len(lines):
            continue
        raw = lines[line - 1]
        body = raw.rstrip("\r\n")
        ending = raw[len(body) :]
        found = comments.get(line)
        if found is not None:
            col, comment = found
            m = _NOQA.search(comment)
            if m is not None:
                if m.group("codes") is None:
                    continue  # a bare noqa suppresses everything already
                have = [c for c in re.split(r"[\s,]+", m.group("codes")) if c]
                new = [c for c in sorted(codes) if not any(c.startswith(h.upper()) for h in have)]
                if not new:
                    continue
                merged = f"# noqa: {', '.join([*have, *new])}"
                start = col + m.start()
                body = body[:start] + merged + body[col + m.end() :]
                lines[line - 1] = body + ending
                added += 1
                continue
        listed = ", ".join(sorted(codes))
        lines[line - 1] = f"{body.rstrip(_BLANK)}  # noqa: {listed}{ending}"
        added += 1
    return "".join(lines), added


def plan_lines(text: str, diagnostics: list[Diagnostic]) -> dict[int, set[str]]:
    """The line each diagnostic's directive goes on, with the codes for it."""
    blocked = _unbreakable(text)
    out: dict[int, set[str]] = {}
    for d in diagnostics:
        if d.code.startswith("IL9"):
            continue  # a file initlint could not read: no comment suppresses that
        # A comment on the first or the last line of the reported statement suppresses it.
        line = next((n for n in (d.line, d.end_line) if n not in blocked), None)
        if line is None:
            continue
        out.setdefault(line, set()).add(d.code)
    return out


def noqa_changes(diagnostics: Sequence[Diagnostic], cwd: Path) -> tuple[list[FileChange], int]:
    """The rewritten files, and the number of directives added."""
    from initlint.fix.apply import FileChange

    by_file: dict[Path, list[Diagnostic]] = {}
    for d in diagnostics:
        path = Path(d.path)
        by_file.setdefault(path if path.is_absolute() else cwd / path, []).append(d)
    changes: list[FileChange] = []
    total = 0
    for path, diags in sorted(by_file.items()):
        data = read_bytes(path)
        text, encoding = decode(data)
        new_text, added = add_noqa_text(text, plan_lines(text, diags))
        if not added:
            continue
        new = new_text.encode(encoding)
        if data.startswith(BOM) and not new.startswith(BOM):
            new = BOM + new
        changes.append(FileChange(path, data, new))
        total += added
    return changes, total


def add_noqa_and_report(request: CheckRequest, load: Callable[[Path], Settings]) -> int:
    """Check, add the directives, write them (all files or none). Exit code: 0, or 2 for
    an error (a read-only file, say)."""
    from initlint.fix.apply import write_all
    from initlint.fix.transform import FixError
    from initlint.reporting import check_all

    combined = check_all(request, load)
    cwd = Path.cwd().absolute()
    try:
        changes, added = noqa_changes(combined.diagnostics, cwd)
        write_all(changes)
    except (FixError, OSError) as exc:
        click.echo(f"error: no file was changed: {exc}", err=True)
        return 2
    files = len(changes)
    click.echo(
        f"Added {added} noqa directive{'s' if added != 1 else ''} "
        f"to {files} file{'s' if files != 1 else ''}.",
        err=True,
    )
    if combined.internal_errors:
        return 2
    return 0

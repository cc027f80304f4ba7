"""Exact diagnostic ranges (in characters) and suppression comments.

Only the function that holds a finding is parsed here (``ast`` for ranges, ``tokenize`` for
comments): every finding sits in a function body, and the function's own lines, padded to
their place, give the same ranges and comments as a whole-file parse. What a region yields
is cached by the file's content hash. No libcst: ``check`` does not import it at all.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from initlint import suppressions
from initlint.cache import BlobCache, content_key, source_fingerprint
from initlint.diagnostics import Diagnostic
from initlint.facts.model import Span
from initlint.records import dataclass
from initlint.sources import UnreadableError, read_source
from initlint.suppressions import ALL, suppressed_codes

Range = tuple[int, int, int, int]  # start line, start char col, end line, end char col
# (first line, last line, column) of the ``def`` around a line of a file, or None.
Enclosing = Callable[[Path, int], tuple[int, int, int] | None]


@dataclass
class _FileInfo:
    """What a parsed region yields: node ranges, suppressions, statement ends."""

    # start (line, char col) -> ranges of statements/calls/args starting there
    ranges: dict[tuple[int, int], list[Range]] = field(default_factory=dict)
    # line -> suppressed codes ("*" for all)
    suppress: dict[int, frozenset[str]] = field(default_factory=dict)
    # statement start line -> its last line (for multi-line statements)
    stmt_end: dict[int, int] = field(default_factory=dict)


# Statements without a body: libcst's small statements, the ones a range can point at.
_SMALL = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Delete,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.Assert,
)


def _collect(tree: ast.Module, text: str, info: _FileInfo, offset: int) -> None:
    """Fill ``info`` from a parsed text whose line 1 is line ``offset + 1`` of the file."""
    lines = re.split(r"\r\n|\r|\n", text)

    def add(node: ast.expr | ast.stmt | ast.keyword) -> None:
        end_line = node.end_lineno or node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        start = (node.lineno + offset, _char_col(lines, node.lineno, node.col_offset))
        end = (end_line + offset, _char_col(lines, end_line, end_col))
        info.ranges.setdefault(start, []).append((*start, *end))

    for node in ast.walk(tree):
        if isinstance(node, _SMALL):
            assert isinstance(node, ast.stmt)
            add(node)
            line, last = node.lineno + offset, (node.end_lineno or node.lineno) + offset
            info.stmt_end[line] = max(info.stmt_end.get(line, line), last)
        elif isinstance(node, ast.Call):
            add(node)
            for arg in node.args:
                add(arg)
            for keyword in node.keywords:
                add(keyword)
    # newline=None: universal newlines, so a lone \r ends a line as it does for ast.
    for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
        if tok.type == tokenize.COMMENT:
            codes = suppressed_codes(tok.string)
            if codes:
                line = tok.start[0] + offset
                info.suppress[line] = info.suppress.get(line, frozenset()) | codes


def _read_text(text: str, offset: int) -> _FileInfo | None:
    """Parse ``text`` (line 1 is line ``offset + 1`` of the file) and collect; None when it
    cannot be parsed (a syntax error, or nesting beyond the stack)."""
    info = _FileInfo()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
        _collect(tree, text, info, offset)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
        return None
    return info


@functools.cache
def _cache_name() -> str:
    """Entries are keyed by this file's own source and the suppression syntax's too:
    editing either invalidates them."""
    return f"locate-{source_fingerprint(sys.modules[__name__], suppressions)}"


class Locator:
    """Ranges and suppressions for diagnostics.

    ``enclosing`` names the function around a line (from the facts): then only that function
    is parsed. Without it, or when the function cannot be parsed alone, the whole file is.
    ``root`` turns on the on-disk cache of what each region yields.
    """

    def __init__(
        self, enclosing: Enclosing | None = None, root: Path | None = None, use_cache: bool = True
    ) -> None:
        self._enclosing = enclosing
        self._cache = BlobCache(root, _cache_name(), use_cache) if root is not None else None
        self._sources: dict[Path, tuple[str, str, list[str]] | None] = {}
        self._regions: dict[tuple[Path, int, int, int], _FileInfo | None] = {}

    def _source(self, path: Path) -> tuple[str, str, list[str]] | None:
        """(content hash, text, lines) of a file; None when it cannot be read."""
        if path not in self._sources:
            try:
                src = read_source(path)
            except UnreadableError:
                self._sources[path] = None
            else:
                lines = re.split(r"\r\n|\r|\n", src.text)
                self._sources[path] = (content_key(src.data), src.text, lines)
        return self._sources[path]

    def _info(self, path: Path, line: int) -> tuple[list[str], _FileInfo | None] | None:
        source = self._source(path)
        if source is None:
            return None
        key, text, lines = source
        region = self._enclosing(path, line) if self._enclosing is not None else None
        if region is not None and not (1 <= region[0] <= line <= region[1] <= len(lines)):
            region = None
        first, last, col = region if region is not None else (0, 0, 0)
        memo = (path, first, last, col)
        if memo not in self._regions:
            self._regions[memo] = self._read(key, text, lines, first, last, col)
        return lines, self._regions[memo]

    def _read(
        self, key: str, text: str, lines: list[str], first: int, last: int, col: int
    ) -> _FileInfo | None:
        cache_key = f"{key}-{first}-{last}-{col}"
        if self._cache is not None:
            hit = self._cache.load(cache_key)
            if hit is False:  # the region could not be parsed when this entry was written
                return None
            if isinstance(hit, _FileInfo):
                return hit
        info = None
        if first:
            # The def's own lines; an indented def goes under `if 1:`, one line above it.
            body = "\n".join(lines[first - 1 : last]) + "\n"
            if col == 0:
                info = _read_text(body, first - 1)
            else:
                info = _read_text("if 1:\n" + body, first - 2)
        if info is None:
            info = _read_text(text, 0)  # the whole file, as before regions existed
        if self._cache is not None:
            self._cache.store(cache_key, info if info is not None else False)
        return info

    def range(self, path: Path, span: Span, statement: bool = True) -> tuple[int, int, int, int]:
        """1-based (line, col, end_line, end_col) of the node at an ``ast`` span."""
        found = self._info(path, span.line)
        if found is None or found[1] is None:
            return span.line, span.col + 1, span.end_line, span.end_col + 1
        lines, info = found[0], found[1]
        col = _char_col(lines, span.line, span.col)
        end_col = _char_col(lines, span.end_line, span.end_col)
        candidates = info.ranges.get((span.line, col), [])
        for rng in candidates:
            if (rng[2], rng[3]) == (span.end_line, end_col):
                return rng[0], rng[1] + 1, rng[2], rng[3] + 1
        if candidates:
            rng = max(candidates, key=lambda r: (r[2], r[3]))
            return rng[0], rng[1] + 1, rng[2], rng[3] + 1
        return span.line, col + 1, span.end_line, end_col + 1

    def suppressed(self, d: Diagnostic, cwd: Path) -> bool:
        """True when a comment on the diagnostic's first or last line suppresses its code.

        IL9xx diagnostics (files initlint could not read or parse) cannot be suppressed.
        """
        return self.suppressing_line(d, cwd) is not None

    def suppressing_line(self, d: Diagnostic, cwd: Path) -> int | None:
        """The line of the comment that suppresses ``d``, or None (see :meth:`suppressed`)."""
        if d.code.startswith("IL9"):
            return None
        path = Path(d.path)
        found = self._info(path if path.is_absolute() else cwd / path, d.line)
        if found is None or found[1] is None:
            return None
        info = found[1]
        for line in sorted({d.line, d.end_line, info.stmt_end.get(d.line, d.line)}):
            codes = info.suppress.get(line, frozenset())
            if codes is ALL or "*" in codes or any(d.code.startswith(c) for c in codes):
                return line
        return None


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    if 1 <= line <= len(lines):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col

"""libcst, the parser of record: exact diagnostic ranges and suppression comments.

Only the function that holds a finding is parsed here: every finding sits in a function body,
and the function's own lines, padded to their place, give the same ranges and comments as a
whole-file parse. The fact pass uses the faster ``ast``. What a region yields is cached by the
file's content hash, so a warm run neither imports nor runs libcst.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from initlint.cache import BlobCache, content_key, source_fingerprint
from initlint.diagnostics import Diagnostic
from initlint.facts.model import Span
from initlint.sources import UnreadableError, read_source

if TYPE_CHECKING:
    import libcst as cst

# A comment holding `initlint: ignore` (optionally `[IL001, IL002]`) or flake8's `noqa`
# (optionally `: IL001,E501`); codes are prefixes, separated by commas or spaces.
SUPPRESS = re.compile(
    r"#\s*(?:initlint:\s*ignore\b(?:\s*\[(?P<codes>[^\]]*)\])?"
    r"|noqa\b(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)",
    re.IGNORECASE,
)
ALL = frozenset({"*"})

Range = tuple[int, int, int, int]  # start line, start char col, end line, end char col
# (first line, last line, column) of the ``def`` around a line of a file, or None.
Enclosing = Callable[[Path, int], tuple[int, int, int] | None]


@dataclass
class _FileInfo:
    # start (line, char col) -> ranges of statements/calls/args starting there
    ranges: dict[tuple[int, int], list[Range]] = field(default_factory=dict)
    # line -> suppressed codes ("*" for all)
    suppress: dict[int, frozenset[str]] = field(default_factory=dict)
    # statement start line -> its last line (for multi-line statements)
    stmt_end: dict[int, int] = field(default_factory=dict)


def _collect(module: cst.Module, info: _FileInfo, offset: int) -> None:
    """Fill ``info`` from a parsed module whose line 1 is line ``offset + 1`` of the file."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    class Collector(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def _add(self, node: cst.CSTNode) -> None:
            rng = self.get_metadata(PositionProvider, node)
            start = (rng.start.line + offset, rng.start.column)
            info.ranges.setdefault(start, []).append(
                (start[0], start[1], rng.end.line + offset, rng.end.column)
            )

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            rng = self.get_metadata(PositionProvider, node)
            info.stmt_end[rng.start.line + offset] = rng.end.line + offset
            for small in node.body:
                self._add(small)

        def visit_Call(self, node: cst.Call) -> None:
            self._add(node)

        def visit_Arg(self, node: cst.Arg) -> None:
            self._add(node)

        def visit_Comment(self, node: cst.Comment) -> None:
            codes = suppressed_codes(node.value)
            if codes:
                line = self.get_metadata(PositionProvider, node).start.line + offset
                info.suppress[line] = info.suppress.get(line, frozenset()) | codes

    MetadataWrapper(module, unsafe_skip_copy=True).visit(Collector())


def _read_text(text: str, offset: int) -> _FileInfo | None:
    """Parse ``text`` (line 1 is line ``offset + 1`` of the file) and collect; None when
    libcst cannot (a syntax it lacks, or nesting beyond the stack: libcst then raises
    RecursionError, or a KeyError from its position bookkeeping half-way through)."""
    import libcst as cst

    info = _FileInfo()
    try:
        _collect(cst.parse_module(text), info, offset)
    except (cst.ParserSyntaxError, RecursionError, KeyError, ValueError):
        return None
    return info


@functools.cache
def _cache_name() -> str:
    """Entries are keyed by this file's own source too: editing it invalidates them."""
    return f"locate-{source_fingerprint(sys.modules[__name__])}"


def suppressed_codes(comment: str) -> frozenset[str]:
    """Codes (or prefixes) a comment suppresses; ``ALL`` for a bare ignore / noqa."""
    out: set[str] = set()
    for m in SUPPRESS.finditer(comment):
        listed = m.group("codes") if m.group("codes") is not None else m.group("noqa")
        if listed is None:
            return ALL
        out.update(c.upper() for c in re.split(r"[\s,]+", listed) if c)
    return frozenset(out)


class Locator:
    """Ranges and suppressions for diagnostics, read with libcst.

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
            if hit is False:  # libcst could not read it when this entry was written
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
        if d.code.startswith("IL9"):
            return False
        path = Path(d.path)
        found = self._info(path if path.is_absolute() else cwd / path, d.line)
        if found is None or found[1] is None:
            return False
        info = found[1]
        for line in {d.line, d.end_line, info.stmt_end.get(d.line, d.line)}:
            codes = info.suppress.get(line, frozenset())
            if codes is ALL or "*" in codes or any(d.code.startswith(c) for c in codes):
                return True
        return False


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    if 1 <= line <= len(lines):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col

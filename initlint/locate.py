"""libcst, the parser of record: exact diagnostic ranges and suppression comments.

Only files that carry a finding are parsed here; the fact pass uses the faster ``ast``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from initlint.diagnostics import Diagnostic
from initlint.facts.model import Span
from initlint.sources import UnreadableError, read_source

# A comment holding `initlint: ignore` (optionally `[IL001, IL002]`) or flake8's `noqa`
# (optionally `: IL001,E501`); codes are prefixes, separated by commas or spaces.
SUPPRESS = re.compile(
    r"#\s*(?:initlint:\s*ignore\b(?:\s*\[(?P<codes>[^\]]*)\])?"
    r"|noqa\b(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)",
    re.IGNORECASE,
)
ALL = frozenset({"*"})


@dataclass
class _FileInfo:
    lines: list[str]
    # start (line, char col) -> ranges of statements/calls/args starting there
    ranges: dict[tuple[int, int], list[CodeRange]] = field(default_factory=dict)
    # line -> suppressed codes ("*" for all)
    suppress: dict[int, frozenset[str]] = field(default_factory=dict)
    # statement start line -> its last line (for multi-line statements)
    stmt_end: dict[int, int] = field(default_factory=dict)


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, info: _FileInfo) -> None:
        super().__init__()
        self.info = info

    def _add(self, node: cst.CSTNode) -> None:
        rng = self.get_metadata(PositionProvider, node)
        self.info.ranges.setdefault((rng.start.line, rng.start.column), []).append(rng)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        rng = self.get_metadata(PositionProvider, node)
        self.info.stmt_end[rng.start.line] = rng.end.line
        for small in node.body:
            self._add(small)

    def visit_Call(self, node: cst.Call) -> None:
        self._add(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        self._add(node)

    def visit_Comment(self, node: cst.Comment) -> None:
        codes = suppressed_codes(node.value)
        if codes:
            line = self.get_metadata(PositionProvider, node).start.line
            self.info.suppress[line] = self.info.suppress.get(line, frozenset()) | codes


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
    def __init__(self) -> None:
        self._files: dict[Path, _FileInfo | None] = {}

    def _info(self, path: Path) -> _FileInfo | None:
        if path in self._files:
            return self._files[path]
        info: _FileInfo | None
        try:
            src = read_source(path)
            info = _FileInfo(re.split(r"\r\n|\r|\n", src.text))
            module = cst.parse_module(src.text)
            MetadataWrapper(module, unsafe_skip_copy=True).visit(_Collector(info))
        except (UnreadableError, cst.ParserSyntaxError, RecursionError):
            info = None
        self._files[path] = info
        return info

    def range(self, path: Path, span: Span, statement: bool = True) -> tuple[int, int, int, int]:
        """1-based (line, col, end_line, end_col) of the node at an ``ast`` span."""
        info = self._info(path)
        if info is None:
            return span.line, span.col + 1, span.end_line, span.end_col + 1
        col = _char_col(info.lines, span.line, span.col)
        end_col = _char_col(info.lines, span.end_line, span.end_col)
        candidates = info.ranges.get((span.line, col), [])
        for rng in candidates:
            if (rng.end.line, rng.end.column) == (span.end_line, end_col):
                return rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1
        if candidates:
            rng = max(candidates, key=lambda r: (r.end.line, r.end.column))
            return rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1
        return span.line, col + 1, span.end_line, end_col + 1

    def suppressed(self, d: Diagnostic, cwd: Path) -> bool:
        """True when a comment on the diagnostic's first or last line suppresses its code.

        IL9xx diagnostics (files initlint could not read or parse) cannot be suppressed.
        """
        if d.code.startswith("IL9"):
            return False
        path = Path(d.path)
        info = self._info(path if path.is_absolute() else cwd / path)
        if info is None:
            return False
        for line in {d.line, d.end_line, info.stmt_end.get(d.line, d.line)}:
            codes = info.suppress.get(line, frozenset())
            if codes is ALL or "*" in codes or any(d.code.startswith(c) for c in codes):
                return True
        return False


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    if 1 <= line <= len(lines):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col

"""A fix applied without a libcst parse of the whole source (``rewrite_parts``): ``ast`` cuts
the source into its top-level parts, and libcst parses only the parts that hold an op, or
only the methods of a class that hold one (each under a ``PIECE_HEADER`` line)."""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections import OrderedDict
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.fix.applier import STATEMENT_OPS, OpApplier
from initlint.fixplan import Op
from initlint.records import dataclass


@dataclass(frozen=True)
class _TopLevelParts:
    """A source cut by ``ast`` into top-level parts, each a whole number of lines: the lines
    after the previous top-level statement up to the end of the next one (statements that
    share a line go in one part), then the lines after the last statement."""

    parts: tuple[str, ...]
    starts: tuple[int, ...]  # lines before each part
    lines: list[str]  # the source's lines, as splitlines gives them (byte -> char columns)
    indent: str  # the default indent libcst would detect for the whole source
    # For a part that is one class statement: (first line, def line, last line) of each
    # method defined directly in its body (first line: its first decorator's); else None.
    methods: tuple[tuple[tuple[int, int, int], ...] | None, ...] = ()


_SPLITS: OrderedDict[str, _TopLevelParts | None] = OrderedDict()
_PARTS: OrderedDict[tuple[str, str], tuple[MetadataWrapper, frozenset[int]]] = OrderedDict()
_SPLITS_KEEP = 16
_PARTS_KEEP = 64


def _first_indent(source: str) -> str | None:
    """What libcst detects as the default indent: the first INDENT token's text (its
    fallback, four spaces, when there is none); None when tokenize fails before one."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.INDENT:
                return tok.string
    except (tokenize.TokenError, SyntaxError):
        return None
    return "    "


def _top_level_parts(source: str) -> _TopLevelParts | None:
    if source in _SPLITS:
        _SPLITS.move_to_end(source)
        return _SPLITS[source]
    split = None
    indent = _first_indent(source) if "\r" not in source and source.endswith("\n") else None
    if indent is not None and "\t" not in indent:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None and tree.body:
            lines = [line + "\n" for line in source.split("\n")[:-1]]
            ends: list[int] = []
            for stmt in tree.body:
                first = min([stmt.lineno, *(d.lineno for d in _decorators(stmt))])
                end = stmt.end_lineno or stmt.lineno
                if ends and first <= ends[-1]:
                    ends[-1] = max(ends[-1], end)  # shares a line with the previous one
                else:
                    ends.append(end)
            parts, starts, before = [], [], 0
            for end in ends:
                parts.append("".join(lines[before:end]))
                starts.append(before)
                before = end
            if before < len(lines):
                parts.append("".join(lines[before:]))
                starts.append(before)
            if "".join(parts) == source:
                methods = _class_methods(tree.body, starts)
                split = _TopLevelParts(
                    tuple(parts), tuple(starts), source.splitlines(), indent, methods
                )
    _SPLITS[source] = split
    while len(_SPLITS) > _SPLITS_KEEP:
        _SPLITS.popitem(last=False)
    return split


def _class_methods(
    body: list[ast.stmt], starts: Sequence[int]
) -> tuple[tuple[tuple[int, int, int], ...] | None, ...]:
    """Per part: the methods of the one class statement it holds (see _TopLevelParts.methods)."""
    at: dict[int, list[ast.stmt]] = {}
    for stmt in body:
        first = min([stmt.lineno, *(d.lineno for d in _decorators(stmt))])
        at.setdefault(bisect.bisect_right(starts, first - 1) - 1, []).append(stmt)
    out: list[tuple[tuple[int, int, int], ...] | None] = []
    for i in range(len(starts)):
        stmts = at.get(i, [])
        if len(stmts) != 1 or not isinstance(stmts[0], ast.ClassDef):
            out.append(None)
            continue
        out.append(
            tuple(
                (min([m.lineno, *(d.lineno for d in m.decorator_list)]), m.lineno, m.end_lineno)
                for m in stmts[0].body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                and m.end_lineno is not None
            )
        )
    return tuple(out)


def _decorators(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return list(stmt.decorator_list)
    return []


def _parse_part(code: str, indent: str) -> tuple[MetadataWrapper, frozenset[int]]:
    """A part parsed alone, wrapped with its positions resolved (visits reuse them: each
    plan that edits the class visits it again), and the first lines of its statements."""
    key = (code, indent)
    known = _PARTS.get(key)
    if known is None:
        config = cst.PartialParserConfig(default_indent=indent, default_newline="\n")
        wrapper = MetadataWrapper(cst.parse_module(code, config=config), unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        firsts = frozenset(positions[stmt].start.line for stmt in wrapper.module.body)
        known = _PARTS[key] = (wrapper, firsts)
        while len(_PARTS) > _PARTS_KEEP:
            _PARTS.popitem(last=False)
    else:
        _PARTS.move_to_end(key)
    return known


def rewrite_parts(source: str, ops: Sequence[Op]) -> tuple[str, list[str], set[Op]] | None:
    """Like _apply_per_statement, without a libcst parse of the whole source: libcst parses
    only the parts that hold an op, each alone, with the whole source's default indent and
    newline (so that new code is laid out as in the whole module). The ops' targets lie in
    the top-level statement whose lines hold them, so the result is the same. None when a
    part cannot be parsed alone or an op targets a top-level statement itself: then the
    whole source is parsed, as before."""
    split = _top_level_parts(source)
    if split is None or not ops:
        return None
    at: dict[int, list[Op]] = {}
    for op in ops:
        i = bisect.bisect_right(split.starts, op.line - 1) - 1
        if 0 <= i < len(split.parts):
            at.setdefault(i, []).append(op)
    applier: OpApplier | None = None
    parts = list(split.parts)
    changed = []
    for i in sorted(at):
        pieces = _method_pieces(split, i, at[i])
        if pieces is None:
            pieces = [(split.starts[i], split.parts[i], "")]  # the whole part
        lines = parts[i].split("\n")[:-1] if len(pieces) > 1 or pieces[0][2] else []
        done = []
        for start, code, header in pieces:
            try:
                wrapper, firsts = _parse_part(code, split.indent)
            except Exception:  # noqa: BLE001 - not parseable alone: the whole source decides
                return None
            module = wrapper.module
            if any(isinstance(op, STATEMENT_OPS) and op.line - start in firsts for op in at[i]):
                return None
            if applier is None:
                applier = OpApplier(module, split.lines, ops)
            applier.module = module
            applier.line_offset = start
            new = wrapper.visit(applier).code
            if not new.startswith(header):
                return None
            if new != code:
                changed.append(new)
            done.append((start, code, new[len(header) :]))
        if not lines:
            parts[i] = done[0][2]
            continue
        # Each method's new code in place of its lines, the class's other lines kept.
        for start, code, new in reversed(done):
            first = start + 1 - split.starts[i]  # the method's first line, 0-based in the part
            lines[first : first + code.count("\n") - 1] = [new.removesuffix("\n")]
        parts[i] = "\n".join(lines) + "\n"
    if applier is None:
        return None
    return "".join(parts), changed, applier.pending


# The line a method is parsed under, alone (see _method_pieces).
PIECE_HEADER = "class _Part:\n"


def _method_pieces(
    split: _TopLevelParts, i: int, ops: Sequence[Op]
) -> list[tuple[int, str, str]] | None:
    """When part ``i`` is a class and every op lies inside one of its methods (not on a
    method's decorator or def lines, for a statement op), the methods holding ops, each
    alone under a class header of its own: (lines before the piece, its code, the header).
    libcst then parses and visits a method, not the whole class (a large class's positions
    cost seconds), and the result is the same: an op's target lies in its method, and the
    method's lines keep their indentation and columns. None: the whole part is visited."""
    methods = split.methods[i] if i < len(split.methods) else None
    if not methods:
        return None
    firsts = [m[0] for m in methods]
    holding: dict[int, tuple[int, int, int]] = {}
    for op in ops:
        k = bisect.bisect_right(firsts, op.line) - 1
        if k < 0 or op.line > methods[k][2]:
            return None  # outside every method
        if isinstance(op, STATEMENT_OPS) and op.line <= methods[k][1]:
            return None  # on the method statement itself: its neighbours matter
        holding[k] = methods[k]
    lines = split.parts[i].split("\n")
    out = []
    for first, _, last in sorted(holding.values()):
        a, b = first - 1 - split.starts[i], last - split.starts[i]
        if a < 1 or b > len(lines) - 1:
            return None
        code = PIECE_HEADER + "\n".join(lines[a:b]) + "\n"
        out.append((first - 2, code, PIECE_HEADER))
    return out

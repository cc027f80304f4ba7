"""Fix ops applied to one module's source, formatting and comments kept (``rewrite``): by the
partial parse where it can (``fix/partial_parse.py``), else through a libcst parse of the
whole source, kept for the next plans that edit it, visiting only the top-level statements
that hold an op where that gives the same result. ``OpApplier`` (``fix/applier.py``) makes
the edits."""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.fix.applier import STATEMENT_OPS, OpApplier
from initlint.fix.partial_parse import rewrite_parts
from initlint.fixplan import Op
from initlint.records import dataclass


class FixError(Exception):
    """An op could not be applied (its target was not found or is ambiguous)."""


@dataclass
class _Parsed:
    """A source parsed once for every plan that edits it (libcst parses are slow)."""

    module: cst.Module
    lines: list[str]
    # The code of each header line, body statement and footer line, in order, when they add
    # up to the source exactly (None: no per-statement edits for this source, see rewrite).
    parts: list[str] | None = None
    # starts[i]: the lines before body statement i's code (its leading lines included);
    # starts[-1]: the lines before the footer.
    starts: list[int] = field(default_factory=list)
    wrappers: dict[int, MetadataWrapper] = field(default_factory=dict)
    full: MetadataWrapper | None = None

    def statement(self, i: int) -> MetadataWrapper:
        """Body statement ``i`` alone in a module of its own (same indent and newline)."""
        wrapper = self.wrappers.get(i)
        if wrapper is None:
            alone = self.module.with_changes(body=(self.module.body[i],), header=(), footer=())
            wrapper = self.wrappers[i] = MetadataWrapper(alone, unsafe_skip_copy=True)
        return wrapper

    def whole(self) -> MetadataWrapper:
        if self.full is None:
            self.full = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return self.full


_PARSED: OrderedDict[str, _Parsed] = OrderedDict()
_PARSED_KEEP = 16  # sources kept parsed: the files of the plans being checked one after another


def _parse(source: str) -> _Parsed:
    parsed = _PARSED.get(source)
    if parsed is not None:
        _PARSED.move_to_end(source)
        return parsed
    module = cst.parse_module(source)
    parsed = _Parsed(module, source.splitlines())
    _cut_into_parts(parsed, source)
    _PARSED[source] = parsed
    while len(_PARSED) > _PARSED_KEEP:
        _PARSED.popitem(last=False)
    return parsed


def _cut_into_parts(parsed: _Parsed, source: str) -> None:
    """Fill ``parts`` and ``starts`` when the module's code is exactly the sum of its
    top-level parts, each ending a line (LF newlines only, so that line numbers agree with
    ``ast``'s); else leave ``parts`` None."""
    module = parsed.module
    if "\r" in source or not module.has_trailing_newline or not module.body:
        return
    code = module.code_for_node
    head = [code(h) for h in module.header]
    body = [code(s) for s in module.body]
    foot = [code(f) for f in module.footer]
    parts = [*head, *body, *foot]
    if "".join(parts) != source or not all(p.endswith("\n") for p in parts):
        return
    line = sum(p.count("\n") for p in head)
    starts = [line]
    for p in body:
        line += p.count("\n")
        starts.append(line)
    parsed.parts, parsed.starts = parts, starts


def _apply_per_statement(
    parsed: _Parsed, ops: Sequence[Op]
) -> tuple[str, list[str], set[Op]] | None:
    """Visit only the top-level statements holding an op, each in a module of its own, and
    splice their new code between the others' unchanged code. Same result as visiting the
    whole module: every node an op targets (a call, a def, a statement in a block) lies in
    the top-level statement whose lines hold the op's line. None when an op targets a
    top-level statement itself (its neighbours matter, e.g. for a wrap): visit the module."""
    if parsed.parts is None:
        return None
    starts = parsed.starts
    count = len(starts) - 1
    at: dict[int, list[Op]] = {}
    for op in ops:
        i = bisect.bisect_left(starts, op.line) - 1
        if 0 <= i < count:  # else in the header or the footer: no target, left pending
            at.setdefault(i, []).append(op)
    applier = OpApplier(parsed.module, parsed.lines, ops)
    head = len(parsed.parts) - len(parsed.module.footer) - count
    parts = list(parsed.parts)
    changed = []
    for i in sorted(at):
        wrapper = parsed.statement(i)
        alone = wrapper.module
        first = wrapper.resolve(PositionProvider)[alone.body[0]].start.line + starts[i]
        if any(isinstance(op, STATEMENT_OPS) and op.line == first for op in at[i]):
            return None
        applier.line_offset = starts[i]
        new = wrapper.visit(applier)
        code = "".join(alone.code_for_node(s) for s in new.body)
        if code != parts[head + i]:
            parts[head + i] = code
            changed.append(code)
    return "".join(parts), changed, applier.pending


def rewrite(source: str, ops: Sequence[Op]) -> tuple[str, list[str] | None]:
    """``source`` with ``ops`` applied, and the new code of what changed, each piece one that
    parses alone (None: the whole module was visited): a top-level statement, or a method
    under a ``PIECE_HEADER`` line. Raise FixError when an op finds no target.

    The source's libcst parse is kept for the next plans that edit it."""
    fast = rewrite_parts(source, ops)
    if fast is not None and not fast[2]:
        return fast[0], fast[1]
    parsed = _parse(source)
    done = _apply_per_statement(parsed, ops)
    if done is None:
        applier = OpApplier(parsed.module, parsed.lines, ops)
        code, changed, pending = parsed.whole().visit(applier).code, None, applier.pending
    else:
        code, changed, pending = done
    if pending:
        missing = ", ".join(sorted(type(o).__name__ for o in pending))
        raise FixError(f"could not place edit(s): {missing}")
    return code, changed


def apply_ops(source: str, ops: Sequence[Op]) -> str:
    """Return ``source`` with ``ops`` applied; raise FixError when an op finds no target."""
    return rewrite(source, ops)[0]

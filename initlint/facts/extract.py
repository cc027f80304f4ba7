"""Extract ModuleFacts from source with the stdlib ``ast`` parser (the cheap fact pass)."""

from __future__ import annotations

import ast
import warnings

from initlint.facts.expressions import clear_shared
from initlint.facts.function_reader import FunctionReader
from initlint.facts.model import (
    Body,
    BodyError,
    ModuleFacts,
    SourceText,
    Span,
    register_body_reader,
)
from initlint.facts.module_reader import ModuleReader
from initlint.facts.skeleton import skeleton
from initlint.sources import UnreadableError, decode


def extract_facts(source: bytes | str) -> ModuleFacts:
    """Parse ``source`` and return its facts, or facts carrying the syntax error."""
    clear_shared()
    text = _source_text(source)
    shape = skeleton(text.lines_text()) if text is not None else None
    if shape is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(shape[0])
            return ModuleReader(text, shape[1]).read(tree)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            clear_shared()  # the whole text decides: a real error, or a cut to distrust
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except SyntaxError as exc:
        return ModuleFacts(
            error=exc.msg or "invalid syntax", error_line=exc.lineno or 1, error_col=exc.offset or 1
        )
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return ModuleFacts(error=str(exc) or type(exc).__name__, error_line=1, error_col=1)
    return ModuleReader(text).read(tree)


def read_self_calls(facts: ModuleFacts) -> None:
    """Read now the bodies of the methods each class's ``__init__`` calls on ``self`` (the
    workers of the fact pass do this, so that the check that follows in the main process
    does not parse them one by one). Equal to reading them on first use; a body that does
    not parse stays unread, to be reported when the check reaches it."""
    for cls in facts.classes:
        called = {
            e.name
            for m in cls.methods
            if m.name == "__init__" and not m.is_lazy
            for e in m.effects
            if e.kind == "call" and e.detail == "self"
        }
        for m in cls.methods:
            if m.name in called:
                m.read_for_cache()


def _source_text(source: bytes | str) -> SourceText | None:
    if isinstance(source, str):
        return SourceText(source)
    try:
        return SourceText(decode(source)[0])
    except UnreadableError:
        return None  # ast.parse read it anyway: read every body now


def read_body(source: SourceText, span: Span, is_method: bool) -> Body | BodyError:
    """Parameters and effects of the function whose ``def`` spans ``span`` in ``source``,
    or, when the body does not parse, the whole text's syntax error as a value.

    Parses only the function's own lines, padded so that every line and column is what the
    whole-file parse reports: blank lines before it, and ``if 1:`` for an indented ``def``.
    """
    clear_shared()
    lines = source.lines()
    if span.col == 0:
        pad = "\n" * (span.line - 1)
    else:  # an indented def never sits on line 1
        pad = "\n" * (span.line - 2) + "if 1:\n"
    node: ast.AST | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(pad + "\n".join(lines[span.line - 1 : span.end_line]) + "\n")
        node = tree.body[0]
        if span.col != 0:
            assert isinstance(node, ast.If)
            node = node.body[0]
    except SyntaxError:
        pass
    if node is None or not _is_def_at(node, span):
        # A syntax error in the body (the skeleton did not parse it), or a cut the skeleton
        # got wrong: the whole text decides.
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                whole = ast.parse(source.text)
        except SyntaxError as exc:
            msg = exc.msg or "invalid syntax"
            return BodyError(source, msg, exc.lineno or 1, exc.offset or 1)
        found = [n for n in ast.walk(whole) if _is_def_at(n, span)]
        if not found:
            raise ValueError(f"function body at line {span.line} does not match its facts")
        node = found[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    reader = FunctionReader(node, is_method)
    effects = reader.read()  # (reading marks the parameters that may stand for parts)
    return Body(reader.params, effects)


def _is_def_at(node: ast.AST, span: Span) -> bool:
    """The ``def`` at ``span``'s start and end line (the end column of a skeleton's function
    is not known: only its lines)."""
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
        node.lineno,
        node.col_offset,
        node.end_lineno,
    ) == (span.line, span.col, span.end_line)


register_body_reader(read_body)

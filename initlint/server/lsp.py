"""``initlint server``: the language server (pygls), over stdio.

- Diagnostics on open, change and save, from the open documents' unsaved text and the rest
  of the project on disk; editing a base class in one open document refreshes the open
  documents whose classes it reaches.
- Code actions: each diagnostic's fix, the same edits as ``initlint check --format json``
  (checked the same way); an unsafe fix says so in its title and is never preferred.
- Hover on a diagnostic, and related information pointing at the ancestor statement that
  did the work first (and at the flag that can switch it off).
- Settings come from the project's ``[tool.initlint]``, read afresh for every analysis.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from initlint import __version__
from initlint.diagnostics import Diagnostic, Edit, Fix
from initlint.pipeline.unread import UnreadAncestor
from initlint.rules import REGISTRY
from initlint.server.session import FileResult, Session, keep_facts_in_memory

SOURCE = "initlint"
log = logging.getLogger("initlint.server")


class InitlintServer(LanguageServer):
    """A pygls server holding one :class:`Session`."""

    def __init__(self, session: Session | None = None, debounce: float = 0.0) -> None:
        super().__init__("initlint", __version__)
        self.session = session or Session()
        self.debounce = debounce  # seconds to wait for more changes before analysing
        self._pending: set[Path] = set()
        self._flush: asyncio.Handle | None = None

    # -- scheduling ------------------------------------------------------------------------
    def schedule(self, paths: list[Path]) -> None:
        """Diagnose ``paths`` soon: changes that arrive meanwhile join the same analysis."""
        self._pending.update(paths)
        if self._flush is None and self._pending:
            loop = asyncio.get_running_loop()
            self._flush = loop.call_later(self.debounce, self.flush)

    def flush(self) -> None:
        self._flush = None
        paths, self._pending = sorted(self._pending), set()
        try:
            results = self.session.diagnose(paths)
        except Exception as exc:  # noqa: BLE001 - the server keeps serving
            log.exception("analysis failed")
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"initlint: {exc!r}")
            )
            return
        for result in results.values():
            self.publish(result)

    def publish(self, result: FileResult) -> None:
        uri = from_fs_path(str(result.path)) or result.path.as_uri()
        doc = self.workspace.get_text_document(uri)
        diags = [to_lsp(d, result, doc) for d in result.diagnostics]
        diags += unread_hints(result.unread)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=result.version)
        )


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def _is_python(doc: TextDocument) -> bool:
    return doc.language_id == "python" or doc.uri.endswith((".py", ".pyi"))


def _position(doc: TextDocument | None, line: int, column: int) -> types.Position:
    """A 1-based (line, code point column) as an LSP position in the client's units."""
    pos = types.Position(line=max(line - 1, 0), character=max(column - 1, 0))
    if doc is None:
        return pos
    return doc.position_codec.position_to_client_units(doc.lines, pos)


def _uri(result: FileResult, path: str) -> str:
    full = (result.root / path).resolve()
    return from_fs_path(str(full)) or full.as_uri()


def _line_range(line: int) -> types.Range:
    start = types.Position(line=max(line - 1, 0), character=0)
    return types.Range(start=start, end=types.Position(line=start.line + 1, character=0))


def to_lsp(d: Diagnostic, result: FileResult, doc: TextDocument | None) -> types.Diagnostic:
    start = _position(doc, d.line, d.column)
    end = _position(doc, d.end_line, d.end_column)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_uri(result, r.path), range=_line_range(r.line)),
            message=r.message,
        )
        for r in d.related
    ]
    data: dict[str, Any] = {"fix": d.fix.applicability if d.fix is not None else None}
    return types.Diagnostic(
        range=types.Range(start=start, end=end),
        message=d.message,
        severity=(
            types.DiagnosticSeverity.Error
            if d.severity == "error"
            else types.DiagnosticSeverity.Warning
        ),
        code=d.code,
        source=SOURCE,
        related_information=related or None,
        data=data,
    )


def unread_hints(unread: Sequence[UnreadAncestor]) -> list[types.Diagnostic]:
    """A hint on each class line whose construction runs ancestors no module found
    defines: fewer findings there are not a clean result (the command line's note)."""
    by_class: dict[tuple[int, str], list[UnreadAncestor]] = {}
    for u in unread:
        by_class.setdefault((u.line, u.cls), []).append(u)
    out = []
    for (line, _), items in sorted(by_class.items()):
        names = ", ".join(f"`{u.ancestor}`" for u in items)
        tops = list(dict.fromkeys(f"`{u.package}`" for u in items))
        packages = f"{', '.join(tops)} {'is' if len(tops) == 1 else 'are'}"
        out.append(
            types.Diagnostic(
                range=_line_range(line),
                message=(
                    f"initlint cannot read {names}: {packages} neither in the project nor "
                    "in the environment initlint reads, so repeats of what it builds are not "
                    "checked here"
                ),
                severity=types.DiagnosticSeverity.Hint,
                source=SOURCE,
            )
        )
    return out


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _contains(r: types.Range, p: types.Position) -> bool:
    return (
        (r.start.line, r.start.character)
        <= (p.line, p.character)
        <= (
            r.end.line,
            r.end.character,
        )
    )


def _text_edits(edits: tuple[Edit, ...]) -> dict[str, list[types.TextEdit]]:
    """Line-range edits (1-based, column 1) as LSP text edits, by document URI."""
    out: dict[str, list[types.TextEdit]] = {}
    for e in edits:
        uri = from_fs_path(e.path) or Path(e.path).as_uri()
        rng = types.Range(
            start=types.Position(line=e.line - 1, character=0),
            end=types.Position(line=e.end_line - 1, character=0),
        )
        out.setdefault(uri, []).append(types.TextEdit(range=rng, new_text=e.content))
    return out


def _title(d: Diagnostic, fix: Fix) -> str:
    title = f"{fix.message} ({d.code})"
    if fix.applicability == "unsafe":
        title = f"Unsafe fix: {title} - changes a signature; review it"
    return title


def _hover_text(d: Diagnostic, result: FileResult) -> str:
    rule = REGISTRY.get(d.code)
    head = f"**{d.code}** `{rule.name}`" if rule is not None else f"**{d.code}**"
    lines = [head, "", d.message]
    for r in d.related:
        uri = _uri(result, r.path)
        lines.append(f"- [{r.path}:{r.line}]({uri}#L{r.line}): {r.message}")
    if d.fix is not None:
        lines += ["", f"Fix ({d.fix.applicability}): {d.fix.message}"]
    lines += ["", f"`initlint explain {d.code}` for the rule's documentation."]
    return "\n".join(lines)


def build_server(debounce: float = 0.0, jobs: int = 1) -> InitlintServer:
    keep_facts_in_memory()
    server = InitlintServer(Session(jobs=jobs), debounce=debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: InitlintServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        path = _path(doc.uri)
        if path is None or not _is_python(doc):
            return
        ls.schedule(ls.session.open(path, doc.source, doc.version))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: InitlintServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        path = _path(doc.uri)
        if path is None or not _is_python(doc):
            return
        ls.schedule(ls.session.change(path, doc.source, doc.version))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: InitlintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is None:
            return
        if path.name == "pyproject.toml":  # settings may have changed: everything again
            ls.schedule(sorted(ls.session.docs))
        else:
            ls.schedule(ls.session.saved(path))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: InitlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = _path(uri)
        if path is None:
            return
        if path.suffix in (".py", ".pyi"):
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )
        ls.schedule(ls.session.close(path))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: InitlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (_path(c.uri) for c in params.changes) if p is not None]
        if any(p.name == "pyproject.toml" for p in paths):
            ls.schedule(sorted(ls.session.docs))
        else:
            ls.schedule(ls.session.affected(paths, include_self=False))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        ls: InitlintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        path = _path(params.text_document.uri)
        result = ls.session.current(path) if path is not None else None
        if result is None:
            return None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        actions = []
        for d in result.diagnostics:
            fix = d.fix
            if fix is None:
                continue
            lsp_diag = to_lsp(d, result, doc)
            if not _overlaps(lsp_diag.range, params.range):
                continue
            edits = ls.session.edits(result, d)
            if not edits:
                continue
            actions.append(
                types.CodeAction(
                    title=_title(d, fix),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag],
                    edit=types.WorkspaceEdit(changes=_text_edits(edits)),
                    is_preferred=fix.applicability == "safe",
                )
            )
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: InitlintServer, params: types.HoverParams) -> types.Hover | None:
        path = _path(params.text_document.uri)
        result = ls.session.results.get(path) if path is not None else None
        if result is None:
            return None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        texts = []
        for d in result.diagnostics:
            lsp_diag = to_lsp(d, result, doc)
            if _contains(lsp_diag.range, params.position):
                texts.append(_hover_text(d, result))
        if not texts:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(texts)
            )
        )

    return server


def serve(debounce: float = 0.0, jobs: int = 1) -> None:
    """Serve over stdin/stdout until the client says exit."""
    build_server(debounce, jobs).start_io()

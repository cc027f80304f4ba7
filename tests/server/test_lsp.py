"""``initlint server`` end to end: a real LSP client (pytest-lsp) talks to the server
process over stdio."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from .project import (  # noqa: E402
    MID,
    MID_THREADED,
    PLUGIN_CHILD_LINE,
    SUB,
    make_plugin,
    make_project,
)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "initlint", "server"])
)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                        related_information=True
                    )
                )
            )
        )
    )
    yield
    await lsp_client.shutdown_session()


async def wait_diagnostics(
    client: LanguageClient,
    uri: str,
    ok: Callable[[Sequence[types.Diagnostic]], bool],
    timeout: float = 60.0,
) -> Sequence[types.Diagnostic]:
    async def poll() -> Sequence[types.Diagnostic]:
        while True:
            got = client.diagnostics.get(uri)
            if got is not None and ok(got):
                return got
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(poll(), timeout)


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )
    return uri


def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def codes(diags: Sequence[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diags]


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP text edits (line/character ranges, ASCII here) as an editor would."""
    lines = text.splitlines(keepends=True)

    def offset(pos: types.Position) -> int:
        return sum(len(x) for x in lines[: pos.line]) + pos.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


@pytest.mark.asyncio
async def test_subclass_finding_goes_when_the_base_threads_the_flag(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "proj")
    sub_uri = open_doc(client, root / "pkg" / "sub.py")
    diags = await wait_diagnostics(client, sub_uri, lambda d: len(d) > 0)
    assert codes(diags) == ["IL001"]
    d = diags[0]
    assert d.source == "initlint"
    assert (d.range.start.line, d.range.start.character) == (8, 8)  # sub.py:9:9
    assert "registered again" in d.message
    related = d.related_information or []
    assert [(r.location.uri, r.location.range.start.line) for r in related][0] == (
        (root / "pkg" / "base.py").as_uri(),
        9,
    )

    # Edit the intermediate base in the editor, without saving: the subclass's open file is
    # diagnosed again from the unsaved text, and its finding is gone.
    mid_uri = open_doc(client, root / "pkg" / "mid.py")
    await wait_diagnostics(client, mid_uri, lambda d: True)
    change_doc(client, mid_uri, 2, MID_THREADED)
    await wait_diagnostics(client, sub_uri, lambda d: len(d) == 0)
    assert (root / "pkg" / "mid.py").read_text() == MID  # nothing was written

    # Undo the edit: the finding comes back.
    change_doc(client, mid_uri, 3, MID)
    diags = await wait_diagnostics(client, sub_uri, lambda d: len(d) == 1)
    assert codes(diags) == ["IL001"]


@pytest.mark.asyncio
async def test_unsaved_subclass_text_is_what_is_checked(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "proj")
    clean = SUB.replace(
        '        self.register_buffer("cache", torch.ones(dim, dim), persistent=False)\n', ""
    )
    (root / "pkg" / "sub.py").write_text(clean)
    uri = open_doc(client, root / "pkg" / "sub.py")
    await wait_diagnostics(client, uri, lambda d: True)
    assert list(client.diagnostics[uri]) == []
    change_doc(client, uri, 2, SUB)  # the redo typed in, not saved
    diags = await wait_diagnostics(client, uri, lambda d: len(d) == 1)
    assert codes(diags) == ["IL001"]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_code_action_makes_the_cli_edit(client: LanguageClient, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    cli_root = tmp_path / "cli"
    shutil.copytree(root, cli_root)
    sub_uri = open_doc(client, root / "pkg" / "sub.py")
    diags = await wait_diagnostics(client, sub_uri, lambda d: len(d) > 0)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=sub_uri),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=list(diags)),
        )
    )
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction)
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title.startswith("Unsafe fix:")  # it changes Scaled's signature
    assert not action.is_preferred
    assert action.edit is not None and action.edit.changes is not None
    mid = root / "pkg" / "mid.py"
    assert set(action.edit.changes) == {mid.as_uri()}
    fixed_by_server = apply_edits(MID, action.edit.changes[mid.as_uri()])

    # The CLI's edits for the same finding, and what `initlint fix --unsafe-fixes` writes.
    cli = [sys.executable, "-m", "initlint"]
    out = subprocess.run(
        [*cli, "check", "--no-cache", "--format", "json", "pkg/sub.py"],
        cwd=cli_root,
        capture_output=True,
        text=True,
    )
    (entry,) = json.loads(out.stdout)
    (edit,) = entry["fix"]["edits"]
    (lsp_edit,) = action.edit.changes[mid.as_uri()]
    assert edit["path"] == "pkg/mid.py"
    assert (lsp_edit.range.start.line + 1, lsp_edit.range.end.line + 1) == (
        edit["line"],
        edit["end_line"],
    )
    assert lsp_edit.new_text == edit["content"]
    subprocess.run(
        [*cli, "fix", "--no-cache", "--unsafe-fixes", "pkg/sub.py"],
        cwd=cli_root,
        capture_output=True,
        check=True,
    )
    assert fixed_by_server == (cli_root / "pkg" / "mid.py").read_text()
    assert (root / "pkg" / "mid.py").read_text() == MID  # the server itself writes nothing

    # Applied in the editor (unsaved), the fix leaves no finding.
    mid_uri = open_doc(client, mid, fixed_by_server)
    change_doc(
        client,
        sub_uri,
        2,
        SUB,
    )
    await wait_diagnostics(client, mid_uri, lambda d: True)
    await wait_diagnostics(client, sub_uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_hover_points_at_the_ancestor(client: LanguageClient, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    sub_uri = open_doc(client, root / "pkg" / "sub.py")
    diags = await wait_diagnostics(client, sub_uri, lambda d: len(d) > 0)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=sub_uri), position=diags[0].range.start
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "IL001" in hover.contents.value
    assert "pkg/base.py:10" in hover.contents.value
    assert "Fix (unsafe)" in hover.contents.value
    elsewhere = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=sub_uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert elsewhere is None


@pytest.mark.asyncio
async def test_settings_come_from_pyproject(client: LanguageClient, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "fx"\n[tool.initlint]\nignore = ["IL001"]\n'
    )
    uri = open_doc(client, root / "pkg" / "sub.py")
    await wait_diagnostics(client, uri, lambda d: True)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_an_unread_ancestor_is_a_hint_on_the_class(
    client: LanguageClient, tmp_path: Path
) -> None:
    child = make_plugin(tmp_path)
    uri = open_doc(client, child)
    got = await wait_diagnostics(client, uri, lambda d: len(d) > 0)
    assert [(d.range.start.line, d.severity, d.code) for d in got] == [
        (PLUGIN_CHILD_LINE - 1, types.DiagnosticSeverity.Hint, None)
    ]
    assert "`enginelib.layers.Rotary`" in got[0].message

"""``initlint server`` starts as soon as an editor opens a folder: it must not run what the
folder carries either. A real LSP client opens a file of a project whose cache was planted
with pickles that would create a marker file, and of one whose ``pyproject.toml`` names a
script as its ``python``; nothing runs, and the diagnostics are those of a clean project.
(The CLI's part, and the planting in detail, are in tests/reliability/test_untrusted_cache.py.)
"""

from __future__ import annotations

import asyncio
import os
import pickle
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from initlint.cache import CACHE_DIR  # noqa: E402

from .project import make_project  # noqa: E402
from .test_lsp import codes, open_doc, wait_diagnostics  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "initlint", "server"])
)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities())
    )
    yield
    await lsp_client.shutdown_session()


class _Planted:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {shlex.quote(str(self.marker))}",))


def _plant(root: Path, marker: Path) -> int:
    """Every store file and every SQLite row replaced by a pickle that touches ``marker``."""
    evil = pickle.dumps(_Planted(marker))
    planted = 0
    for path in sorted((root / CACHE_DIR).rglob("*")):
        if not path.is_file() or path.name in (".gitignore", "CACHEDIR.TAG", ".pruned"):
            continue
        if path.suffix == ".sqlite":
            db = sqlite3.connect(path)
            with db:
                planted += db.execute("UPDATE facts SET v = ?", (evil,)).rowcount
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()
        elif path.suffix == ".pkl":
            path.write_bytes(evil)
            planted += 1
    return planted


@pytest.mark.asyncio
async def test_the_server_never_unpickles_a_planted_cache(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "proj")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for args in (["check", "."], ["check", ".", "--diff", "--unsafe-fixes"]):
        subprocess.run(
            [sys.executable, "-m", "initlint", *args], cwd=root, env=env, capture_output=True
        )
    marker = tmp_path / "EXECUTED"
    assert _plant(root, marker) >= 4
    uri = open_doc(client, root / "pkg" / "sub.py")
    diags = await wait_diagnostics(client, uri, lambda d: len(d) > 0)
    assert codes(diags) == ["IL001"]
    assert (diags[0].range.start.line, diags[0].range.start.character) == (8, 8)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=list(diags)),
        )
    )
    assert actions is not None and len(actions) == 1
    assert not marker.exists()


@pytest.mark.asyncio
async def test_the_server_never_runs_a_configured_python(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "proj")
    marker = tmp_path / "EXECUTED"
    script = root / "tools" / "py"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\necho /tmp\n")
    script.chmod(0o755)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "fx"\n[tool.initlint]\npython = "tools/py"\n'
    )
    open_doc(client, root / "pkg" / "sub.py")

    async def said() -> str:
        while True:
            for m in client.log_messages:
                if "names a program" in m.message:
                    return m.message
            await asyncio.sleep(0.02)

    message = await asyncio.wait_for(said(), 60)
    assert "--python tools/py" in message
    assert not marker.exists()

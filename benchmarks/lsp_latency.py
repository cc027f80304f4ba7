"""Latency of ``initlint server``: how long re-diagnosing one changed document takes in an
open tree (issue 18). Not part of the test suite.

Usage::

    cp -r /path/to/vllm-sources /tmp/vllm && touch /tmp/vllm/pyproject.toml
    python benchmarks/lsp_latency.py /tmp/vllm \\
        --open vllm/model_executor/models/glm_ocr.py \\
        --open vllm/model_executor/models/glm4_1v.py \\
        --edit vllm/model_executor/models/glm_ocr.py --rounds 21

The tree's ``.initlint_cache`` is warmed first with ``initlint check`` on the whole tree (as
an editor user's tree is, after one CLI run; a cold server only pays the first time). The
server is started over stdio with pygls's client; every ``--open`` file is opened and its
first diagnostics awaited. Then, round by round, the ``--edit`` file gets a new unsaved
version (a comment line appended, then removed), and the time from sending the change to
receiving that version's diagnostics (and those of every open document that depends on it)
is measured. Prints the median, the quartiles and the extremes, and the same as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient


async def measure(
    root: Path, opened: list[Path], edit: Path, rounds: int, wait_also: list[Path]
) -> list[float]:
    client = LanguageClient("latency-bench", "1")
    got: dict[str, asyncio.Queue[types.PublishDiagnosticsParams]] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        got.setdefault(params.uri, asyncio.Queue()).put_nowait(params)

    await client.start_io(sys.executable, "-m", "initlint", "server")
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri())
    )
    client.initialized(types.InitializedParams())
    texts = {}
    for path in opened:
        uri = path.as_uri()
        texts[uri] = path.read_text(encoding="utf-8")
        got.setdefault(uri, asyncio.Queue())
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=texts[uri]
                )
            )
        )
    for path in opened:
        await asyncio.wait_for(got[path.as_uri()].get(), 120)
    edit_uri = edit.as_uri()
    also = [p.as_uri() for p in wait_also]
    times = []
    for n in range(rounds):
        version = n + 2
        text = texts[edit_uri] + (f"# edit {n}\n" if n % 2 == 0 else "")
        for q in got.values():
            while not q.empty():
                q.get_nowait()
        start = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=edit_uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        while True:
            params = await asyncio.wait_for(got[edit_uri].get(), 60)
            if params.version == version:
                break
        for uri in also:
            await asyncio.wait_for(got[uri].get(), 60)
        times.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--open", action="append", default=[], dest="opened")
    ap.add_argument("--edit", required=True)
    ap.add_argument(
        "--wait-also",
        action="append",
        default=[],
        help="an open document whose new diagnostics each round waits for too",
    )
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--no-warm", action="store_true", help="skip the warming CLI run")
    args = ap.parse_args()
    root = args.tree.resolve()
    if not args.no_warm:
        subprocess.run(
            [sys.executable, "-m", "initlint", "check", "--exit-zero", "."],
            cwd=root,
            capture_output=True,
            check=False,
        )
    opened = [root / p for p in args.opened]
    edit = root / args.edit
    if edit not in opened:
        opened.append(edit)
    times = asyncio.run(
        measure(root, opened, edit, args.rounds, [root / p for p in args.wait_also])
    )
    q = statistics.quantiles(times, n=4)
    report = {
        "tree": str(root),
        "opened": args.opened,
        "edit": args.edit,
        "wait_also": args.wait_also,
        "rounds": len(times),
        "median_s": round(statistics.median(times), 4),
        "q1_s": round(q[0], 4),
        "q3_s": round(q[2], 4),
        "min_s": round(min(times), 4),
        "max_s": round(max(times), 4),
    }
    print(
        f"re-diagnose after one change: median {report['median_s']:.3f} s "
        f"(quartiles {report['q1_s']:.3f}-{report['q3_s']:.3f}, "
        f"min {report['min_s']:.3f}, max {report['max_s']:.3f}, {len(times)} rounds)"
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()

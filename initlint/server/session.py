"""What the language server knows, without the protocol: the open documents, their last
diagnostics, which open documents depend on which files, and the fixes of a diagnostic.

Every analysis reads the open documents' unsaved text (``sources.overlaid``) and the rest
of the project from disk, through the same caches as ``initlint check``. A document is
diagnosed again when it changes, and when a file in its import closure changes (a base
class edited in another open document): the closure is the one the results cache uses
(``index/deps.py``), over the modules its last analysis loaded.
"""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from initlint.api import analyze
from initlint.diagnostics import Diagnostic, Edit
from initlint.discovery import find_root
from initlint.facts.cache import FactsCache
from initlint.index.deps import ImportGraph
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.unread import UnreadAncestor
from initlint.records import dataclass
from initlint.sources import overlaid

MEMO_LIMIT = 20_000  # facts kept in memory (all of transformers' files fit)


def keep_facts_in_memory() -> None:
    """Keep every analysis's facts in memory for the next (this process serves many)."""
    if FactsCache.memo is None:
        FactsCache.memo = {}


def _norm(path: Path | str) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))


@dataclass
class Document:
    """An open document: its text as the editor has it, and its version."""

    path: Path
    text: str
    version: int | None = None

    def data(self) -> bytes:
        """The bytes the file would hold if saved now: the text in its coding cookie's
        encoding (UTF-8 without one)."""
        raw = self.text.encode("utf-8", "surrogatepass")
        head = io.BytesIO(b"".join(raw.splitlines(keepends=True)[:2]))
        try:
            encoding, _ = tokenize.detect_encoding(head.readline)
        except SyntaxError:
            return raw
        if encoding in ("utf-8", "utf-8-sig"):
            return raw
        try:
            return self.text.encode(encoding)
        except (LookupError, UnicodeError):
            return raw


@dataclass(frozen=True)
class FileResult:
    """One document's diagnostics, and the analysis they came from (for its fixes)."""

    path: Path
    version: int | None
    diagnostics: tuple[Diagnostic, ...]
    analysis: Analysis
    root: Path
    # The edits of each diagnostic's fix, once asked for (None: no sound fix).
    edits: dict[Diagnostic, tuple[Edit, ...] | None] = field(default_factory=dict)
    # Its classes whose construction runs an ancestor no module found defines (a hint each).
    unread: tuple[UnreadAncestor, ...] = ()


@dataclass
class Session:
    """The open documents and what the last analyses said about them."""

    jobs: int = 1
    use_cache: bool = True
    docs: dict[Path, Document] = field(default_factory=dict)
    results: dict[Path, FileResult] = field(default_factory=dict)
    depends: dict[Path, frozenset[Path]] = field(default_factory=dict)  # doc -> closure files
    stale: set[Path] = field(default_factory=set)  # results a change since may have altered

    # -- documents -------------------------------------------------------------------------
    def open(self, path: Path, text: str, version: int | None = None) -> list[Path]:
        """Open (or replace) a document; the documents to diagnose again."""
        path = _norm(path)
        self.docs[path] = Document(path, text, version)
        return self._mark(self.affected([path]))

    def change(self, path: Path, text: str, version: int | None = None) -> list[Path]:
        return self.open(path, text, version)

    def saved(self, path: Path) -> list[Path]:
        """A file was written (by the editor or otherwise): who depends on it."""
        return self._mark(self.affected([_norm(path)]))

    def close(self, path: Path) -> list[Path]:
        """Close a document: its unsaved text is gone, the disk's counts again."""
        path = _norm(path)
        self.docs.pop(path, None)
        self.results.pop(path, None)
        self.depends.pop(path, None)
        self.stale.discard(path)
        return self._mark(self.affected([path], include_self=False))

    def _mark(self, paths: list[Path]) -> list[Path]:
        self.stale.update(paths)
        return paths

    def affected(self, changed: Iterable[Path], include_self: bool = True) -> list[Path]:
        """Open documents whose diagnostics can change when ``changed`` files change."""
        changed = {_norm(p) for p in changed}
        out = {p for p in changed if p in self.docs} if include_self else set()
        for doc, closure in self.depends.items():
            if doc in self.docs and closure & changed:
                out.add(doc)
        return sorted(out)

    # -- analysis --------------------------------------------------------------------------
    def diagnose(self, paths: Iterable[Path]) -> dict[Path, FileResult]:
        """Analyse the given open documents (each project root on its own, with its own
        settings) and remember what they give."""
        by_root: dict[Path, list[Path]] = {}
        for path in sorted({_norm(p) for p in paths}):
            if path in self.docs:
                by_root.setdefault(find_root(path), []).append(path)
        out: dict[Path, FileResult] = {}
        for root, files in by_root.items():
            out.update(self._diagnose_root(root, files))
        self.results.update(out)
        self.stale.difference_update(out)
        if FactsCache.memo is not None and len(FactsCache.memo) > MEMO_LIMIT:
            FactsCache.memo.clear()
        return out

    def _overlay(self) -> dict[Path, bytes]:
        return {p: d.data() for p, d in self.docs.items()}

    def _diagnose_root(self, root: Path, files: list[Path]) -> dict[Path, FileResult]:
        versions = {p: self.docs[p].version for p in files}
        with overlaid(self._overlay()):
            analysis = analyze(
                files,
                cwd=root,
                jobs=self.jobs,
                use_cache=self.use_cache,
                progress=False,
            )
        by_file: dict[Path, list[Diagnostic]] = {p: [] for p in files}
        for d in analysis.diagnostics:
            by_file.setdefault(_norm(root / d.path), []).append(d)
        unread: dict[Path, list[UnreadAncestor]] = {}
        for u in analysis.unread:
            unread.setdefault(_norm(root / u.path), []).append(u)
        closures = _closures(analysis, files)
        out = {}
        for path in files:
            self.depends[path] = closures.get(path, frozenset({path}))
            out[path] = FileResult(
                path,
                versions[path],
                tuple(by_file.get(path, ())),
                analysis,
                root,
                unread=tuple(unread.get(path, ())),
            )
        return out

    def current(self, path: Path) -> FileResult | None:
        """The document's result for its current text, analysing it again if it is stale."""
        path = _norm(path)
        doc = self.docs.get(path)
        if doc is None:
            return None
        result = self.results.get(path)
        if result is None or path in self.stale or result.version != doc.version:
            result = self.diagnose([path]).get(path)
        return result

    # -- fixes -----------------------------------------------------------------------------
    def edits(self, result: FileResult, diag: Diagnostic) -> tuple[Edit, ...] | None:
        """The edits of ``diag``'s fix, checked as ``initlint check --format json`` checks
        them (the same Verifier and renderer); None when there is no sound fix. Paths are
        absolute."""
        if diag in result.edits:
            return result.edits[diag]
        found: tuple[Edit, ...] | None = None
        entry = result.analysis.plans.get(diag)
        if diag.fix is not None and entry is not None:
            from initlint.fix.apply import edits_for  # libcst: only when a fix is asked for
            from initlint.fix.verify import Verifier

            plan, finding = entry
            with overlaid(self._overlay()):
                try:
                    if Verifier(result.analysis).verify(plan, finding) is None:
                        display = {op.path: str(_norm(op.path)) for op in plan.ops}
                        found = edits_for(plan, display)
                except Exception:  # noqa: BLE001 - a fix that cannot be made is not offered
                    found = None
        result.edits[diag] = found
        return found


def _closures(analysis: Analysis, files: list[Path]) -> dict[Path, frozenset[Path]]:
    """Each report file's import closure over the modules the analysis loaded, as paths."""
    modules = analysis.index.modules
    bits = {name: i for i, name in enumerate(modules)}
    paths = [_norm(m.path) for m in modules.values()]
    masks = ImportGraph(modules).closure_masks(bits)
    wanted = set(files)
    out: dict[Path, frozenset[Path]] = {}
    for name, mod in modules.items():
        path = _norm(mod.path)
        if path in wanted:
            mask = masks.get(name, 0)
            out[path] = frozenset({path, *(paths[i] for i in range(len(paths)) if mask >> i & 1)})
    return out

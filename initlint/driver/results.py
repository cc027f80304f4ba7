"""The last run's per-file results (``.initlint_cache/results-*``), and which of them still
hold: a warm run reuses a file's diagnostics while nothing in its import closure changed."""

from __future__ import annotations

import os
import time
from dataclasses import field
from pathlib import Path

from initlint import __version__
from initlint.cache import BlobCache, content_key, package_fingerprint
from initlint.digest import blake2b
from initlint.facts.cache import FactsCache
from initlint.facts.model import ModuleFacts, has_fresh_bodies
from initlint.index.deps import ImportGraph
from initlint.index.project import ProjectIndex
from initlint.pipeline.analysis import FindingKey
from initlint.pipeline.report import Comment, Entry, Share
from initlint.pipeline.unread import UnreadAncestor
from initlint.records import dataclass
from initlint.sources import UnreadableError, is_overlaid, read_bytes


def results_key(module_paths: dict[str, tuple[Path | str, bool]], cwd: Path) -> str:
    """The module map (a new, moved or deleted module can change any resolution) and the
    folder paths are shown relative to."""
    text = "".join(
        [str(cwd), *(f"{n}\0{p}\0{pkg}\n" for n, (p, pkg) in sorted(module_paths.items()))]
    )  # hashed at once: the same digest as one update per module, ~30 % sooner
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


class Previous:
    """The last run's per-file results, and which of them still hold."""

    def __init__(self, stored: StoredResults | None) -> None:
        self.stored = stored
        self.started_ns = time.time_ns()
        self.changed = 0  # mask of the table's modules whose content changed since
        self._keys: dict[str, str | None] = {}
        self._trusted: dict[str, tuple[int, int]] = {}  # stats that matched: kept as they are
        if stored is not None:
            for bit, (path, key) in enumerate(stored.table):
                if not self._same_stat(path) and self._key(path) != key:
                    self.changed |= 1 << bit

    def _same_stat(self, path: str) -> bool:
        """Unchanged by its size and mtime since the key was known (as git and ruff do)."""
        known = self.stored.stats.get(path) if self.stored is not None else None
        if known is None:
            return False
        try:
            st = os.stat(path)
        except OSError:
            return False
        if (st.st_size, st.st_mtime_ns) != known:
            return False
        self._trusted[path] = known
        return True

    def _key(self, path: str) -> str | None:
        if path not in self._keys:
            try:
                self._keys[path] = content_key(read_bytes(Path(path)))
            except UnreadableError:
                self._keys[path] = None
        return self._keys[path]

    def _stats(self, table: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
        """Stats of the files last modified a second or more before this run started: one
        changed during the run might not have the content its key says. A stat that matched
        at the start is kept without a second stat (an edit since shows as a new mtime
        next time, and is read then)."""
        out = {}
        limit = self.started_ns - 1_000_000_000
        for path, _ in table:
            if path in self._trusted:
                out[path] = self._trusted[path]
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue
            if st.st_mtime_ns < limit:
                out[path] = (st.st_size, st.st_mtime_ns)
        return out

    def _valid(self, path: str) -> bool:
        return self._entry(path) is not None

    def _entry(self, path: str) -> tuple[str, int, tuple[object, ...]] | None:
        """``path``'s stored results, when nothing they depend on changed since."""
        entry = self.stored.files.get(path) if self.stored is not None else None
        return entry if entry is not None and not entry[1] & self.changed else None

    def changed_paths(self) -> set[str]:
        if self.stored is None:
            return set()
        return {p for bit, (p, _) in enumerate(self.stored.table) if self.changed >> bit & 1}

    def fix_inputs(self, valid_only: bool = True) -> dict[str, FixInputs]:
        """Each stored file's fix inputs (stored with fixes attached only); only those whose
        results still hold, unless ``valid_only`` is False."""
        if self.stored is None:
            return {}
        out = {}
        for path, entry in self.stored.files.items():
            if not valid_only or self._valid(path):
                for x in entry[2]:
                    if isinstance(x, FixInputs):
                        out[path] = x
        return out

    def importers(
        self, paths: set[str], module_paths: dict[str, tuple[Path | str, bool]]
    ) -> list[str]:
        """Module names of the stored files whose closure held one of ``paths``."""
        if self.stored is None or not paths:
            return []
        mask = 0
        for bit, (p, _) in enumerate(self.stored.table):
            if p in paths:
                mask |= 1 << bit
        if not mask:
            return []
        hit = {p for p, e in self.stored.files.items() if e[1] & mask}
        return sorted(n for n, (p, _) in module_paths.items() if str(p) in hit)

    def reuse(self, path: Path, into: dict[Path, list[Entry]]) -> bool:
        entry = self._entry(str(path))
        if entry is None:
            return False
        entries = entry[2]
        into[path] = [p for p in entries if isinstance(p, Share | Comment | UnreadAncestor)]
        return True

    def store(
        self,
        results: ResultsCache,
        map_key: str,
        index: ProjectIndex,
        keys: dict[Path, str],
        checked: set[Path],
        partials: dict[Path, list[Entry]],
        self_contained: dict[Path, str],
        inputs: dict[Path, FixInputs],
    ) -> None:
        """Carry over what still holds, add what this run computed. Bits keep their
        numbers (carried masks stay right); a changed module's bit gets its new key."""
        stored = self.stored
        table = list(stored.table) if stored is not None else []
        files: dict[str, tuple[str, int, tuple[object, ...]]] = {}
        if stored is not None:
            for bit, (path, _) in enumerate(table):
                if self.changed >> bit & 1:
                    table[bit] = (path, self._key(path) or "")
            files = {p: e for p, e in stored.files.items() if self._valid(p)}
        bits = {path: bit for bit, (path, _) in enumerate(table)}

        def bit_for(path: str, key: str) -> int | None:
            """``path``'s bit, added if new; None if its key changed during the run."""
            if path not in bits:
                bits[path] = len(table)
                table.append((path, key))
            return bits[path] if table[bits[path]][1] == key else None

        names: dict[str, int] = {}
        for name, mod in index.modules.items():
            key = keys.get(mod.path)
            if key is None:
                continue  # not read through the cache: its content is not known
            at = bit_for(str(mod.path), key)
            if at is None:
                return  # changed during the run: store nothing rather than a wrong entry
            names[name] = at
        graph = ImportGraph({n: index.modules[n] for n in names})
        masks = graph.closure_masks(names)
        for name, mod in index.modules.items():
            if mod.path in checked and name in masks:
                got = inputs.get(mod.path)
                held = (*partials[mod.path], *((got,) if got is not None else ()))
                files[str(mod.path)] = (keys[mod.path], masks[name], held)
        # A report file without classes (or with a syntax error) depends on itself alone.
        for file, key in self_contained.items():
            at = bit_for(str(file), key)
            if at is not None:  # (not stored if it changed during the run)
                files[str(file)] = (key, 1 << at, tuple(partials.get(file, ())))
        results.write(map_key, StoredResults(tuple(table), files, self._stats(table)))


@dataclass(frozen=True)
class FixInputs:
    """Stored with a report file's results when fixes are attached: its findings (the checks
    of other files' fixes need them) and the files its fixes edit (a change that can reach
    one of them checks its fixes again)."""

    keys: frozenset[FindingKey]
    edits: frozenset[str]
    # The files of every class in the MROs of the file's classes (what a fix's check asks
    # of this file when it has no finding: whether a class of it sits under the edit).
    mro: frozenset[str] = frozenset()


def store_fresh_bodies(
    index: ProjectIndex, cache: FactsCache, keys: dict[Path, str], most: int | None = None
) -> None:
    """Function bodies read on demand go back into their cache entries, so that a
    warm run finds them read; with ``most``, only when at most that many modules hold such
    bodies (each one stored is pickled and written again whole)."""
    if not cache.enabled:
        return
    fresh: list[tuple[str, ModuleFacts]] = []
    for mod in index.modules.values():
        key = keys.get(mod.path)
        if key and has_fresh_bodies(mod.facts) and not is_overlaid(mod.path):
            fresh.append((key, mod.facts))
            if most is not None and len(fresh) > most:
                return
    for key, facts in fresh:
        cache.put(key, facts)


class ResultsCache(BlobCache):
    """Per-file check results of the last run, in one entry: a warm run reuses
    a file's diagnostics while nothing in its import closure changed (``index/deps.py``).

    The entry holds a table of ``(path, content key)`` for every module the run loaded,
    and for each report file its content key, the bitmask of its closure over that table
    and its diagnostics before selection and suppression. Keyed by settings and the
    project's module map: a new, moved or deleted module starts it afresh.
    """

    def __init__(self, root: Path, fingerprint: str, enabled: bool = True) -> None:
        name = f"results-{__version__}-{package_fingerprint()}-{fingerprint}"
        super().__init__(root, name, enabled)

    def read(self, module_map: str) -> StoredResults | None:
        value = self.load(module_map)
        return value if isinstance(value, StoredResults) else None

    def write(self, module_map: str, results: StoredResults) -> None:
        self.store(module_map, results)


@dataclass(frozen=True)
class StoredResults:
    table: tuple[tuple[str, str], ...]  # (absolute path, content key) by bit number
    files: dict[str, tuple[str, int, tuple[object, ...]]]  # path -> (key, mask, partials)
    # path -> (size, mtime_ns) when its table key was known to hold; such a file is not
    # read again while its stat is the same (recorded only for files older than the run)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)

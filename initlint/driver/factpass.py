"""The project-wide fact pass: read, pre-filter, parse (in a process pool), cache.

One file's facts are ``initlint.facts.load.facts_for``; this runs it over many files, in
workers, with the cache's hits answered first."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from initlint.cache import content_key
from initlint.facts.cache import FactsCache, pickle_facts, unpickle_facts
from initlint.facts.extract import read_self_calls
from initlint.facts.load import (
    FactsOutcome,
    FactsRead,
    cannot_define_classes,
    facts_for,
    filtered_outcome,
)
from initlint.facts.model import ModuleFacts
from initlint.records import dataclass
from initlint.sources import UnreadableError, read_bytes

if TYPE_CHECKING:
    from concurrent.futures import Future
    from concurrent.futures import ProcessPoolExecutor as _Pool

# The pool class, set by tests; else concurrent.futures', imported when a pool starts (it pulls
# in multiprocessing and logging, which a warm run does without).
ProcessPoolExecutor: type[_Pool] | None = None
# Below this many files to parse, a pool costs more than it saves.
POOL_THRESHOLD = 48


def _cached(path: Path, cache: FactsCache, prefilter: bool) -> FactsOutcome | None:
    if not cache.enabled:
        return None
    try:
        data = read_bytes(path)
    except UnreadableError:
        return None  # reported by the full path below
    key = cache.key(data)
    if prefilter and cannot_define_classes(data):
        return filtered_outcome(path, key, data)
    facts = cache.get(key)
    return None if facts is None else FactsRead(path, facts, key=key)


class _Collect:
    """A worker's cache: it answers nothing (the main process already looked up every file
    it sends) and keeps each new entry pickled, for the main process to write, with the
    bodies of the methods constructors call on ``self`` already read. One writer
    per run: workers that wrote the SQLite file themselves queued on its lock."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.blobs: dict[str, bytes] = {}

    def key(self, data: bytes) -> str:
        return content_key(data)

    def get(self, key: str) -> ModuleFacts | None:
        return None

    def put(self, key: str, facts: ModuleFacts) -> None:
        read_self_calls(facts)  # here, in parallel, rather than one by one in the check
        if self.enabled:
            blob = pickle_facts(facts)
            if blob is not None:
                self.blobs[key] = blob


@dataclass(frozen=True)
class _InBlob:
    """A worker's parsed file whose facts travel as the cache entry's bytes, stored under
    ``key`` in the chunk's blobs (``_unpack`` turns it back into a ``FactsRead``)."""

    path: Path
    key: str


Chunk = tuple[list[FactsOutcome | _InBlob], dict[str, bytes]]


def _worker(args: tuple[list[Path], bool, bool]) -> Chunk:
    """Facts for one chunk. A parsed file's facts travel once, as the bytes the cache
    stores: the main process unpickles them anyway."""
    paths, use_cache, prefilter = args
    store = _Collect(use_cache)
    outcomes = [facts_for(p, store, prefilter) for p in paths]
    return [
        _InBlob(o.path, o.key)
        if isinstance(o, FactsRead) and o.parsed and o.key in store.blobs
        else o
        for o in outcomes
    ], store.blobs


def _unpack(chunk: Chunk, cache: FactsCache) -> Iterator[FactsOutcome]:
    outcomes, blobs = chunk
    for outcome in outcomes:
        if isinstance(outcome, _InBlob):
            blob = blobs[outcome.key]
            cache.put_blob(outcome.key, blob)
            yield FactsRead(outcome.path, unpickle_facts(blob), parsed=True, key=outcome.key)
        else:
            yield outcome


def _pool_class() -> type[_Pool]:
    if ProcessPoolExecutor is not None:  # set by tests
        return ProcessPoolExecutor
    from concurrent.futures import ProcessPoolExecutor as pool

    return pool


def _chunks(todo: list[Path], jobs: int) -> list[list[Path]]:
    """Chunks of a few dozen files keep the workers busy and pickling overhead low. The
    first and last few are small: the caller checks files in order as chunks come, so a
    small first chunk starts it sooner, and small last ones leave it less to do alone."""
    size = max(SMALL_CHUNK, min(64, len(todo) // (jobs * 4) or 1))
    edge = SMALL_CHUNK * jobs if len(todo) > 4 * size * jobs else 0  # files in small chunks
    head, middle, tail = todo[:edge], todo[edge : len(todo) - edge], todo[len(todo) - edge :]
    return [
        *(head[i : i + SMALL_CHUNK] for i in range(0, len(head), SMALL_CHUNK)),
        *(middle[i : i + size] for i in range(0, len(middle), size)),
        *(tail[i : i + SMALL_CHUNK] for i in range(0, len(tail), SMALL_CHUNK)),
    ]


SMALL_CHUNK = 8


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def compute_facts(
    paths: Iterable[Path],
    root: Path,
    fingerprint: str,
    *,
    use_cache: bool,
    jobs: int,
    prefilter: bool = True,
    cache: FactsCache | None = None,
    chunks: list[Future[object]] | None = None,
) -> FactPass:
    """Facts for many files, in a process pool when there are enough of them; the pool is
    at work when this returns. Cache hits come first; with a pool, they come once every
    chunk is queued, so a caller that works on each outcome as it comes keeps the workers
    busy meanwhile. ``cache``: the caller's, which it closes (its writes may still be under
    way at the end); else one of our own. ``chunks``: receives the pool's futures, one per
    chunk."""
    own = cache is None
    store = FactsCache(root, fingerprint, use_cache) if cache is None else cache
    futures: list[Future[object]] = [] if chunks is None else chunks
    todo: list[Path] = []
    hits: list[FactsOutcome] = []
    if store.exists():
        for p in paths:  # cache hits are answered here: a warm run starts no pool
            hit = _cached(p, store, prefilter)
            if hit is None:
                todo.append(p)
            else:
                hits.append(hit)
    else:  # no cache (cold, or --no-cache): nothing to look up here, the workers read all
        todo = list(paths)
    pool: _Pool | None = None
    groups = [todo]
    if jobs > 1 and len(todo) >= POOL_THRESHOLD:
        store.disconnect()  # no connection crosses the fork into the workers
        groups = _chunks(todo, jobs)
        try:
            pool = _pool_class()(max_workers=jobs)
            for chunk in groups:
                futures.append(pool.submit(_worker, (chunk, store.enabled, prefilter)))
        except (OSError, RuntimeError):  # no pool (sandbox, frozen app): serial
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            pool = None
            futures.clear()
    return FactPass(pool, futures, groups, hits, store, prefilter, own)


class FactPass:
    """The outcomes of :func:`compute_facts`, in order. Iterate it to the end, or close it:
    either way its pool is shut down."""

    def __init__(
        self,
        pool: _Pool | None,
        futures: list[Future[object]],
        groups: list[list[Path]],
        hits: list[FactsOutcome],
        cache: FactsCache,
        prefilter: bool,
        own: bool,
    ) -> None:
        self._pool = pool
        self._futures, self._groups, self._hits = futures, groups, hits
        self._cache, self._prefilter, self._own = cache, prefilter, own
        self._gen = self._outcomes()

    def __iter__(self) -> Iterator[FactsOutcome]:
        return self

    def __next__(self) -> FactsOutcome:
        return next(self._gen)

    def close(self) -> None:
        self._gen.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _outcomes(self) -> Generator[FactsOutcome, None, None]:
        futures, groups, cache, prefilter = (
            self._futures,
            self._groups,
            self._cache,
            self._prefilter,
        )
        done = 0  # groups already yielded: a pool that breaks half-way must not repeat them
        unsent = iter(self._hits)
        try:
            if self._pool is not None:
                try:
                    with self._pool:
                        yield from unsent
                        for future in futures:
                            result = future.result()
                            assert isinstance(result, tuple)
                            done += 1
                            yield from _unpack(result, cache)
                except (OSError, RuntimeError):  # a dead worker: the rest in this process
                    pass
            yield from unsent
            for group in groups[done:]:
                for p in group:
                    yield facts_for(p, cache, prefilter)
        finally:
            if self._own:
                cache.close()

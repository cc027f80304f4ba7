"""The facts cache: each file's facts by content key, pickled into a :class:`BlobTable`
(``initlint/cache.py``, which stores bytes and knows nothing of facts)."""

from __future__ import annotations

import pickle
from importlib import import_module
from pathlib import Path
from typing import ClassVar

from initlint import __version__
from initlint.cache import CACHE_DIR, TABLE_SCHEMA, BlobTable, source_fingerprint
from initlint.facts.model import ModuleFacts

# The modules whose code makes a file's facts (what ``extract`` runs): editing any of them
# changes the facts, so each is in the cache's name.
EXTRACTOR_MODULES = (
    "aliases",
    "effect_log",
    "expressions",
    "extract",
    "field_values",
    "function_reader",
    "local_uses",
    "model",
    "module_reader",
    "passes",
    "reads",
    "skeleton",
    "strict",
    "tables",
    "walk",
)


def _code_fingerprint() -> str:
    modules = (import_module(f"initlint.facts.{name}") for name in EXTRACTOR_MODULES)
    return source_fingerprint(*modules)


FORMAT = _code_fingerprint()


class FactsCache(BlobTable):
    """Facts by content key, in one SQLite file per (initlint version, extractor source,
    settings): ``facts-….sqlite``."""

    # Facts by key kept in memory across the runs of a long-lived process (the language
    # server sets it to a dict it bounds): a run then unpickles only what changed. A CLI run
    # reads each key once, and leaves it None.
    memo: ClassVar[dict[str, ModuleFacts] | None] = None

    def __init__(self, root: Path, fingerprint: str, enabled: bool = True) -> None:
        name = f"facts-{__version__}-{FORMAT}-{TABLE_SCHEMA}-{fingerprint}.sqlite"
        path = root / CACHE_DIR / name
        super().__init__(path, enabled)

    def get(self, key: str) -> ModuleFacts | None:
        if not self.enabled:
            return None
        memo = FactsCache.memo
        if memo is not None:
            known = memo.get(key)
            if known is not None:
                return known
        facts = self._get(key)
        if memo is not None and facts is not None:
            memo[key] = facts
        return facts

    def _get(self, key: str) -> ModuleFacts | None:
        blob = self.get_blob(key)
        if blob is None:
            return None
        try:
            return unpickle_facts(blob)
        except Exception:  # noqa: BLE001 - garbage, truncated, foreign: a miss, rewritten
            return None

    def put(self, key: str, facts: ModuleFacts) -> None:
        if FactsCache.memo is not None and self.enabled:
            FactsCache.memo[key] = facts
        blob = pickle_facts(facts) if self.enabled else None
        if blob is not None:
            self.put_blob(key, blob)


def pickle_facts(facts: ModuleFacts) -> bytes | None:
    """The bytes a facts entry holds; None for a value too deep to pickle (not cached)."""
    try:
        return pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
    except (RecursionError, pickle.PicklingError, TypeError, ValueError):
        return None


def unpickle_facts(blob: bytes) -> ModuleFacts:
    value = pickle.loads(blob)
    if not isinstance(value, ModuleFacts):
        raise TypeError(f"not facts: {type(value).__name__}")
    return value

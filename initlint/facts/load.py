"""One file's facts: read, pre-filter, parse, through a store (never raises: failures
become outcomes)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Protocol

from initlint.diagnostics import describe
from initlint.facts.extract import extract_facts
from initlint.facts.model import ModuleFacts
from initlint.records import dataclass
from initlint.sources import UnreadableError, decode, is_overlaid, read_bytes
from initlint.suppressions import suppression_comments

EMPTY = ModuleFacts()


@dataclass(frozen=True)
class FactsRead:
    """The file's facts: parsed now, found in the store, or the pre-filter's."""

    path: Path
    facts: ModuleFacts
    parsed: bool = False  # False when the pre-filter or the cache answered
    key: str = ""  # the content hash
    filtered: bool = False  # the pre-filter answered: ``facts`` is empty, not read


@dataclass(frozen=True)
class FactsUnreadable:
    """IL901: the file cannot be read or decoded (``problem`` says why)."""

    path: Path
    problem: str
    parsed: ClassVar[bool] = False
    key: ClassVar[str] = ""  # not hashed


@dataclass(frozen=True)
class FactsCrashed:
    """IL902: reading the file's facts failed inside initlint (``internal``: "ExcType:
    message")."""

    path: Path
    internal: str
    parsed: ClassVar[bool] = False
    key: ClassVar[str] = ""  # not hashed


# One file's facts pass, as the check reads it (``pipeline.check.triage`` matches on it).
FactsOutcome = FactsRead | FactsUnreadable | FactsCrashed


def facts_or_empty(outcome: FactsOutcome) -> ModuleFacts:
    """The facts of a file read, or no facts (an unreadable file, an internal error): what
    an index loading a module it cannot read holds."""
    return outcome.facts if isinstance(outcome, FactsRead) else EMPTY


def cannot_define_classes(data: bytes) -> bool:
    """No ``class`` keyword: nothing to read. NUL bytes (UTF-16/32, binary) hide the keyword
    from this byte test, so such files take the full path and get their IL900/IL901."""
    return b"class" not in data and b"\x00" not in data


class Store(Protocol):
    def key(self, data: bytes) -> str: ...
    def get(self, key: str) -> ModuleFacts | None: ...
    def put(self, key: str, facts: ModuleFacts) -> None: ...


def facts_for(path: Path, cache: Store, prefilter: bool) -> FactsOutcome:
    """Facts for one file. Never raises: failures become outcomes."""
    try:
        data = read_bytes(path)
    except UnreadableError as exc:
        return FactsUnreadable(path, str(exc))
    try:
        key = cache.key(data)
        if prefilter and cannot_define_classes(data):
            return filtered_outcome(path, key, data)
        cached = cache.get(key)
        if cached is not None:
            return FactsRead(path, cached, key=key)
        try:
            text, _ = decode(data)
        except UnreadableError as exc:
            return FactsUnreadable(path, str(exc))
        facts = extract_facts(text)
        comments = suppression_comments(text)
        if comments:
            facts = replace(facts, suppressions=comments)
        if not is_overlaid(path):  # an unsaved buffer's facts are not kept
            cache.put(key, facts)
        return FactsRead(path, facts, parsed=True, key=key)
    except RecursionError:
        return FactsCrashed(path, "RecursionError: nesting too deep to analyse")
    except Exception as exc:  # noqa: BLE001 - one file must not stop the run
        return FactsCrashed(path, describe(exc))


def filtered_outcome(path: Path, key: str, data: bytes) -> FactsRead:
    """The outcome for a file the pre-filter answers: no classes, so no facts, except the
    suppression comments it may hold (which can then only suppress nothing)."""
    facts = EMPTY
    if b"noqa" in data or b"initlint" in data:
        try:
            comments = suppression_comments(decode(data)[0])
        except UnreadableError:
            comments = ()
        if comments:
            facts = replace(EMPTY, suppressions=comments)
    return FactsRead(path, facts, key=key, filtered=True)


class NoStore:
    """A store that keeps nothing: facts computed afresh (the serial pipeline's)."""

    enabled = False

    def key(self, data: bytes) -> str:
        from initlint.cache import content_key

        return content_key(data)

    def get(self, key: str) -> ModuleFacts | None:
        return None

    def put(self, key: str, facts: ModuleFacts) -> None:
        return None

"""One file's facts: read, pre-filter, parse, through a store (never raises: failures
become outcomes)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from initlint.diagnostics import describe
from initlint.facts.extract import extract_facts
from initlint.facts.model import ModuleFacts
from initlint.sources import UnreadableError, decode, is_overlaid, read_bytes
from initlint.suppressions import suppression_comments

EMPTY = ModuleFacts()


@dataclass(frozen=True)
class FactsOutcome:
    path: Path
    facts: ModuleFacts | None  # None when unreadable
    problem: str = ""  # IL901 message
    internal: str = ""  # IL902: "ExcType: message"
    parsed: bool = False  # False when the pre-filter or the cache answered
    key: str = ""  # the content hash ("" when not hashed: unreadable, or an internal error)
    filtered: bool = False  # the pre-filter answered: ``facts`` is empty, not read


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
        return FactsOutcome(path, None, problem=str(exc))
    try:
        key = cache.key(data)
        if prefilter and cannot_define_classes(data):
            return filtered_outcome(path, key, data)
        cached = cache.get(key)
        if cached is not None:
            return FactsOutcome(path, cached, key=key)
        try:
            text, _ = decode(data)
        except UnreadableError as exc:
            return FactsOutcome(path, None, problem=str(exc))
        facts = extract_facts(text)
        comments = suppression_comments(text)
        if comments:
            facts = replace(facts, suppressions=comments)
        if not is_overlaid(path):  # an unsaved buffer's facts are not kept
            cache.put(key, facts)
        return FactsOutcome(path, facts, parsed=True, key=key)
    except RecursionError:
        return FactsOutcome(path, None, internal="RecursionError: nesting too deep to analyse")
    except Exception as exc:  # noqa: BLE001 - one file must not stop the run
        return FactsOutcome(path, None, internal=describe(exc))


def filtered_outcome(path: Path, key: str, data: bytes) -> FactsOutcome:
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
    return FactsOutcome(path, facts, key=key, filtered=True)


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

"""The fact pass's outcomes as they come, shared by the check loop and the index's loads."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from initlint.driver.gctune import age_objects
from initlint.facts.load import FactsOutcome

if TYPE_CHECKING:
    from concurrent.futures import Future


class FactsStream:
    """The fact pass's outcomes, in the order they come, with a wait for one file's: the
    check loop and the index's loads share the one pass, and nothing is read twice."""

    def __init__(
        self, outcomes: Iterator[FactsOutcome], paths: Iterable[Path], chunks: list[Future[object]]
    ) -> None:
        self._outcomes = outcomes
        self._expected = set(paths)
        self._got: dict[Path, FactsOutcome] = {}
        self._chunks = chunks  # the pool's, once it started

    def produced(self) -> bool:
        """Whether a pool ran and every chunk is done: the rest of the pass is at hand."""
        return bool(self._chunks) and all(f.done() for f in self._chunks)

    def wait_for(self, path: Path) -> FactsOutcome | None:
        """``path``'s outcome, waiting for it if the pass has it still to come; None when
        ``path`` is not in the pass."""
        got = self._got.get(path)
        if got is not None or path not in self._expected:
            return got
        for outcome in self._outcomes:
            self._got[outcome.path] = outcome
            if len(self._got) % 64 == 0:
                age_objects()  # what arrived is long-lived: young collections skip it
            if outcome.path == path:
                return outcome
        return self._got.get(path)  # the pass ended without it (it never does)

    def finish(self) -> None:
        """Run the pass to its end: its pool (and its cache use) end with it."""
        for outcome in self._outcomes:
            self._got[outcome.path] = outcome

    def provide(self, path: Path, outcome: FactsOutcome) -> None:
        """An outcome read outside the pass (a file the pass was not given)."""
        self._got.setdefault(path, outcome)

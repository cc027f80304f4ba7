"""The driver's loader of the index's modules: from the run's fact pass when it read the
file, else through the facts cache, recording the cache key of what each module holds."""

from __future__ import annotations

from pathlib import Path

from initlint.driver.stream import FactsStream
from initlint.environment import Distribution
from initlint.facts.cache import FactsCache
from initlint.facts.load import FactsRead, facts_for, facts_or_empty
from initlint.facts.model import ModuleFacts
from initlint.pipeline.project import dependency_facts


class RunLoader:
    """Loads the modules of one check run (an ``index.loading.ModuleLoader``)."""

    def __init__(self, cache: FactsCache) -> None:
        self.cache = cache
        self.stream: FactsStream | None = None  # the run's fact pass, once started
        # content hash of each module's cache entry: what the results cache keys on
        self.keys: dict[Path, str] = {}

    def load(self, path: Path) -> ModuleFacts:
        stream = self.stream
        outcome = stream.wait_for(path) if stream is not None else None
        if not isinstance(outcome, FactsRead) or outcome.filtered or not outcome.key:
            outcome = facts_for(path, self.cache, prefilter=False)  # not read in the pass
        if outcome.key:
            self.keys[path] = outcome.key
        return facts_or_empty(outcome)

    def load_dependency(self, path: Path, dist: Distribution) -> ModuleFacts:
        facts, key = dependency_facts(path, dist, self.cache)
        if key:
            self.keys[path] = key
        return facts

"""The driver: everything that exists for speed, above the pipeline.

``run``: :func:`analyze`, the check run (the fact pass in a process pool streaming into the
check loop, the forked copy that shares its last part); ``factpass``: the fact
pass in concurrent.futures' process pool; ``stream``: the fact pass's outcomes as they
come; ``loading``: the index's loader over the pass and the facts cache; ``split``: the
forked copy's share of the check;
``results``: the last run's per-file results, and which still hold; ``fixes``: fixes'
edits attached to stored results (JSON, SARIF); ``walk``: the project walk;
``gctune``: rare garbage collections. It imports ``initlint.pipeline``, which never
imports it (docs/architecture.md).
"""

from initlint.driver.run import analyze

__all__ = ["analyze"]

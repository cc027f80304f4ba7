"""Garbage-collector tuning for a check run: rare collections, long-lived objects aged."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")


R = TypeVar("R")


def few_collections(fn: Callable[P, R]) -> Callable[P, R]:
    """Run with rare garbage collections. A run allocates a million long-lived objects (the
    facts) and few cycles; every collection of a young generation walked all of them (a third
    of a warm run, and a second-long collection just after it)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        old = gc.get_threshold()
        gc.set_threshold(max(old[0], 50_000), max(old[1], 50), max(old[2], 1_000))
        try:
            return fn(*args, **kwargs)
        finally:
            age_objects()
            gc.set_threshold(*old)

    return run


def age_objects() -> None:
    """Move every tracked object to the oldest generation without walking it (a freeze and
    an unfreeze are list moves): what is alive now is long-lived, young collections skip it."""
    gc.freeze()
    gc.unfreeze()

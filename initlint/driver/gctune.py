"""Garbage-collector tuning for a check run: no collections during it, long-lived objects
aged."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")


R = TypeVar("R")


def no_collections(fn: Callable[P, R]) -> Callable[P, R]:
    """Run with the cyclic garbage collector off (as it was, after). A run allocates a
    million long-lived objects (the facts) and few cycles: what the collector found on all
    of vLLM was nothing the peak memory shows (250 MB either way), and it took ~0.5 s of
    CPU there, most of it in the forked processes, whose collections touch pages they share
    with the main process. Earlier, with collections only made rare, every young collection
    still walked what had arrived since the last :func:`age_objects`."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            age_objects()
            if was:
                gc.enable()

    return run


def age_objects() -> None:
    """Move every tracked object to the oldest generation without walking it (a freeze and
    an unfreeze are list moves): what is alive now is long-lived, young collections skip it."""
    gc.freeze()
    gc.unfreeze()

"""What a construction registers and does not keep: the runtime side of IL005's parts left
behind, for the tests beside this module (they import torch only after skipping without it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch


@contextmanager
def registered() -> Iterator[list[tuple[str, Any]]]:
    """Every parameter registered on any module while the block runs: (name, tensor)."""
    seen: list[tuple[str, Any]] = []

    def hook(module: Any, name: str, param: Any) -> None:
        seen.append((name, param))

    handle = torch.nn.modules.module.register_module_parameter_registration_hook(hook)
    try:
        yield seen
    finally:
        handle.remove()


def lost(build: Callable[[], Any]) -> set[tuple[str, tuple[int, ...]]]:
    """The parameters the construction registered that the object does not hold (by
    identity): (name, shape)."""
    with registered() as seen:
        obj = build()
    held = {id(p) for p in obj.parameters()}
    return {(name, tuple(p.shape)) for name, p in seen if id(p) not in held}

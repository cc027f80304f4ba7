"""What a construction registers and does not keep, which tensors its own code fills
twice, and which random draws are written over: the runtime side of IL005's parts left
behind, fills and draws thrown away, for the tests beside this module (they import torch
only after skipping without it)."""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode


def diagnostics(project: Path) -> tuple[Any, ...]:
    """What ``initlint check`` reports on ``project``, torch read from its sources (the
    running interpreter's environment)."""
    from initlint.api import check

    before = os.environ.get("VIRTUAL_ENV")
    os.environ["VIRTUAL_ENV"] = sys.prefix
    try:
        report = check([project], cwd=project, use_cache=False)
    finally:
        if before is None:
            del os.environ["VIRTUAL_ENV"]
        else:
            os.environ["VIRTUAL_ENV"] = before
    return report.diagnostics


def reported(project: Path) -> set[tuple[str, str, str, str]]:
    """``diagnostics`` in short: (class, code, severity, the first name quoted)."""
    return {
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.message.split("`")[1])
        for d in diagnostics(project)
    }


def fills_per_tensor(init: str, build: Callable[[], Any]) -> tuple[Any, Counter[int]]:
    """The object ``build`` makes while ``torch.nn.init.<init>`` is counted, and how many
    times that function filled each tensor (keyed by ``id``)."""
    counts: Counter[int] = Counter()
    real = getattr(torch.nn.init, init)

    def counted(t: Any, *args: Any, **kwargs: Any) -> Any:
        counts[id(t)] += 1
        return real(t, *args, **kwargs)

    setattr(torch.nn.init, init, counted)
    try:
        made = build()
    finally:
        setattr(torch.nn.init, init, real)
    return made, counts


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


class _Fills(TorchFunctionMode):
    """In-place fills of whole tensors made by the module's own lines: (storage, line)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path, self.seen = path, []  # type: list[tuple[int, int]]

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        name = getattr(func, "__name__", "")
        if name.endswith("_") and not name.startswith("_"):
            # (``nn.init``'s functions dispatch with the tensor as a keyword)
            tensor = args[0] if args else (kwargs or {}).get("tensor")
            if isinstance(tensor, torch.Tensor):
                line = self._caller()
                if line is not None:
                    self.seen.append((tensor.untyped_storage().data_ptr(), line))
        return func(*args, **(kwargs or {}))

    def _caller(self) -> int | None:
        """The module's line that made the fill, through ``nn.init`` or not; None for a
        fill torch's own code made (a module's default initialisation)."""
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if name == self.path:
                return frame.f_lineno
            if not name.endswith(_PASSING):
                return None
            frame = frame.f_back  # type: ignore[assignment]
        return None


# torch's files a fill made by the module's own line goes through.
_PASSING = ("init.py", "overrides.py", "_tensor.py", "functional.py", "module.py")


def filled_twice(build: Callable[[], Any], path: str, same_line: bool = False) -> set[str]:
    """The tensors of the object ``build`` constructs that the code in ``path`` filled at
    two lines or more, or with ``same_line`` twice or more (one pass run twice) (an item of
    a list named ``*``: ``layers.*.proj.weight``)."""
    with _Fills(path) as fills:
        built = build()
    lines: dict[int, list[int]] = {}
    for ptr, line in fills.seen:
        lines.setdefault(ptr, []).append(line)
    return {
        re.sub(r"\b(blocks|layers)\.\d+\.", r"\1.*.", name)
        for name, t in built.named_parameters()
        if len(_counted(lines.get(t.untyped_storage().data_ptr(), []), same_line)) >= 2
    }


def _counted(lines: list[int], same_line: bool) -> list[int] | set[int]:
    return lines if same_line else set(lines)


class Draws(TorchFunctionMode):
    """The storages random factories made (``drawn``: scaled draws too), and those of them
    written whole in place after (``refilled``)."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: set[int] = set()
        self.refilled: set[int] = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        out = func(*args, **(kwargs or {}))
        name = getattr(func, "__name__", "")
        first = args[0] if args else None
        if name in ("randn", "rand") and isinstance(out, torch.Tensor):
            self.drawn.add(out.untyped_storage().data_ptr())
        elif name in ("__truediv__", "__mul__", "div", "mul") and isinstance(first, torch.Tensor):
            if first.untyped_storage().data_ptr() in self.drawn and isinstance(out, torch.Tensor):
                self.drawn.add(out.untyped_storage().data_ptr())  # (scaled draws)
        elif name.endswith("_") and not name.startswith("_"):
            tensor = args[0] if args else (kwargs or {}).get("tensor")
            if isinstance(tensor, torch.Tensor):
                storage = tensor.untyped_storage()
                whole = tensor.numel() * tensor.element_size() == storage.nbytes()
                if whole and storage.data_ptr() in self.drawn:
                    self.refilled.add(storage.data_ptr())
        return out


def storage_replaced(make: Callable[[], Any]) -> int:
    """Bytes of the parameters registered while ``make`` runs, still held by the object,
    whose storage it no longer holds (``.data =`` gave them other numbers)."""
    made: list[tuple[Any, int]] = []

    def hook(module: Any, name: str, param: Any) -> None:
        made.append((param, param.untyped_storage().data_ptr()))

    handle = torch.nn.modules.module.register_module_parameter_registration_hook(hook)
    try:
        obj = make()
    finally:
        handle.remove()
    held = {id(p) for p in obj.parameters()}
    return sum(
        p.nbytes for p, ptr in made if id(p) in held and p.untyped_storage().data_ptr() != ptr
    )

"""``trace_init``: construct an object once while recording what its __init__ chain does."""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from initlint.records import dataclass

from .memory import CpuPeakMeter, CudaPeakMeter, NoPeakMeter, PeakMeter
from .model import InitTrace, find_repeats
from .paths import normalize
from .recorder import Recorder

DEVICES = ("cpu", "cuda", "meta")

_active = False


class DeviceUnavailableError(RuntimeError):
    """The requested device cannot be used here (e.g. ``cuda`` without CUDA)."""


def _import_torch() -> Any:
    import torch

    return torch


def _resolve_device(torch: Any, device: str) -> Any:
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"invalid device {device!r}: {exc}") from None
    if dev.type not in DEVICES:
        raise ValueError(f"unsupported device {device!r}: use 'cpu', 'cuda' or 'meta'")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            cuda = torch.version.cuda
            built = "without CUDA" if cuda is None else f"with CUDA {cuda}"
            raise DeviceUnavailableError(
                f"device {device!r} requested but CUDA is not available "
                f"(torch {torch.__version__} built {built}, no usable GPU)"
            )
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise DeviceUnavailableError(
                f"device {device!r} requested but only {torch.cuda.device_count()} GPU(s) exist"
            )
    return dev


def _device_context(torch: Any, dev: Any) -> contextlib.AbstractContextManager[Any]:
    """``with torch.device(dev)``, skipped when ``dev`` already is the default device: that
    context is a TorchFunctionMode which adds Python overhead to every torch call."""
    default = getattr(torch, "get_default_device", lambda: torch.device("cpu"))()
    if default == dev:
        return contextlib.nullcontext()
    return torch.device(dev)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Construction:
    """What one recorded call of a factory left: its result, the recorder and the costs."""

    result: object
    recorder: Recorder
    seconds: float
    peak_bytes: int | None
    device: str


def construct(
    factory: Callable[[], object],
    *,
    device: str,
    project_roots: Sequence[str | os.PathLike[str]] | None,
) -> Construction:
    """Call ``factory()`` once under ``with torch.device(device)`` with the recorder installed.

    The patches and the profile hook are removed afterwards, also when ``factory`` raises; its
    exception propagates. On ``meta`` no peak memory is measured (``peak_bytes`` is None): no
    tensor there has storage, so a number would describe the recorder, not the model.
    """
    global _active
    torch = _import_torch()
    dev = _resolve_device(torch, device)
    roots = None if project_roots is None else tuple(normalize(r) for r in project_roots)
    if _active:
        raise RuntimeError("trace_init cannot be nested")
    meter: PeakMeter
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        meter = CudaPeakMeter(torch, torch.device("cuda", index))
    elif dev.type == "meta":
        meter = NoPeakMeter()
    else:
        meter = CpuPeakMeter()
    recorder = Recorder(torch, roots)
    _active = True
    try:
        gc.collect()
        meter.start()
        try:
            recorder.start()
            try:
                with _device_context(torch, dev):
                    start = time.perf_counter()
                    result = factory()
                    if dev.type == "cuda":
                        torch.cuda.synchronize(dev)
                    seconds = time.perf_counter() - start
            finally:
                recorder.stop()
        except BaseException:
            meter.abort()
            raise
        peak = meter.stop()
    finally:
        _active = False
    return Construction(result, recorder, seconds, peak, str(dev))


def trace_init(
    factory: Callable[[], object],
    *,
    device: str = "cpu",
    project_roots: Sequence[str | os.PathLike[str]] | None = None,
) -> InitTrace:
    """Call ``factory()`` once under ``with torch.device(device)`` and record what it did.

    Recorded: ``register_buffer``/``register_parameter`` and tensor assignments on the returned
    object (by name, with bytes), calls of project methods with ``self`` being that object
    (top-level invocations only), wall time and peak memory. "Project" code is code in a file
    below ``project_roots``; by default the directory of the top package that defines the
    returned object's class. The patches and the profile hook are removed afterwards, also when
    ``factory`` raises; its exception propagates. ``device="meta"`` builds every tensor without
    storage: bytes still come from shapes and dtypes, and ``peak_bytes`` is None.
    """
    done = construct(factory, device=device, project_roots=project_roots)
    result = done.result
    cls = type(result)
    events = done.recorder.collect(result)
    return InitTrace(
        class_name=f"{cls.__module__}.{cls.__qualname__}",
        seconds=done.seconds,
        peak_bytes=done.peak_bytes,
        device=done.device,
        events=events,
        repeated=find_repeats(events),
    )

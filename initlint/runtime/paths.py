"""Which code is "the project", and how a frame is shown (file:line, owner class)."""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from types import CodeType, FrameType

_RUNTIME_DIR = os.path.dirname(os.path.realpath(__file__))


def normalize(path: str | os.PathLike[str]) -> str:
    return _normalize(os.fspath(path))


@lru_cache(maxsize=16384)
def _normalize(path: str) -> str:
    if path.startswith("<"):  # "<string>", "<frozen ...>": not a file
        return path
    return os.path.normcase(os.path.realpath(path))


def is_under(path: str, roots: Iterable[str]) -> bool:
    """``path`` and ``roots`` are normalized; a root may also be a single file."""
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


@lru_cache(maxsize=1)
def _library_dirs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(stdlib dirs, site-packages dirs); site-packages may sit inside the stdlib dir."""
    paths = sysconfig.get_paths()
    stdlib = {paths[k] for k in ("stdlib", "platstdlib") if k in paths}
    packages = {paths[k] for k in ("purelib", "platlib") if k in paths}
    packages.update(getattr(site, "getsitepackages", list)())
    packages.add(site.getusersitepackages())
    return tuple(map(normalize, sorted(stdlib))), tuple(map(normalize, sorted(packages)))


def is_library(path: str) -> bool:
    """True for files of the stdlib and for site-packages directories themselves."""
    stdlib, packages = _library_dirs()
    return path in packages or (is_under(path, stdlib) and not is_under(path, packages))


def excluded_dirs(torch_file: str) -> tuple[str, ...]:
    """Code never counted as the user's: torch itself and this recorder."""
    return (normalize(os.path.dirname(torch_file)), _RUNTIME_DIR)


def default_roots(cls: type) -> tuple[str, ...]:
    """The directory of the top package that defines ``cls``, else the cwd.

    A top-level single-file module counts as its directory, unless that directory is a
    site-packages or stdlib directory, where only the file itself counts.
    """
    top = sys.modules.get(cls.__module__.partition(".")[0])
    file = getattr(top, "__file__", None)
    if isinstance(file, str):
        path = normalize(file)
        folder = os.path.dirname(path)
        if Path(path).stem == "__init__" or not is_library(folder):
            return (folder,)
        return (path,)
    namespace = getattr(top, "__path__", None)
    if namespace is not None:
        return tuple(normalize(p) for p in namespace)
    return (normalize(os.getcwd()),)


def owner_of(qualname: str, module: str | None) -> str | None:
    """Class that holds a function: "m.C.f" -> "m.C", "m.C.f.<locals>.g" -> "m.C"."""
    parts = qualname.split(".")[:-1]
    while parts and parts[-1] == "<locals>":
        parts = parts[:-2]
    if not parts:
        return None
    return f"{module}.{'.'.join(parts)}" if module else ".".join(parts)


# (normalized file, line, owner) of one frame.
FrameInfo = tuple[str, int, str | None]


def qualname_of(code: CodeType, target: object = None) -> str:
    """``code.co_qualname`` (3.11+); on 3.10, found through ``target``'s class MRO."""
    qualname = getattr(code, "co_qualname", None)
    if isinstance(qualname, str):
        return qualname
    for cls in type(target).__mro__ if target is not None else ():
        for value in vars(cls).values():
            if getattr(getattr(value, "__func__", value), "__code__", None) is code:
                return f"{cls.__qualname__}.{code.co_name}"
    return code.co_name


def frame_info(frame: FrameType) -> FrameInfo:
    code = frame.f_code
    qualname = getattr(code, "co_qualname", None)
    if not isinstance(qualname, str):  # 3.10
        qualname = qualname_of(code, frame.f_locals.get("self") if code.co_argcount else None)
    module = frame.f_globals.get("__name__")
    return (
        normalize(code.co_filename),
        frame.f_lineno,
        owner_of(qualname, module if isinstance(module, str) else None),
    )


def pick_site(stack: Sequence[FrameInfo], roots: Sequence[str]) -> tuple[str, str | None]:
    """Site and owner of the first project frame, else of the innermost recorded frame.

    With no user frame at all, the factory itself (e.g. a class passed as the factory) did it.
    """
    chosen = next((f for f in stack if is_under(f[0], roots)), stack[0] if stack else None)
    if chosen is None:
        return "<factory>", None
    return f"{chosen[0]}:{chosen[1]}", chosen[2]


def display_path(site: str) -> str:
    """A site with its file shown relative to the cwd when it lies below it."""
    file, sep, line = site.rpartition(":")
    if not sep:
        return site
    try:
        rel = os.path.relpath(file)
    except ValueError:  # another drive on Windows
        return site
    return f"{rel}:{line}" if not rel.startswith(os.pardir) else site

"""The project's module map, from the walk cache while no folder changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from initlint import __version__
from initlint.cache import CACHE_DIR, BlobCache, content_key, package_fingerprint
from initlint.discovery import walk_python_paths
from initlint.pipeline.project import module_names, source_roots
from initlint.settings import Settings


def project_modules(
    root: Path, settings: Settings, use_cache: bool = True
) -> dict[str, tuple[Path | str, bool]]:
    """The project's module map, module name -> (file, is a package), as a check builds it
    (from the walk cache when no folder changed)."""
    return project_map(root, source_roots(root, settings), settings, use_cache)[1]


def project_map(
    root: Path, roots: list[Path], settings: Settings, use_cache: bool
) -> tuple[set[str], dict[str, tuple[Path | str, bool]]]:
    """The project's Python files and their module names (the first file wins a name).

    Kept in the cache with what each folder the walk listed looked like: a file added,
    removed or renamed changes its folder's mtime. While none changed (~2 ms of stats for
    vLLM's 637 folders) the walk (~8 ms) and the names (~5 ms) stand. The root is stamped
    by its listing instead, as this run adds the cache folder to it. A folder changed in
    the 50 ms before the walk (a second, where mtimes are whole seconds) might not show
    a change right after: then nothing is kept, nor when the walk met a ``.py`` symlink.
    """
    cache = BlobCache(root, f"walk-{__version__}-{package_fingerprint()}", use_cache)
    key = content_key(
        repr(
            (str(root), [str(r) for r in roots], settings.all_excludes, settings.respect_gitignore)
        ).encode()
    )
    top = str(root)
    if use_cache:
        try:
            (root / CACHE_DIR).mkdir(exist_ok=True)  # before the root is stamped
        except OSError:
            pass
    stored = cache.load(key)
    if isinstance(stored, tuple) and len(stored) == 3 and _same_stamps(top, stored[0]):
        return set(stored[1]), dict(stored[2])
    started = time.time_ns()
    record: list[str] = []
    files = list(
        walk_python_paths(
            root, root, settings.all_excludes, record, gitignore=settings.respect_gitignore
        )
    )
    module_paths = module_names(files, roots)
    if use_cache and "" not in record:
        stamps = _stamps(top, record, started)
        if stamps is not None:
            cache.store(key, (stamps, tuple(files), tuple(module_paths.items())))
    return set(files), module_paths


def _stamp(top: str, folder: str) -> object:
    if folder == top:
        return tuple(sorted(os.listdir(folder)))
    return os.stat(folder).st_mtime_ns


def _stamps(top: str, folders: list[str], started: int) -> tuple[tuple[str, object], ...] | None:
    out = []
    for folder in folders:
        try:
            stamp = _stamp(top, folder)
        except OSError:
            return None
        if isinstance(stamp, int):
            whole = stamp % 1_000_000_000 == 0  # a file system that keeps seconds only
            if stamp >= started - (2_000_000_000 if whole else 50_000_000):
                return None
        out.append((folder, stamp))
    return tuple(out)


def _same_stamps(top: str, stamps: object) -> bool:
    try:
        for folder, stamp in stamps:  # type: ignore[attr-defined]
            if _stamp(top, folder) != stamp:
                return False
    except (OSError, TypeError, ValueError):
        return False
    return True

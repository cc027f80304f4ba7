"""``.gitignore`` files, as the project walk applies them (``respect-gitignore``, default on).

The patterns of every ``.gitignore`` from the repository's top (the nearest folder at or
above the project root holding ``.git``; else the project root) down to a folder apply in
that folder, a deeper file's match winning, as git has it; so does ``.git/info/exclude``.
A folder git ignores is not entered (git cannot re-include a file inside one either).
Git's own matching rules (negation, anchoring, ``**``, folder-only patterns) come from
``pathspec``'s ``GitIgnoreSpec``, imported only where a ``.gitignore`` exists.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from initlint.records import dataclass

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".gitignore"


@dataclass(frozen=True)
class _Spec:
    base: str  # the folder the patterns are relative to, with a trailing separator
    spec: GitIgnoreSpec


Specs = tuple[_Spec, ...]


def _load(path: str, base: str) -> _Spec | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    if not any(ln.strip() and not ln.lstrip().startswith("#") for ln in lines):
        return None
    from pathspec import GitIgnoreSpec

    return _Spec(base.rstrip(os.sep) + os.sep, GitIgnoreSpec.from_lines(lines))


def _boundary(root: str) -> str:
    """The repository's top: the nearest folder at or above ``root`` with ``.git``."""
    folder = root
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return root
        folder = parent


def initial_specs(root: str, top: str, record: list[str] | None = None) -> Specs:
    """The specs in force in ``top`` (at or below ``root``) before its own ``.gitignore``:
    ``.git/info/exclude`` and the ``.gitignore`` of every folder from the repository's top
    down to ``top``'s parent. ``record`` receives each file read (its mtime stamps a cache)."""
    boundary = _boundary(root)
    specs: list[_Spec] = []
    exclude = os.path.join(boundary, ".git", "info", "exclude")
    if os.path.isfile(exclude):
        found = _load(exclude, boundary)
        if record is not None:
            record.append(exclude)
        if found is not None:
            specs.append(found)
    folders: list[str] = []
    folder = os.path.dirname(top)
    while len(folder) >= len(boundary) and folder.startswith(boundary):
        folders.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for folder in reversed(folders):
        path = os.path.join(folder, IGNORE_FILE)
        if os.path.isfile(path):
            if record is not None:
                record.append(path)
            found = _load(path, folder)
            if found is not None:
                specs.append(found)
    return tuple(specs)


def with_folder(specs: Specs, folder: str, names: set[str], record: list[str] | None) -> Specs:
    """``specs`` plus ``folder``'s own ``.gitignore`` when its listing (``names``) has one."""
    if IGNORE_FILE not in names:
        return specs
    path = os.path.join(folder, IGNORE_FILE)
    if record is not None:
        record.append(path)
    found = _load(path, folder)
    return specs if found is None else (*specs, found)


def ignored(specs: Specs, path: str, is_dir: bool) -> bool:
    """Whether git would ignore ``path`` under ``specs`` (the deepest deciding match wins)."""
    for spec in reversed(specs):
        if not path.startswith(spec.base):
            continue
        rel = path[len(spec.base) :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        result = spec.spec.check_file(rel + "/" if is_dir else rel)
        if result.include is not None:
            return bool(result.include)
    return False

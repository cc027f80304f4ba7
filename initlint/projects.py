"""Several projects in one run: the given paths grouped by project root (a monorepo's
packages each with their own ``pyproject.toml``), each group with its own settings and
index, and the results merged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.discovery import find_root
from initlint.pipeline.unread import UnreadAncestor
from initlint.records import dataclass


@dataclass(frozen=True)
class ProjectGroup:
    """The given paths that belong to one project root, in the order they were given."""

    root: Path
    paths: tuple[Path, ...]


def group_paths(paths: Iterable[Path], cwd: Path) -> list[ProjectGroup]:
    """Absolute given paths (the cwd when none) grouped by :func:`find_root`, roots sorted:
    the output is the same whatever order the paths came in."""
    given = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    by_root: dict[Path, list[Path]] = {}
    folder_roots: dict[Path, Path] = {}  # a folder -> its root: files share their folder's
    for p in given:
        folder = p if p.is_dir() else p.parent
        root = folder_roots.get(folder)
        if root is None:
            root = folder_roots[folder] = find_root(p)
        by_root.setdefault(root, []).append(p)
    return [ProjectGroup(r, tuple(by_root[r])) for r in sorted(by_root)]


@dataclass
class Combined:
    """What the runs over several project roots found, merged."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    internal_errors: int = 0
    unused_suppressions: list[tuple[str, int, str]] = field(default_factory=list)
    unread: list[UnreadAncestor] = field(default_factory=list)

    def add(self, diagnostics: Iterable[Diagnostic], files: int, internal: int) -> None:
        self.diagnostics.extend(diagnostics)
        self.files += files
        self.internal_errors += internal

    def finish(self) -> None:
        self.diagnostics.sort(key=Diagnostic.sort_key)
        self.unused_suppressions.sort()
        self.unread.sort(key=UnreadAncestor.order)


def mark_dependents(diagnostics: list[Diagnostic], because: dict[str, str]) -> list[Diagnostic]:
    """Diagnostics in a dependent file (display path -> the given file it depends on,
    displayed) carry that file, so that the text output can say why they are shown."""
    if not because:
        return diagnostics
    from dataclasses import replace

    return [
        replace(d, dependent_of=because[d.path]) if d.path in because else d for d in diagnostics
    ]

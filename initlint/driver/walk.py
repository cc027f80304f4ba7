"""The project walk the driver runs: its Python files and their module names."""

from __future__ import annotations

from pathlib import Path

from initlint.discovery import walk_python_paths
from initlint.pipeline import project
from initlint.pipeline.project import source_roots
from initlint.settings import Settings


def project_modules(root: Path, settings: Settings) -> dict[str, tuple[Path | str, bool]]:
    """The project's module map, module name -> (file, is a package), as a check builds it."""
    return project_map(root, source_roots(root, settings), settings)[1]


def project_map(
    root: Path, roots: list[Path], settings: Settings
) -> tuple[set[str], dict[str, tuple[Path | str, bool]]]:
    """The project's Python files and their module names (the first file wins a name), by
    this module's ``walk_python_paths`` (a test counts the walks a run makes through it)."""
    return project.project_map(root, roots, settings, walk_python_paths)

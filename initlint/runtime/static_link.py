"""The static side of a whole-model trace: which files to check, and ``initlint check`` on them.

The checker runs in this process through ``initlint.driver.analyze`` (it never imports torch;
torch being loaded already by the trace changes nothing for it), with one job and no cache, so
nothing is forked and nothing is written next to the traced sources.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from initlint.rules.base import runtime_repeats_of

from .model_trace import StaticFinding
from .paths import is_under, normalize


def source_files(classes: Iterable[type], roots: Sequence[str]) -> list[str]:
    """The project files (below ``roots``) that define any class in the classes' MROs."""
    files: dict[str, None] = {}
    for cls in classes:
        for base in cls.__mro__:
            try:
                file = inspect.getsourcefile(base)
            except (TypeError, OSError):  # builtins, C extensions
                continue
            if file is None:
                continue
            path = normalize(file)
            if is_under(path, roots):
                files.setdefault(path, None)
    return list(files)


def static_findings(files: Sequence[str | os.PathLike[str]]) -> tuple[StaticFinding, ...]:
    """The findings of ``initlint check`` on ``files`` (the project is found from them) whose
    rules predict runtime repeats (``Rule.runtime_repeats``: IL001-IL003)."""
    if not files:
        return ()
    from initlint.driver import analyze

    paths = [Path(normalize(f)) for f in files]
    cwd = Path(os.path.commonpath([str(p.parent) for p in paths]))
    analysis = analyze(paths, cwd=cwd, use_cache=False, jobs=1, progress=False)
    found = []
    for diag in analysis.diagnostics:
        if not runtime_repeats_of(diag.code):
            continue
        classes = diag.classes or ((diag.class_name,) if diag.class_name else ())
        found.append(
            StaticFinding(
                code=diag.code,
                path=normalize(cwd / diag.path),
                line=diag.line,
                message=diag.message,
                classes=tuple(classes),
            )
        )
    return tuple(found)

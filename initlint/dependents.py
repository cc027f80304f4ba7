"""The project files whose result depends on some given files (pre-commit's changed files).

initlint is a cross-file linter: a change in ``base.py`` alone can give an unchanged
subclass file a new finding. A file's analysis only leaves the file through its imports
(the results cache keys each file's results by its import closure), but that
closure is wide in a real project (a package's ``__init__`` imports half of it: in vLLM,
2,135 of 3,231 files reach ``rotary_embedding/base.py``), and most of those files cannot
change with it. The dependents are the files with a class that inherits from a class of
a given file: its subclasses, the shape the init simulation follows into the given file.
(A class whose constructor only calls a changed helper function is not one of them.)

Finding them reads no facts for most of the project: class statements are found in each
file's bytes, subclasses by name to a fixed point (an over-approximation: a name may be
bound to another class), and only those candidates are confirmed through the index's MRO,
which resolves names as the check does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from initlint.driver.walk import project_modules
from initlint.facts.cache import FactsCache
from initlint.facts.load import facts_for, facts_or_empty
from initlint.facts.model import ModuleFacts
from initlint.index.loading import ProjectFiles
from initlint.index.project import ProjectIndex
from initlint.index.records import Module
from initlint.settings import Settings
from initlint.sources import UnreadableError, read_bytes

# `class Name(bases)`, the bases up to the closing parenthesis. (Anchoring it at a line's
# start with re.M made it 7x slower: the line start is checked by hand.)
_CLASS = re.compile(rb"class[ \t]+(\w+)[ \t]*\(([^)]*)\)")


def _class_statements(data: bytes) -> list[tuple[str, set[str]]]:
    """(class name, last names of its bases) for each class statement in a file."""
    out = []
    for m in _CLASS.finditer(data):
        if data[data.rfind(b"\n", 0, m.start()) + 1 : m.start()].strip():
            continue  # not at the start of a line: not a class statement
        bases = set()
        for part in m.group(2).split(b","):
            part = part.split(b"[", 1)[0].strip()
            if not part or b"=" in part:  # a keyword (metaclass=...) is no base
                continue
            bases.add(part.rsplit(b".", 1)[-1].decode("ascii", "replace"))
        out.append((m.group(1).decode("ascii", "replace"), bases))
    return out


def find_dependents(
    root: Path,
    settings: Settings,
    given: Iterable[Path],
    *,
    use_cache: bool = True,
    jobs: int = 1,
) -> dict[Path, Path]:
    """Project file -> a given file it depends on, for every project file outside ``given``
    with a class that inherits, directly or not, from a class of a given file."""
    del jobs  # the search reads bytes only; the few candidates are loaded one by one
    module_paths = project_modules(root, settings)
    given_set = {Path(p) for p in given}
    classes: dict[Path, list[tuple[str, set[str]]]] = {}
    for path, _ in module_paths.values():
        try:
            data = read_bytes(Path(path))
        except UnreadableError:
            continue
        if b"class" in data:
            classes[Path(path)] = _class_statements(data)
    # name -> the given file its class descends from (by name); then to a fixed point.
    origin: dict[str, Path] = {}
    for path in sorted(given_set):
        for name, _ in classes.get(path, ()):
            origin.setdefault(name, path)
    if not origin:
        return {}
    subclasses: dict[str, list[tuple[Path, str]]] = {}
    for path, found in classes.items():
        for name, bases in found:
            for base in bases:
                subclasses.setdefault(base, []).append((path, name))
    candidates: dict[Path, Path] = {}
    todo = sorted(origin)
    while todo:
        base = todo.pop()
        for path, name in subclasses.get(base, ()):
            if path not in given_set:
                candidates.setdefault(path, origin[base])
            if name not in origin:
                origin[name] = origin[base]
                todo.append(name)
    if not candidates:
        return {}
    return _confirmed(root, settings, module_paths, candidates, given_set, use_cache)


def _confirmed(
    root: Path,
    settings: Settings,
    module_paths: dict[str, tuple[Path | str, bool]],
    candidates: dict[Path, Path],
    given: set[Path],
    use_cache: bool,
) -> dict[Path, Path]:
    """The candidates with a class whose MRO, resolved as the check resolves it, holds a
    class of a given file."""
    cache = FactsCache(root, settings.fingerprint(), use_cache)

    def load(path: Path) -> ModuleFacts:
        return facts_or_empty(facts_for(path, cache, prefilter=False))

    try:
        index = ProjectIndex(dict(module_paths), ProjectFiles(load))
        names = {Path(p): name for name, (p, _) in module_paths.items()}
        out: dict[Path, Path] = {}
        for path, origin in sorted(candidates.items()):
            name = names.get(path)
            mod = index.module(name) if name is not None else None
            if mod is not None and _subclasses_given(index, mod, given):
                out[path] = origin
        return out
    finally:
        cache.close()


def _subclasses_given(index: ProjectIndex, mod: Module, given: set[Path]) -> bool:
    """Whether a class of ``mod`` has a class of a given file among its ancestors."""
    for info in index.classes_of(mod):
        for qualname in index.mro(info.qualname).classes[1:]:
            ancestor = index.class_info(qualname)
            if ancestor is not None and ancestor.module.path in given:
                return True
    return False

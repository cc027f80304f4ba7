"""The modules an index holds (``ModuleSet``): module names of files, project modules loaded
on demand, installed ones found through the environment, each module's ``NameTable``, and
the classes and functions named by their qualified names."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Self

from initlint.environment import BLOCKED, STDLIB, Distribution, Found, ModuleFinder
from initlint.facts.model import ModuleFacts
from initlint.index.loading import ModuleLoader
from initlint.index.records import (
    EARLIER,
    NO_BINDINGS,
    ClassInfo,
    FunctionInfo,
    Module,
    NameTable,
    Target,
)
from initlint.records import dataclass


def module_name_for(path: Path | str, roots: Iterable[Path]) -> tuple[str, bool] | None:
    """Dotted module name of ``path`` relative to the deepest root containing it."""
    best: str | None = None
    depth = -1  # separators in ``best``, counted once a second root contains the path too
    text = str(path)
    sep = os.sep
    for root in roots:
        prefix = str(root).rstrip(sep) + sep
        if not text.startswith(prefix):  # what Path.relative_to answers, without its cost
            continue
        rel = text[len(prefix) :]
        if best is None:
            best = rel
            continue
        if depth < 0:
            depth = best.count(sep)
        if rel.count(sep) < depth:
            best, depth = rel, rel.count(sep)
    if best is None:
        return None
    folder, found, name = best.rpartition(sep)
    if not name:
        return None
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:  # Path.with_suffix(""): drop a suffix, not a leading dot
        name = name[:dot]
    package = _dotted_folder(folder) if found else ""
    if package is None:
        return None
    if name == "__init__":
        return (package, True) if package else None
    if not name.isidentifier():
        return None
    return (package + "." + name if package else name), False


@functools.lru_cache(maxsize=4096)
def _dotted_folder(folder: str) -> str | None:
    """``a/b`` as ``a.b``, or None when a part is not an identifier (memoised: a project's
    files share few folders)."""
    parts = folder.split(os.sep)
    return ".".join(parts) if all(map(str.isidentifier, parts)) else None


@dataclass
class ModuleSet:
    """Holds modules (loaded on demand) and finds classes and functions by qualified name."""

    module_paths: dict[str, tuple[Path | str, bool]]  # a str becomes a Path when loaded
    loader: ModuleLoader  # reads each module's facts when the index first needs them
    modules: dict[str, Module] = field(default_factory=dict)
    _classes: dict[str, ClassInfo | None] = field(default_factory=dict)
    _suffix: dict[str, list[str]] | None = None  # last part -> dotted names, built once
    _tables: dict[str, NameTable] = field(default_factory=dict)
    # The environment (docs/design.md): where a name the project lacks is looked up (a
    # dependency file's facts are read by the loader, lazily, when resolution reaches it).
    finder: ModuleFinder | None = None
    dependency_paths: set[str] = field(default_factory=set)
    _env: dict[str, Found | None] = field(default_factory=dict)
    _tops: set[str] | None = None  # the project's top-level modules and regular packages

    def name_table(self, mod: Module) -> NameTable:
        """``mod``'s names by name, built once for its facts."""
        table = self._tables.get(mod.name)
        if table is None or table.facts is not mod.facts:
            table = self._tables[mod.name] = NameTable(mod.facts)
        return table

    # -- indexes over the same files ------------------------------------------------------
    @classmethod
    def sharing(
        cls,
        module_paths: dict[str, tuple[Path | str, bool]],
        loader: ModuleLoader,
        modules: dict[str, Module],
        tables: dict[str, NameTable],
        suffix: dict[str, list[str]] | None = None,
    ) -> Self:
        """An index over the same files as another (the fix verifier's, over edited facts),
        sharing what depends on them alone: per-module name tables (``tables``, rebuilt here
        for a module whose facts differ) and the suffix map (``suffix``: it depends on the
        module names only, so it holds while ``module_paths`` has the same names)."""
        return cls(module_paths, loader, modules, _suffix=suffix, _tables=tables)

    def name_tables(self) -> dict[str, NameTable]:
        """A copy of the name tables this index has built (see :meth:`sharing`)."""
        return dict(self._tables)

    @property
    def suffix_map(self) -> dict[str, list[str]] | None:
        """Last part of a module name -> the dotted names, once built (see :meth:`sharing`)."""
        return self._suffix

    # -- modules -------------------------------------------------------------------------
    def module(self, name: str) -> Module | None:
        mod = self.modules.get(name)
        if mod is not None:
            return mod
        entry = self.module_paths.get(name)
        if entry is None:
            return self._dependency_module(name)
        path = Path(entry[0])
        mod = Module(name, path, entry[1], self.loader.load(path))
        self.modules[name] = mod
        return mod

    def add_module(self, name: str, path: Path, is_package: bool, facts: ModuleFacts) -> Module:
        mod = Module(name, path, is_package, facts)
        self.modules[name] = mod
        self.module_paths.setdefault(name, (path, is_package))
        if self._tops is not None and "." not in name:
            self._tops.add(name)
        return mod

    def adopt(self, mod: Module) -> None:
        """A module another copy of this run loaded (a project or a dependency module, as
        :meth:`module` would have loaded it): kept as it is, unless the name is taken."""
        if mod.name in self.modules:
            return
        self.modules[mod.name] = mod
        if mod.dist is not None:
            self.dependency_paths.add(str(mod.path))

    def has_module(self, name: str) -> bool:
        return name in self.modules or name in self.module_paths or self._found(name) is not None

    def is_dependency(self, path: Path | str) -> bool:
        """Whether ``path`` is a file of an installed dependency that this run read."""
        return str(path) in self.dependency_paths

    # -- the environment -----------------------------------------------------------------
    def _project_tops(self) -> set[str]:
        if self._tops is None:
            self._tops = {n for n in self.module_paths if "." not in n}
            # (a dependency module another index loaded is no project module: it shadows
            # nothing)
            self._tops.update(n for n, m in self.modules.items() if "." not in n and m.dist is None)
        return self._tops

    def _found(self, name: str) -> Found | None:
        """``name`` in the environment, unless the project shadows it: a project module or
        regular package of the same top-level name hides every installed module below it
        (Python's precedence: the project's folders come first on the path)."""
        if self.finder is None:
            return None
        if name in self._env:
            return self._env[name]
        top = name.partition(".")[0]
        found = None
        if top not in self._project_tops():
            hit = self.finder.find(name)
            found = hit if isinstance(hit, Found) else None
        self._env[name] = found
        return found

    def _in_environment(self, name: str) -> bool:
        """Whether the top-level package of ``name`` is installed (with source or not)."""
        if self.finder is None:
            return False
        top = name.partition(".")[0]
        return top not in self._project_tops() and self.finder.find(top) is not None

    def _compiled(self, name: str) -> bool:
        """Whether ``name`` is an installed module without source (an extension module)."""
        if self.finder is None or name.partition(".")[0] in self._project_tops():
            return False
        return self.finder.find(name) == BLOCKED

    def _dependency_module(self, name: str) -> Module | None:
        found = self._found(name)
        if found is None:
            return None
        dist = found.dist or Distribution(name.partition(".")[0], "")
        if found.namespace:
            facts = ModuleFacts()
        else:
            facts = self.loader.load_dependency(found.path, dist)
        mod = Module(name, found.path, found.is_package, facts, dist)
        self.modules[name] = mod
        self.dependency_paths.add(str(found.path))
        return mod

    def absolute_module(
        self, name: str, tolerant: bool = True, importer: str | None = None
    ) -> str | None:
        """Map an absolute import to a project module, else an installed one, tolerating a
        missing src root (``tolerant``; never in dependency code): an import that names no
        module may mean a module below a folder the importing module ``importer`` sits in
        (the nearest: that import works only while such a folder is on the path, as when a
        script in it runs), else the one project module whose dotted name ends with it.
        Never for a standard-library or installed top-level name, and otherwise never below
        a regular package (a nested ``pkg/env/torch.py`` shadows nothing: ``pkg/env`` is no
        source root)."""
        if self.has_module(name):
            return name
        top = name.partition(".")[0]
        if not tolerant or top in STDLIB or self._in_environment(name):
            return None
        if importer is not None:
            # (only a folder below the importer's own folders: ``decoder`` of ``decoder.parts``
            # a package there, not a same-named module, ``utils.py`` or the importer itself;
            # a folder without ``__init__.py`` is a namespace package, known by a module in it)
            entry = self.module_paths.get(importer)
            folders = importer.split(".")
            deepest = len(folders) if entry is not None and entry[1] else len(folders) - 1
            nested = "." in name
            for n in range(deepest, 0, -1):
                head = self.module_paths.get(".".join([*folders[:n], top]))
                beside = ".".join([*folders[:n], name])
                # (``src.py`` beside a ``src/`` folder: ``src`` is that module, no package)
                folder = head[1] if head is not None else nested
                if folder and beside in self.module_paths:
                    return beside
        if self._suffix is None:
            # Dotted module names by their last part: those ending with ``.name`` share it.
            self._suffix = {}
            for full in self.module_paths:
                dot = full.rfind(".")
                if dot >= 0:
                    last = full[dot + 1 :]
                    group = self._suffix.get(last)
                    if group is None:
                        self._suffix[last] = [full]
                    else:
                        group.append(full)
        # The one module whose name ends with ``.name``, if exactly one does.
        tail = "." + name
        found = None
        for full in self._suffix.get(name[name.rfind(".") + 1 :], ()):
            if full.endswith(tail):
                above = self.module_paths.get(full[: -len(tail)])
                if above is not None and above[1]:
                    continue  # inside a regular package: not under a source root
                if found is not None:
                    return None
                found = full
        return found

    # -- classes -------------------------------------------------------------------------
    def classes_of(self, mod: Module) -> list[ClassInfo]:
        out = []
        for cls in mod.facts.classes:
            info = self.class_info(f"{mod.name}.{cls.qualname}")
            if info is not None:
                out.append(info)
        return out

    def class_info(self, qualname: str) -> ClassInfo | None:
        """The class named ``qualname``: the last definition of that name in its module, or
        an earlier one, named ``module.Name@line`` (see _class_name)."""
        if qualname in self._classes:
            return self._classes[qualname]
        info = None
        name, at, line = qualname.partition(EARLIER)
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = self.module(".".join(parts[:i]))
            if mod is None:
                if self._compiled(".".join(parts[:i])):
                    break  # torch._C.X: below an installed module without source
                continue
            table = self.name_table(mod)
            local = ".".join(parts[i:])
            if not at:
                found = table.classes.get(local)  # the last definition wins
            else:
                defs = table.named.get(local, NO_BINDINGS)[0]
                found = next((c for c in defs if str(c.span.line) == line), None)
            if found is not None:
                info = ClassInfo(qualname, mod, found)
            break
        self._classes[qualname] = info
        return info

    def known_external(self, dotted: str) -> bool:
        """Whether what the external name ``dotted`` does is known without reading it: the
        standard library's, or torch's and numpy's (the cost model's built-in knowledge)."""
        head = dotted.partition(".")[0]
        return head in STDLIB or head in ("torch", "numpy", "builtins")

    def in_dependency(self, target: Target) -> bool:
        """Whether a class or function target is defined in an installed dependency."""
        if target.kind == "class":
            info = self.class_info(target.name)
            return info is not None and info.module.is_dependency
        if target.kind == "function":
            fn = self.function_info(target.name)
            return fn is not None and fn.module.is_dependency
        return False

    def function_info(self, qualname: str) -> FunctionInfo | None:
        mod_name, _, fn_name = qualname.rpartition(".")
        mod = self.module(mod_name)
        if mod is None:
            return None
        found = self.name_table(mod).functions.get(fn_name)  # the last definition wins
        return FunctionInfo(qualname, mod, found) if found else None

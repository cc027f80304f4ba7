"""The project index: module names, cross-file name resolution and C3 MROs."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from dataclasses import field
from pathlib import Path
from typing import Literal, Self

from initlint.environment import BLOCKED, STDLIB, Distribution, Found, ModuleFinder
from initlint.facts.model import (
    AliasFacts,
    ClassFacts,
    Expr,
    FieldValueFacts,
    FunctionFacts,
    ImportFacts,
    ModuleFacts,
)
from initlint.records import dataclass

MAX_RESOLVE_DEPTH = 50
EARLIER = "@"  # m.Y@12: the definition of m.Y on line 12, shadowed by a later one
MEMO_MRO = 64  # method lookups in longer MROs walk instead: hashing the MRO would cost more


@dataclass(frozen=True)
class Module:
    """A module: its dotted name, file and facts. ``dist`` is set for a read-only module of
    an installed dependency (docs/design.md, "The environment"): never reported on, never edited."""

    name: str
    path: Path
    is_package: bool
    facts: ModuleFacts
    dist: Distribution | None = None

    @property
    def is_dependency(self) -> bool:
        return self.dist is not None


@dataclass(frozen=True)
class ClassInfo:
    """A project class, with the module that defines it."""

    qualname: str  # module + "." + class qualname
    module: Module
    facts: ClassFacts


@dataclass(frozen=True)
class FunctionInfo:
    """A project function or method (``owner``: the class of a method)."""

    qualname: str
    module: Module
    facts: FunctionFacts
    owner: ClassInfo | None = None


@dataclass(frozen=True)
class Target:
    """What a name resolves to: a project class/function/module, or an external dotted name."""

    kind: Literal["class", "function", "module", "attribute", "external"]
    name: str


@dataclass
class MroResult:
    """A class's linearised MRO, or why it has none."""

    classes: tuple[str, ...]  # project classes (qualnames) and external names, in order
    ok: bool = True  # False: cycle or inconsistent hierarchy
    error: str = ""


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


class NameTable:
    """One module's names, looked up by name instead of by scanning its facts (no step of
    the index is quadratic in the size of a module). Lists keep source order."""

    __slots__ = ("facts", "classes", "named", "functions", "stars", "methods", "aliases")

    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts
        self.classes: dict[str, ClassFacts] = {}  # qualname -> last definition
        self.named: dict[str, tuple[list[ClassFacts], list[FunctionFacts], list[ImportFacts]]]
        self.named = {}
        self.functions: dict[str, FunctionFacts] = {}  # name -> last definition
        self.methods: dict[str, dict[str, FunctionFacts]] = {}  # class qualname -> its methods
        for cls in facts.classes:
            self.classes[cls.qualname] = cls
            self._entry(cls.qualname)[0].append(cls)
        for fn in facts.functions:
            self.functions[fn.name] = fn
            self._entry(fn.name)[1].append(fn)
        for imp in facts.imports:
            self._entry(imp.local)[2].append(imp)
        self.stars = tuple(imp for imp in facts.imports if imp.name == "*")
        self.aliases: dict[str, list[AliasFacts]] = {}  # name -> its `name = a.b` bindings
        for alias in facts.aliases:
            self.aliases.setdefault(alias.local, []).append(alias)

    def _entry(self, name: str) -> tuple[list[ClassFacts], list[FunctionFacts], list[ImportFacts]]:
        entry = self.named.get(name)
        if entry is None:
            entry = self.named[name] = ([], [], [])
        return entry

    def method(self, cls: ClassFacts, name: str) -> FunctionFacts | None:
        table = self.methods.get(cls.qualname)
        if table is None or cls is not self.classes.get(cls.qualname):
            table = {m.name: m for m in cls.methods}  # the last definition wins
            if cls is self.classes.get(cls.qualname):
                self.methods[cls.qualname] = table
        return table.get(name)


_NOTHING: tuple[list[ClassFacts], list[FunctionFacts], list[ImportFacts]] = ([], [], [])


@dataclass
class ProjectIndex:
    """Holds modules (loaded on demand) and answers resolution and MRO questions."""

    module_paths: dict[str, tuple[Path | str, bool]]  # a str becomes a Path when loaded
    load: Callable[[Path], ModuleFacts]
    modules: dict[str, Module] = field(default_factory=dict)
    _classes: dict[str, ClassInfo | None] = field(default_factory=dict)
    _mro: dict[str, MroResult] = field(default_factory=dict)
    _resolve_cache: dict[tuple[str, str], Target | None] = field(default_factory=dict)
    _suffix: dict[str, list[str]] | None = None  # last part -> dotted names, built once
    _tables: dict[str, NameTable] = field(default_factory=dict)
    _methods: dict[tuple[tuple[str, ...], str, int], FunctionInfo | None] = field(
        default_factory=dict
    )
    _own: dict[tuple[str, str], tuple[bool, FunctionInfo | None]] = field(default_factory=dict)
    # The environment (docs/design.md): where a name the project lacks is looked up, and how a
    # dependency file's facts are read (lazily, when resolution reaches it).
    finder: ModuleFinder | None = None
    load_dependency: Callable[[Path, Distribution], ModuleFacts] | None = None
    dependency_paths: set[str] = field(default_factory=set)
    _env: dict[str, Found | None] = field(default_factory=dict)
    _tops: set[str] | None = None  # the project's top-level modules and regular packages
    # field -> (module, fact) of every ``Holder(field=Name)`` of the project's modules, and
    # field_classes's results (both built on first use)
    _field_values: dict[str, list[tuple[str, FieldValueFacts]]] | None = None
    _field_classes: dict[tuple[str, str], tuple[Target, ...]] = field(default_factory=dict)

    def _table(self, mod: Module) -> NameTable:
        table = self._tables.get(mod.name)
        if table is None or table.facts is not mod.facts:
            table = self._tables[mod.name] = NameTable(mod.facts)
        return table

    # -- indexes over the same files ------------------------------------------------------
    @classmethod
    def sharing(
        cls,
        module_paths: dict[str, tuple[Path | str, bool]],
        load: Callable[[Path], ModuleFacts],
        modules: dict[str, Module],
        tables: dict[str, NameTable],
        suffix: dict[str, list[str]] | None = None,
    ) -> Self:
        """An index over the same files as another (the fix verifier's, over edited facts),
        sharing what depends on them alone: per-module name tables (``tables``, rebuilt here
        for a module whose facts differ) and the suffix map (``suffix``: it depends on the
        module names only, so it holds while ``module_paths`` has the same names)."""
        return cls(module_paths, load, modules, _suffix=suffix, _tables=tables)

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
        mod = Module(name, path, entry[1], self.load(path))
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
        if found.namespace or self.load_dependency is None:
            facts = ModuleFacts()
        else:
            facts = self.load_dependency(found.path, dist)
        mod = Module(name, found.path, found.is_package, facts, dist)
        self.modules[name] = mod
        self.dependency_paths.add(str(found.path))
        return mod

    def _absolute_module(self, name: str, tolerant: bool = True) -> str | None:
        """Map an absolute import to a project module, else an installed one, tolerating a
        missing src root (``tolerant``; never in dependency code): an import that names no
        module may mean the one project module whose dotted name ends with it. Never for a
        standard-library or installed top-level name, and never below a regular package (a
        nested ``pkg/env/torch.py`` shadows nothing: ``pkg/env`` is no source root)."""
        if self.has_module(name):
            return name
        top = name.partition(".")[0]
        if not tolerant or top in STDLIB or self._in_environment(name):
            return None
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
            table = self._table(mod)
            local = ".".join(parts[i:])
            if not at:
                found = table.classes.get(local)  # the last definition wins
            else:
                defs = table.named.get(local, _NOTHING)[0]
                found = next((c for c in defs if str(c.span.line) == line), None)
            if found is not None:
                info = ClassInfo(qualname, mod, found)
            break
        self._classes[qualname] = info
        return info

    def _class_name(self, mod: Module, cls: ClassFacts) -> str:
        """The qualname of one definition: ``m.Name`` for the last one in its module (the one
        the module's name is bound to at the end), ``m.Name@line`` for an earlier one, which
        only a redefinition such as ``class Y(Y)`` can reach."""
        if self._table(mod).classes.get(cls.qualname) is cls:
            return f"{mod.name}.{cls.qualname}"
        return f"{mod.name}.{cls.qualname}{EARLIER}{cls.span.line}"

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, mod: Module, dotted: str) -> Target | None:
        """Resolve a dotted name as written in ``mod`` (e.g. ``nn.Module`` or ``m.Base``)."""
        if not dotted:
            return None
        key = (mod.name, dotted)
        if key in self._resolve_cache:
            return self._resolve_cache[key]
        self._resolve_cache[key] = None  # cycle guard
        head, *rest = dotted.split(".")
        target = self._lookup(mod, head, 0)
        for part in rest:
            if target is None:
                break
            target = self._attr(target, part, 0)
        self._resolve_cache[key] = target
        return target

    def _lookup(self, mod: Module, name: str, depth: int) -> Target | None:
        if depth > MAX_RESOLVE_DEPTH:
            return None
        table = self._table(mod)
        classes, functions, imports = table.named.get(name, _NOTHING)
        found: Target | None = None
        found_line = -1
        for cls in classes:
            found, found_line = Target("class", f"{mod.name}.{name}"), cls.span.line
        for fn in functions:
            if fn.span.line > found_line:
                found, found_line = Target("function", f"{mod.name}.{name}"), fn.span.line
        for imp in imports:
            if imp.line > found_line and _rebinds(imp, found):
                bound = self._import_target(mod, imp, depth)
                if bound is not None:
                    found, found_line = bound, imp.line
        for alias in table.aliases.get(name, ()):
            if alias.line > found_line:
                bound = self._alias_target(mod, alias, depth)
                if bound is not None:
                    found, found_line = bound, alias.line
        if found is not None:
            return found
        if mod.is_package and self.has_module(f"{mod.name}.{name}"):
            return Target("module", f"{mod.name}.{name}")
        for imp in table.stars:
            src = self._from_module(mod, imp)
            if src is None:
                continue
            src_mod = self.module(src) if self.has_module(src) else None
            if src_mod is not None and src_mod is not mod:
                hit = self._lookup(src_mod, name, depth + 1)
                if hit is not None:
                    return hit
        return None

    def _alias_target(self, mod: Module, alias: AliasFacts, depth: int) -> Target | None:
        """What ``alias.local = alias.target`` binds: the target's head as bound just before
        that line, then its attributes."""
        head, _, rest = alias.target.partition(".")
        target = self._bound_before(mod, head, alias.line, depth + 1)
        for part in rest.split(".") if rest else ():
            if target is None:
                break
            target = self._attr(target, part, depth + 1)
        return target

    def _bound_before(self, mod: Module, name: str, line: int, depth: int = 0) -> Target | None:
        """What module-level ``name`` is bound to just before ``line``: the latest class,
        function, import or alias above it, else a star import above it. None when nothing
        is."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        table = self._table(mod)
        classes, functions, imports = table.named.get(name, _NOTHING)
        found: Target | None = None
        found_line = -1
        for cls in classes:
            if found_line < cls.span.line < line:
                found, found_line = Target("class", self._class_name(mod, cls)), cls.span.line
        for fn in functions:
            if found_line < fn.span.line < line:
                found, found_line = Target("function", f"{mod.name}.{name}"), fn.span.line
        for imp in imports:
            if found_line < imp.line < line and _rebinds(imp, found):
                bound = self._import_target(mod, imp, depth)
                if bound is not None:
                    found, found_line = bound, imp.line
        for alias in table.aliases.get(name, ()):
            if found_line < alias.line < line:
                bound = self._alias_target(mod, alias, depth)
                if bound is not None:
                    found, found_line = bound, alias.line
        if found is not None:
            return found
        for imp in table.stars:
            if imp.line >= line:
                continue
            src = self._from_module(mod, imp)
            src_mod = self.module(src) if src is not None and self.has_module(src) else None
            if src_mod is not None and src_mod is not mod:
                hit = self._lookup(src_mod, name, depth + 1)
                if hit is not None:
                    return hit
        return None

    def _from_module(self, mod: Module, imp: ImportFacts) -> str | None:
        level, module = imp.level, imp.module
        if level == 0:
            return self._absolute_module(module, mod.dist is None) or module
        pkg_parts = mod.name.split(".")
        if not mod.is_package:
            pkg_parts = pkg_parts[:-1]
        if level - 1 > len(pkg_parts):
            return None
        base = pkg_parts[: len(pkg_parts) - (level - 1)]
        return ".".join([*base, module] if module else base) or None

    def _import_target(self, mod: Module, imp: ImportFacts, depth: int) -> Target | None:
        name = imp.name
        if name is None:
            module = imp.module
            if imp.bind_top:
                module = module.split(".", 1)[0]
            resolved = self._absolute_module(module, mod.dist is None)
            return Target("module", resolved) if resolved else Target("external", module)
        if name == "*":
            return None
        src = self._from_module(mod, imp)
        if src is None:
            return None
        return self._attr(Target("module", src), name, depth + 1)

    def _attr(self, target: Target, part: str, depth: int) -> Target | None:
        if target.kind == "external":
            return Target("external", f"{target.name}.{part}")
        if target.kind == "module":
            sub = f"{target.name}.{part}"
            if self.has_module(sub):
                return Target("module", sub)
            mod = self.module(target.name) if self.has_module(target.name) else None
            if mod is None:
                return Target("external", sub)
            found = self._lookup(mod, part, depth + 1)
            if found is None and mod.is_dependency:
                # A name a dependency binds dynamically (torch.randn, from C code): it is
                # what it is without the environment, an external name.
                return Target("external", sub)
            return found
        if target.kind == "class":
            nested = f"{target.name}.{part}"
            if self.class_info(nested) is not None:
                return Target("class", nested)
            return Target("attribute", nested)
        return None

    def public_name(self, mod: Module, dotted: str) -> str | None:
        """``dotted`` as written in ``mod`` with its head expanded through the module's own
        absolute imports (``t.randn`` after ``import torch as t``: ``torch.randn``): the name
        built-in knowledge of a library knows, wherever the library defines it. None when
        no absolute import binds the head (a local name, a relative import)."""
        head, dot, rest = dotted.partition(".")
        table = self._table(mod)
        classes, functions, imports = table.named.get(head, _NOTHING)
        if classes or functions:
            return None
        for imp in reversed(imports):
            if imp.level or imp.name == "*":
                return None
            if imp.name is None:
                base = imp.module.split(".", 1)[0] if imp.bind_top else imp.module
            else:
                base = f"{imp.module}.{imp.name}"
            return base + dot + rest
        return None

    def resolve_value(self, module: str, dotted: str) -> Target | None:
        """The class, function or external name that ``dotted``, written in the module named
        ``module``, is bound to: a name a value was given by (``attn_cls=Attention``). A name
        of torch stays the external name it is written as: built-in knowledge judges torch's
        classes. Any other dependency is read from its source, whatever else this run has
        read: what a value means never depends on the order the files are checked in."""
        mod = self.module(module)
        if mod is None:
            return None
        public = self.public_name(mod, dotted)
        if public is not None and public.startswith("torch."):
            return Target("external", public)
        target = self.resolve(mod, dotted)
        if target is None or target.kind not in ("class", "function", "external"):
            return None
        return target

    def field_classes(self, holder: str, name: str) -> tuple[Target, ...]:
        """What the project gives the field ``name`` of the class ``holder`` (a qualname):
        the classes and functions that ``Holder(..., name=Value)`` keywords name, in every
        project module (``ModuleFacts.field_values``, a fact of each file), each value
        resolved in the module that wrote it, in module order. The spec a builder gets from
        ``submodules.<name>`` is possibly one of them (docs/design.md, "Cost classes").

        Built on first use: the facts of the project's modules are grouped by field once,
        and a callee is resolved only for the facts of the field asked about."""
        key = (holder, name)
        found = self._field_classes.get(key)
        if found is not None:
            return found
        if self._field_values is None:
            self._field_values = {}
            for modname in sorted(self.module_paths):
                mod = self.module(modname)
                for fact in mod.facts.field_values if mod is not None else ():
                    self._field_values.setdefault(fact.field, []).append((modname, fact))
        out: list[Target] = []
        for modname, fact in self._field_values.get(name, ()):
            mod = self.module(modname)
            callee = self.resolve(mod, fact.callee) if mod is not None else None
            if callee is None or callee.kind != "class" or callee.name != holder:
                continue
            value = self.resolve_value(modname, fact.value)
            if value is not None and value not in out:
                out.append(value)
        found = self._field_classes[key] = tuple(out)
        return found

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

    def resolve_base(self, info: ClassInfo, base: Expr) -> Target | None:
        if base.kind in ("name", "attr") and base.name:
            head, _, rest = base.name.partition(".")
            if head == info.facts.qualname:  # class Y(Y): the Y bound before this statement
                target = self._bound_before(info.module, head, info.facts.span.line)
                if target is not None:
                    for part in rest.split(".") if rest else ():
                        if target is None:
                            break
                        target = self._attr(target, part, 0)
                    return target
            return self.resolve(info.module, base.name)
        if base.kind == "subscript" and base.receiver is not None:  # Generic[T], Base[int]
            return self.resolve_base(info, base.receiver)
        return None

    def bases(self, info: ClassInfo) -> list[Target | None]:
        return [self.resolve_base(info, b) for b in info.facts.bases]

    # -- MRO -----------------------------------------------------------------------------
    def mro(self, qualname: str) -> MroResult:
        """C3 linearisation, computed bottom-up with an explicit stack (no recursion)."""
        if qualname in self._mro:
            return self._mro[qualname]
        stack: list[tuple[str, bool]] = [(qualname, False)]
        visiting: set[str] = set()
        while stack:
            name, expanded = stack.pop()
            if name in self._mro:
                continue
            info = self.class_info(name)
            if info is None:
                self._mro[name] = MroResult((name,))
                continue
            parents = self._parent_names(info)
            if not expanded:
                if name in visiting:
                    self._mro[name] = MroResult((name,), ok=False, error="inheritance cycle")
                    continue
                visiting.add(name)
                stack.append((name, True))
                for p in parents:
                    if p in visiting and p not in self._mro:
                        self._mro[name] = MroResult((name,), ok=False, error="inheritance cycle")
                        break
                    if p not in self._mro:
                        stack.append((p, False))
                continue
            visiting.discard(name)
            if name in self._mro:
                continue
            self._mro[name] = self._c3(name, info, parents)
        return self._mro[qualname]

    def _parent_names(self, info: ClassInfo) -> list[str]:
        out = []
        for target in self.bases(info):
            if target is None:
                out.append("<unresolved>")
            elif target.kind == "class":
                out.append(target.name)
            elif target.kind in ("external", "attribute", "module", "function"):
                out.append(target.name if target.kind == "external" else f"<{target.name}>")
        return [p for p in out if p not in ("builtins.object", "object")]

    def _c3(self, name: str, info: ClassInfo, parents: list[str]) -> MroResult:
        seqs: list[list[str]] = []
        for p in parents:
            sub = self._mro.get(p) or MroResult((p,))
            if not sub.ok:
                return MroResult((name,), ok=False, error=f"base {p} has {sub.error}")
            seqs.append(list(sub.classes))
        if len(seqs) == 1:  # single inheritance: no merge needed (keeps long chains linear)
            tail = tuple(seqs[0])
            extra = ("<dynamic>",) if info.facts.dynamic_bases else ()
            return MroResult((name, *tail, *extra))
        seqs.append(list(parents))
        result = [name]
        seqs = [s for s in seqs if s]
        while seqs:
            heads = [s[0] for s in seqs]
            candidate = None
            for h in heads:
                if not any(h in s[1:] for s in seqs):
                    candidate = h
                    break
            if candidate is None:
                return MroResult((name,), ok=False, error="inconsistent MRO")
            result.append(candidate)
            seqs = [[c for c in s if c != candidate] for s in seqs]
            seqs = [s for s in seqs if s]
        if info.facts.dynamic_bases:
            result.append("<dynamic>")
        return MroResult(tuple(result))

    def lookup_method(self, mro: tuple[str, ...], name: str, start: int = 0) -> FunctionInfo | None:
        """The first definition of ``name`` in ``mro[start:]``; None if external comes first."""
        if len(mro) > MEMO_MRO:
            return self._walk(mro, name, start)
        key = (mro, name, start)
        if key in self._methods:
            return self._methods[key]
        found = self._methods[key] = self._walk(mro, name, start)
        return found

    def _walk(self, mro: tuple[str, ...], name: str, start: int) -> FunctionInfo | None:
        for i in range(start, len(mro)):
            known, fn = self._own_method(mro[i], name)
            if not known:
                return None  # an external class might define it: stop, we cannot see it
            if fn is not None:
                return fn
        return None

    def _own_method(self, qual: str, name: str) -> tuple[bool, FunctionInfo | None]:
        """(whether ``qual`` is a project class, the ``name`` it defines itself)."""
        key = (qual, name)
        found = self._own.get(key)
        if found is None:
            info = self.class_info(qual)
            method = None
            if info is not None:
                fn = self._table(info.module).method(info.facts, name)
                if fn is not None:
                    method = FunctionInfo(f"{qual}.{name}", info.module, fn, info)
            found = self._own[key] = (info is not None, method)
        return found

    def function_info(self, qualname: str) -> FunctionInfo | None:
        mod_name, _, fn_name = qualname.rpartition(".")
        mod = self.module(mod_name)
        if mod is None:
            return None
        found = self._table(mod).functions.get(fn_name)  # the last definition wins
        return FunctionInfo(qualname, mod, found) if found else None


def _rebinds(imp: ImportFacts, found: Target | None) -> bool:
    """Whether ``imp`` replaces the binding ``found`` above it. An import in an ``except``
    handler runs only when the ``try`` block failed: after an alternative that resolves to
    code initlint reads, it never runs (Python binds the first alternative that imports)."""
    return not imp.fallback or found is None or found.kind == "external"

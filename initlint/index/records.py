"""The records the project index answers with (``Module``, ``ClassInfo``, ``FunctionInfo``,
``Target``, ``MroResult``) and one module's names by name (``NameTable``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from initlint.environment import Distribution
from initlint.facts.model import AliasFacts, ClassFacts, FunctionFacts, ImportFacts, ModuleFacts
from initlint.records import dataclass

EARLIER = "@"  # m.Y@12: the definition of m.Y on line 12, shadowed by a later one


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


# What a name no class, function or import binds has in a ``NameTable.named``: nothing.
NO_BINDINGS: tuple[list[ClassFacts], list[FunctionFacts], list[ImportFacts]] = ([], [], [])

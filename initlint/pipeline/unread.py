"""Ancestors that could not be read: a project class whose own ``__init__`` calls on into an
ancestor from a package that is neither in the project nor in the environment the run reads.
What that ancestor builds cannot be compared with what the class builds, so its repeats go
unseen; the run says which packages were missing rather than report fewer findings with no
reason (a plugin checked without the engine it extends installed, say)."""

from __future__ import annotations

from initlint.environment import STDLIB
from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo
from initlint.records import dataclass

# torch's classes are judged by built-in knowledge, never read from its sources (and its
# ``Module.__init__`` calls no further ancestor); the standard library's hold no tensors.
_KNOWN_WITHOUT_SOURCES = frozenset({"torch", "builtins", "__future__", *STDLIB})


@dataclass(frozen=True)
class UnreadAncestor:
    """A class (in a report file) whose construction runs ``ancestor``, which no module of
    the project or the environment defines."""

    path: str  # the class's file, as displayed
    line: int
    cls: str  # qualified name
    ancestor: str  # the ancestor's dotted name, as the class's module imports it

    @property
    def package(self) -> str:
        return self.ancestor.partition(".")[0]

    def order(self) -> tuple[str, int, str, str]:
        return self.path, self.line, self.cls, self.ancestor


def unread_ancestors(index: ProjectIndex, info: ClassInfo, path: str) -> list[UnreadAncestor]:
    """The ancestor that ``info``'s own ``__init__`` reaches through its chain of super calls
    and that no module found defines: the chain is followed along the MRO while each
    ``__init__`` read calls on, and stops at torch's or at one that does not (none for a
    class without its own ``__init__``: its construction is its parent's, counted there)."""
    mro = index.mro(info.qualname)
    if not mro.ok:
        return []
    init = index.lookup_method(mro.classes, "__init__")
    if init is None or init.owner is None or init.owner.qualname != info.qualname:
        return []
    if init.facts.super_init_call() is not True:
        return []
    for name in mro.classes[1:]:
        cls = None if name.startswith("<") else index.class_info(name)
        if cls is None:
            return _unread(index, info, path, name)
        if cls.module.is_dependency and name.partition(".")[0] == "torch":
            return []  # (torch's ``Module.__init__`` calls on only when told to: by default not)
        own = cls.facts.method("__init__")
        if own is not None and own.super_init_call() is not True:
            return []  # (an ``__init__`` that calls no ancestor's: the chain ends there)
    return []


def _unread(index: ProjectIndex, info: ClassInfo, path: str, name: str) -> list[UnreadAncestor]:
    """The chain of ``info``'s construction reaches ``name``, which no module read defines:
    an unread ancestor when its package cannot be found; none for a base that is no class
    name, torch's or the standard library's, or one of a package found (a class made at run
    time, say)."""
    top = name.partition(".")[0]
    if name.startswith("<") or top in _KNOWN_WITHOUT_SOURCES or index.has_module(top):
        return []
    return [UnreadAncestor(path, info.facts.span.line, info.qualname, name)]

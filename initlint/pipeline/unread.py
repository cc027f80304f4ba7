"""Ancestors that could not be read: a project class whose own ``__init__`` calls on into an
ancestor from a package that is neither in the project nor in the environment the run reads.
What that ancestor builds cannot be compared with what the class builds, so its repeats go
unseen; the run says which packages were missing rather than report fewer findings with no
reason (a plugin checked without the engine it extends installed, say)."""

from __future__ import annotations

import sys

from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo
from initlint.records import dataclass
from initlint.simulation.torch_module import MODULE_CLASSES

# torch's classes are judged by built-in knowledge, never read from its sources; the standard
# library's hold no tensors.
_KNOWN_WITHOUT_SOURCES = frozenset({"torch", "builtins", "__future__", *sys.stdlib_module_names})


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
    """The ancestors of ``info`` that its own ``__init__`` may reach through a super call and
    that no module found defines (none for a class without its own ``__init__``: its
    construction is its parent's, counted there)."""
    mro = index.mro(info.qualname)
    if not mro.ok:
        return []
    init = index.lookup_method(mro.classes, "__init__")
    if init is None or init.owner is None or init.owner.qualname != info.qualname:
        return []
    if init.facts.super_init_call() is not True:
        return []
    return [
        UnreadAncestor(path, info.facts.span.line, info.qualname, name)
        for name in mro.classes[1:]
        if _unread(index, name)
    ]


def _unread(index: ProjectIndex, name: str) -> bool:
    """Whether the MRO entry ``name`` is a class of a package that cannot be found."""
    if name.startswith("<") or name in MODULE_CLASSES or index.class_info(name) is not None:
        return False  # (``<...>``: a base that is no class name, reported elsewhere if at all)
    top = name.partition(".")[0]
    return top not in _KNOWN_WITHOUT_SOURCES and not index.has_module(top)

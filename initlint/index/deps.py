"""Which loaded modules a module's analysis can depend on: its import closure (docs/design.md).

Name resolution only ever leaves a module through its imports (plain, ``from``, relative,
star, and attribute chains below an imported module), so whatever a constructor's
simulation consulted is in the importing module's closure over the modules loaded in the
same run. A module never loaded was consulted by nobody. The closure errs on the large
side: every module below an imported name, every package above one, and the suffix
matches the index tolerates for a missing source root.

Closures are bitmasks over a caller-given numbering of the modules (Python ints: a union
is one ``|``), computed once per strongly connected component of the import graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from initlint.facts.model import ImportFacts
from initlint.index.records import Module


def _prefixes(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _import_names(mod: Module, imp: ImportFacts) -> tuple[tuple[str, bool], ...]:
    """Dotted names an import statement can reach, each with whether everything below it
    is reachable too (the name bound is a module, whose submodules attribute chains reach)."""
    base = imp.module
    if imp.level:
        pkg = mod.name.split(".") if mod.is_package else mod.name.split(".")[:-1]
        if imp.level - 1 > len(pkg):
            return ()
        base = ".".join([*pkg[: len(pkg) - (imp.level - 1)], *([imp.module] if imp.module else [])])
    if imp.name is None:  # `import a.b` binds `a`; `import a.b as c` binds a.b
        return ((base.split(".", 1)[0] if imp.bind_top else base, True),)
    if imp.name == "*":
        return ((base, False),) if base else ()
    if not base:
        return ()
    return ((base, False), (f"{base}.{imp.name}", True))


class ImportGraph:
    """The import edges among the modules loaded in one run."""

    def __init__(self, modules: Mapping[str, Module]) -> None:
        self.modules = dict(modules)
        self._matches: dict[str, set[str]] = {}  # dotted name -> loaded modules it can mean
        self._below: dict[str, set[str]] = {}  # dotted name -> loaded modules under it
        self._reached: dict[tuple[str, bool], frozenset[str]] = {}
        for name in self.modules:
            parts = name.split(".")
            for i in range(len(parts)):
                self._matches.setdefault(".".join(parts[i:]), set()).add(name)
            for prefix in _prefixes(name)[:-1]:
                self._below.setdefault(prefix, set()).add(name)

    def edges(self, mod: Module) -> set[str]:
        out: set[str] = set()
        for imp in mod.facts.imports:
            for name, below in _import_names(mod, imp):
                out |= self._reach(name, below)
        out |= self._reach(mod.name, False)  # the packages it sits in
        out.discard(mod.name)
        return out

    def _reach(self, name: str, below: bool) -> frozenset[str]:
        """Loaded modules a dotted name can mean, with its packages (and, if ``below``,
        everything under the modules it means). Memoised: modules import the same names."""
        key = (name, below)
        found = self._reached.get(key)
        if found is None:
            out: set[str] = set()
            for prefix in _prefixes(name):
                out |= self._matches.get(prefix, set())
            if below:
                for match in self._matches.get(name, ()):
                    out |= self._below.get(match, set())
            found = self._reached[key] = frozenset(out)
        return found

    def closure_masks(self, bit: Mapping[str, int]) -> dict[str, int]:
        """Module name -> mask of its closure (itself included), numbered by ``bit``.

        Plus the one project-wide fact (``ModuleFacts.field_values``): a module K that gives
        a keyword of a class imported from D (``Subs(linear_proj=Linear)``) can change what
        a spec built from that class's field costs wherever D is reached, so every closure
        holding D holds K's closure too (one level: K's own such modules are not added)."""
        graph = {name: sorted(self.edges(mod)) for name, mod in self.modules.items()}
        masks: dict[str, int] = {}
        for component in _components(graph):  # dependencies first
            mask = 0
            members = set(component)
            for name in component:
                mask |= 1 << bit[name]
                for dep in graph[name]:
                    if dep not in members:
                        mask |= masks[dep]
            for name in component:
                masks[name] = mask
        givers = self._field_givers()
        if givers:
            extra = {
                1 << bit[held]: _union(masks[k] for k in sorted(ks)) for held, ks in givers.items()
            }
            for name, mask in masks.items():
                for held, add in extra.items():
                    if mask & held:
                        masks[name] |= add
        return masks

    def _field_givers(self) -> dict[str, set[str]]:
        """Module D -> the modules that give a keyword of a class imported from D."""
        out: dict[str, set[str]] = {}
        for name, mod in self.modules.items():
            facts = mod.facts.field_values
            if not facts:
                continue
            heads = {f.callee.partition(".")[0] for f in facts}
            for imp in mod.facts.imports:
                if imp.local not in heads:
                    continue
                for target, _below in _import_names(mod, imp):
                    for held in self._matches.get(target, ()):  # the module itself only
                        if held != name:
                            out.setdefault(held, set()).add(name)
        return out


def _union(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def _components(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively; each component comes after
    every component it has an edge to."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, list(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, list(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(component)
    return out

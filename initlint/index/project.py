"""The project index (``ProjectIndex``): its modules (``index/modules.py``) and name
resolution (``index/resolution.py``), and on top of them each class's C3 MRO and the
method a name finds along an MRO."""

from __future__ import annotations

from dataclasses import field

from initlint.index.records import ClassInfo, FunctionInfo, MroResult
from initlint.index.resolution import NameResolver
from initlint.records import dataclass

MEMO_MRO = 64  # method lookups in longer MROs walk instead: hashing the MRO would cost more


@dataclass
class ProjectIndex(NameResolver):
    """Holds modules (loaded on demand) and answers resolution and MRO questions."""

    _mro: dict[str, MroResult] = field(default_factory=dict)
    _methods: dict[tuple[tuple[str, ...], str, int], FunctionInfo | None] = field(
        default_factory=dict
    )
    _own: dict[tuple[str, str], tuple[bool, FunctionInfo | None]] = field(default_factory=dict)

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
        for base, target in zip(info.facts.bases, self.bases(info), strict=True):
            if target is None and base.kind == "name" and base.name == "object":
                continue  # (``class A(object):``: the root every class has, bound by Python)
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

    def constructor(self, qualname: str) -> FunctionInfo | None:
        """The ``__init__`` that constructing the class ``qualname`` runs: the first along its
        MRO; None for a class whose MRO is broken, or where an external class comes first."""
        mro = self.mro(qualname)
        return self.lookup_method(mro.classes, "__init__") if mro.ok else None

    def lookup_method(self, mro: tuple[str, ...], name: str, start: int = 0) -> FunctionInfo | None:
        """The first definition of ``name`` in ``mro[start:]``; None if external comes first."""
        if len(mro) > MEMO_MRO:
            return self._find_method(mro, name, start)
        key = (mro, name, start)
        if key in self._methods:
            return self._methods[key]
        found = self._methods[key] = self._find_method(mro, name, start)
        return found

    def _find_method(self, mro: tuple[str, ...], name: str, start: int) -> FunctionInfo | None:
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
                fn = self.name_table(info.module).method(info.facts, name)
                if fn is not None:
                    method = FunctionInfo(f"{qual}.{name}", info.module, fn, info)
            found = self._own[key] = (info is not None, method)
        return found

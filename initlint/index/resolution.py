"""Names resolved across files (``NameResolver``): a dotted name as written in a module, an
import, an alias, a class's base, a value a keyword names, followed through the project's
modules and into the environment."""

from __future__ import annotations

from dataclasses import field

from initlint.facts.model import (
    AliasFacts,
    ClassFacts,
    Expr,
    FieldValueFacts,
    FunctionFacts,
    ImportFacts,
)
from initlint.index.modules import ModuleSet
from initlint.index.records import EARLIER, NO_BINDINGS, ClassInfo, Module, Target
from initlint.records import dataclass

MAX_RESOLVE_DEPTH = 50


@dataclass
class NameResolver(ModuleSet):
    """A ``ModuleSet`` that resolves names across its modules."""

    _resolve_cache: dict[tuple[str, str], Target | None] = field(default_factory=dict)
    # field -> (module, fact) of every ``Holder(field=Name)`` of the project's modules, and
    # field_classes's results (both built on first use)
    _field_values: dict[str, list[tuple[str, FieldValueFacts]]] | None = None
    _field_classes: dict[tuple[str, str], tuple[Target, ...]] = field(default_factory=dict)
    # (package, name) attribute lookups under way (``_attr``)
    _attr_active: set[tuple[str, str]] = field(default_factory=set)

    def _class_name(self, mod: Module, cls: ClassFacts) -> str:
        """The qualname of one definition: ``m.Name`` for the last one in its module (the one
        the module's name is bound to at the end), ``m.Name@line`` for an earlier one, which
        only a redefinition such as ``class Y(Y)`` can reach."""
        if self.name_table(mod).classes.get(cls.qualname) is cls:
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
        """What module-level ``name`` of ``mod`` is bound to once the module has run."""
        return self._binding(mod, name, None, depth, set())

    def _binding(
        self, mod: Module, name: str, before: int | None, depth: int, starred: set[str]
    ) -> Target | None:
        """What ``name`` is bound to in ``mod`` just before line ``before`` (at the end when
        None): the latest class, function, import or alias, unless a star import below it
        binds the name again. ``starred`` holds the modules this search has already looked
        through by star imports: in a web of modules that star-import each other each is
        read once, not once per path to it."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        starred.add(mod.name)
        found, found_line = self._own_binding(mod, name, before, depth)
        hit = self._star_binding(mod, name, found_line, before, depth, starred)
        if hit is not None:
            return hit
        if found is not None:
            return found
        if before is None and mod.is_package and self.has_module(f"{mod.name}.{name}"):
            return Target("module", f"{mod.name}.{name}")
        return None

    def _own_binding(
        self, mod: Module, name: str, before: int | None, depth: int
    ) -> tuple[Target | None, int]:
        """The latest binding of ``name`` that ``mod`` writes itself above ``before``, and its
        line (-1 when there is none); a fallback only where what it stands in for is not
        resolved (``_rebinds``)."""
        table = self.name_table(mod)
        classes, functions, imports = table.named.get(name, NO_BINDINGS)
        limit = before if before is not None else float("inf")
        bindings: list[tuple[int, ClassFacts | FunctionFacts | ImportFacts | AliasFacts]] = [
            *((cls.span.line, cls) for cls in classes),
            *((fn.span.line, fn) for fn in functions),
            *((imp.line, imp) for imp in imports),
            *((alias.line, alias) for alias in table.aliases.get(name, ())),
        ]
        found: Target | None = None
        found_line = -1
        for line, binding in sorted(bindings, key=lambda b: b[0]):
            if not line < limit or not _rebinds(binding, found):
                continue
            bound = self._bound_by(mod, name, binding, depth)
            if bound is not None:
                found, found_line = bound, line
        return found, found_line

    def _bound_by(
        self,
        mod: Module,
        name: str,
        binding: ClassFacts | FunctionFacts | ImportFacts | AliasFacts,
        depth: int,
    ) -> Target | None:
        if isinstance(binding, ClassFacts):
            return Target("class", self._class_name(mod, binding))
        if isinstance(binding, FunctionFacts):
            return Target("function", f"{mod.name}.{name}")
        if isinstance(binding, ImportFacts):
            return self._import_target(mod, binding, depth)
        return self._alias_target(mod, binding, depth)

    def _star_binding(
        self,
        mod: Module,
        name: str,
        after: int,
        before: int | None,
        depth: int,
        starred: set[str],
    ) -> Target | None:
        """What the latest star import of ``mod`` between lines ``after`` and ``before`` that
        binds ``name`` binds it to: a later ``from m import *`` rebinds what an earlier one
        bound, as Python runs them."""
        stars = [
            imp
            for imp in self.name_table(mod).stars
            if after < imp.line and (before is None or imp.line < before)
        ]
        for imp in sorted(stars, key=lambda imp: imp.line, reverse=True):
            src = self._from_module(mod, imp)
            src_mod = self.module(src) if src is not None and self.has_module(src) else None
            if src_mod is None or src_mod.name in starred:
                continue
            hit = self._binding(src_mod, name, None, depth + 1, starred)
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
        function, import or alias above it, or a star import above it that binds it. None
        when nothing is."""
        return self._binding(mod, name, line, depth, set())

    def _from_module(self, mod: Module, imp: ImportFacts) -> str | None:
        level, module = imp.level, imp.module
        if level == 0:
            return self.absolute_module(module, mod.dist is None, mod.name) or module
        pkg_parts = mod.name.split(".")
        if not mod.is_package:
            pkg_parts = pkg_parts[:-1]
        if level - 1 > len(pkg_parts):
            return None
        base = pkg_parts[: len(pkg_parts) - (level - 1)]
        return ".".join([*base, module] if module else base) or None

    def resolve_import(self, mod: Module, imp: ImportFacts) -> Target | None:
        """What the import ``imp``, written in ``mod`` (in a function too), binds."""
        return self._import_target(mod, imp, 0)

    def imported_ref(self, mod: Module, imp: ImportFacts) -> tuple[str, str] | None:
        """``from src import name`` written in ``mod`` (in a function): where the name is
        looked up, (the absolute module, the name), as a value given by name is kept and
        resolved when called (``resolve_value``): a class or a function, or a name of a
        library initlint does not read (calling it, or a method of it, is work of a cost
        not known). None for a plain or star import, a module read here, a value, and a
        name of torch (built-in knowledge judges those by their public names)."""
        if imp.name is None or imp.name == "*":
            return None
        src = self._from_module(mod, imp)
        target = self.resolve_import(mod, imp) if src is not None else None
        if src is None or target is None:
            return None
        if target.kind == "external" and target.name.partition(".")[0] == "torch":
            return None
        if target.kind not in ("class", "function", "external"):
            return None  # a module or a value: names through it resolve as before
        return src, imp.name

    def _import_target(self, mod: Module, imp: ImportFacts, depth: int) -> Target | None:
        name = imp.name
        if name is None:
            module = imp.module
            if imp.bind_top:
                module = module.split(".", 1)[0]
            resolved = self.absolute_module(module, mod.dist is None, mod.name)
            return Target("module", resolved) if resolved else Target("external", module)
        if name == "*":
            return None
        src = self._from_module(mod, imp)
        if src is None:
            return None
        inside = mod.name == src or mod.name.startswith(f"{src}.")
        if inside and self.has_module(f"{src}.{name}"):
            # ``from . import sub`` inside the package: it runs while the package is being
            # set up, before its ``__init__`` can rebind the name; the submodule
            return Target("module", f"{src}.{name}")
        return self._attr(Target("module", src), name, depth + 1)

    def _attr(self, target: Target, part: str, depth: int) -> Target | None:
        if target.kind == "external":
            return Target("external", f"{target.name}.{part}")
        if target.kind == "module":
            sub = f"{target.name}.{part}"
            mod = self.module(target.name) if self.has_module(target.name) else None
            if mod is None:
                return Target("module", sub) if self.has_module(sub) else Target("external", sub)
            # The package's attribute: what its ``__init__`` bound last, which may rebind a
            # submodule's name (``from .weight_norm import weight_norm`` in torch.nn.utils
            # makes ``torch.nn.utils.weight_norm`` the function), else the submodule. A
            # lookup that comes back to this one runs inside the package's own set-up,
            # where the name is still the submodule.
            key = (target.name, part)
            if key in self._attr_active:
                return Target("module", sub) if self.has_module(sub) else None
            self._attr_active.add(key)
            try:
                found = self._lookup(mod, part, depth + 1)
            finally:
                self._attr_active.discard(key)
            if found is not None:
                return found
            if self.has_module(sub):
                return Target("module", sub)
            if mod.is_dependency:
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

    def partial_args(self, mod: Module, expr: Expr) -> tuple[Expr, ...] | None:
        """The positional arguments of ``functools.partial(f, ...)`` written in ``mod``, the
        function first (none of them starred); None for any other value."""
        if expr.kind != "call" or not expr.name or expr.keywords[:1] == ("*",):
            return None
        given = expr.positional()
        if not given or self.public_name(mod, expr.name) != "functools.partial":
            return None
        return given

    def unwrap_partial(self, mod: Module, given: Expr) -> Expr:
        """The function a callable argument runs on what it is handed, written in ``mod``:
        ``partial(self._init_weights, std=0.02)``'s function when the partial fixes keywords
        alone (what is handed stays its first argument); any other value itself."""
        fixed = self.partial_args(mod, given)
        if fixed is None or len(fixed) != 1 or any(k in ("", "*") for k in given.keywords):
            return given
        return fixed[0]

    def public_name(self, mod: Module, dotted: str) -> str | None:
        """``dotted`` as written in ``mod`` with its head expanded through the module's own
        absolute imports (``t.randn`` after ``import torch as t``: ``torch.randn``): the name
        built-in knowledge of a library knows, wherever the library defines it. None when
        no absolute import binds the head (a local name, a relative import)."""
        head, dot, rest = dotted.partition(".")
        table = self.name_table(mod)
        classes, functions, imports = table.named.get(head, NO_BINDINGS)
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

    def table_items(self, module: str, dotted: str) -> tuple[tuple[str, str], ...]:
        """What the table ``dotted``, written in the module named ``module``, holds: the
        classes or functions of a table written out at module level (``TableFacts``), in
        that module or imported from it by name, each as (the module it is written in, the
        dotted name); () for any other value."""
        mod = self.module(module)
        if mod is None:
            return ()
        head, _, last = dotted.rpartition(".")
        if not head:
            return self._table_in(mod, dotted, 0)
        owner = self.resolve(mod, head)  # ``registry.MODELS``
        found = self.module(owner.name) if owner is not None and owner.kind == "module" else None
        return () if found is None else self._table_in(found, last, 0)

    def _table_in(self, mod: Module, name: str, depth: int) -> tuple[tuple[str, str], ...]:
        if depth > MAX_RESOLVE_DEPTH:
            return ()
        classes, functions, imports = self.name_table(mod).named.get(name, NO_BINDINGS)
        tables = [t for t in mod.facts.tables if t.name == name]
        if classes or functions or self.name_table(mod).aliases.get(name):
            return ()
        if tables:
            return () if imports else tuple((mod.name, v) for v in tables[0].values)
        if len(imports) != 1 or imports[0].name in (None, "*"):
            return ()
        imp = imports[0]
        src = self._from_module(mod, imp)
        found = self.module(src) if src is not None and self.has_module(src) else None
        if found is None or imp.name is None:
            return ()
        return self._table_in(found, imp.name, depth + 1)

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


def _rebinds(
    binding: ClassFacts | FunctionFacts | ImportFacts | AliasFacts, found: Target | None
) -> bool:
    """Whether ``binding`` replaces the binding ``found`` above it. A fallback (bound in an
    ``except`` handler, or in the ``else`` of an ``if`` that imports the name) runs only
    where the import failed or could not run: after an alternative that resolves to code
    initlint reads, it is not taken (Python binds the first alternative that imports; an
    availability test chooses the import where the library is installed)."""
    fallback = not isinstance(binding, FunctionFacts) and binding.fallback
    return not fallback or found is None or found.kind == "external"

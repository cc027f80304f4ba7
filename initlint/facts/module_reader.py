"""A module's facts from its parse (``ModuleReader``): its imports (the conditional ones
too, ``if TYPE_CHECKING:`` aside), classes, functions, names, aliases and class-body field
defaults. Only an ``__init__`` body is read at once; other bodies are read on first use."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from initlint.facts.expressions import decorator_name, dotted, span_of, to_expr
from initlint.facts.field_values import field_values
from initlint.facts.function_reader import FunctionReader
from initlint.facts.model import (
    AliasFacts,
    ClassFacts,
    Const,
    FieldValueFacts,
    FunctionFacts,
    ImportFacts,
    ModuleFacts,
    SourceText,
    Span,
    TableFacts,
)
from initlint.facts.tables import table_values, unchanged_tables


class ModuleReader:
    """Reads one parsed module into its ``ModuleFacts``."""

    def __init__(
        self, source: SourceText | None, ends: dict[int, tuple[int, int]] | None = None
    ) -> None:
        self.source = source
        # def line -> (its pass line, last body line), for bodies the skeleton blanked
        self.ends = ends or {}
        self.imports: list[ImportFacts] = []
        self.classes: list[ClassFacts] = []
        self.functions: list[FunctionFacts] = []
        self.names: set[str] = set()
        self.aliases: list[AliasFacts] = []
        self.field_defaults: list[FieldValueFacts] = []  # class-body defaults (_class_default)
        self.tables: list[TableFacts] = []  # (candidates: ``unchanged_tables`` keeps some)
        self.bindings: dict[str, int] = {}  # module-level name -> how many statements bind it

    def _partial_of(self, value: ast.expr) -> str:
        """``functools.partial(Cls, ...)``, as this module imports it: the dotted name of
        what calling the partial calls (its fixed arguments aside); "" for anything else."""
        if not isinstance(value, ast.Call) or not value.args:
            return ""
        func = dotted(value.func)
        via_name = func == "partial" and any(
            i.local == "partial" and i.module == "functools" and i.name == "partial"
            for i in self.imports
        )
        via_module = func == "functools.partial" and any(
            i.local == "functools" and i.module == "functools" and i.name is None
            for i in self.imports
        )
        if not (via_name or via_module) or isinstance(value.args[0], ast.Starred):
            return ""
        return dotted(value.args[0]) or ""

    def read(self, tree: ast.Module) -> ModuleFacts:
        self._body(tree.body, top=True)
        return ModuleFacts(
            imports=tuple(self.imports),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            names=frozenset(self.names),
            aliases=tuple(self.aliases),
            field_values=(
                *self.field_defaults,
                *(() if self.source is None else field_values(self.source.lines_text())),
            ),
            tables=unchanged_tables(
                self.tables, self.bindings, None if self.source is None else self.source.text
            ),
            foreign_stores=frozenset() if self.source is None else foreign_stores(self.source.text),
        )

    def _body(self, body: Sequence[ast.stmt], top: bool) -> None:
        # Iterative over nested blocks (if/try at module level) to bind conditional imports;
        # each statement carries the names whose binding there is a fallback: bound in an
        # ``except`` handler of a ``try`` whose body binds them too
        stack: list[tuple[ast.stmt, frozenset[str]]] = [(s, frozenset()) for s in reversed(body)]
        while stack:
            stmt, fallbacks = stack.pop()
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports.append(
                            ImportFacts(
                                alias.asname,
                                alias.name,
                                line=stmt.lineno,
                                fallback=alias.asname in fallbacks,
                            )
                        )
                    else:
                        top_name = alias.name.split(".", 1)[0]
                        self.imports.append(
                            ImportFacts(
                                top_name,
                                alias.name,
                                bind_top=True,
                                line=stmt.lineno,
                                fallback=top_name in fallbacks,
                            )
                        )
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    local = alias.asname or alias.name
                    self.imports.append(
                        ImportFacts(
                            local,
                            stmt.module or "",
                            alias.name,
                            stmt.level,
                            line=stmt.lineno,
                            fallback=local in fallbacks,
                        )
                    )
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt, "", stmt.name in fallbacks)
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(self._function(stmt, stmt.name, is_method=False))
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if (
                    isinstance(stmt.value, ast.Name)
                    and stmt.value.id == "object"
                    and all(isinstance(t, ast.Name) for t in targets)
                ):
                    # `_Base = object` (the runtime half of `if TYPE_CHECKING: _Base = X`):
                    # a mixin based on it is based on object, and its cooperative super()
                    # reaches the next class of the concrete class's MRO.
                    for t in targets:
                        assert isinstance(t, ast.Name)
                        self.imports.append(
                            ImportFacts(t.id, "builtins", "object", line=stmt.lineno)
                        )
                elif len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value:
                    # `_Base = LlamaDecoderLayer`: the name is bound to that class from here on;
                    # `LinearNoBias = partial(Linear, bias=False)`: calling it builds a Linear
                    target = dotted(stmt.value) or self._partial_of(stmt.value)
                    if target and target != targets[0].id:
                        fell = targets[0].id in fallbacks
                        bound = AliasFacts(targets[0].id, target, stmt.lineno, fell)
                        self.aliases.append(bound)
                    values = table_values(stmt.value, self._partial_of)
                    if values:  # ``MODELS = {"a": A, "b": B}``
                        self.tables.append(TableFacts(targets[0].id, values, stmt.lineno))
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.names.add(n.id)
                            self.bindings[n.id] = self.bindings.get(n.id, 0) + 1
            elif isinstance(stmt, ast.If) and (typed := _type_checking(stmt.test)) is not None:
                # `if TYPE_CHECKING:`: only the type checker reads one branch; what it binds
                # does not exist at run time and must not hide what the other branch (or the
                # code around it) binds: the base a class really has.
                branch = stmt.orelse if typed else stmt.body
                if _replaces_itself(branch):
                    # (a module that puts a lazy stand-in for itself in ``sys.modules`` serves
                    # at run time, on first use, what its type-checking branch imports)
                    checked = stmt.body if typed else stmt.orelse
                    imports = [s for s in checked if isinstance(s, ast.Import | ast.ImportFrom)]
                    branch = [*imports, *branch]
                stack.extend((s, fallbacks) for s in reversed(branch))
            elif isinstance(stmt, ast.If | ast.Try) or type(stmt).__name__ == "TryStar":
                blocks: list[tuple[list[ast.stmt], frozenset[str]]] = [
                    (stmt.body, fallbacks),  # type: ignore[attr-defined]
                    (stmt.orelse, fallbacks),  # type: ignore[attr-defined]
                ]
                if isinstance(stmt, ast.If):
                    # (a name the body imports: its binding in the ``else`` is the fallback
                    # for where the import cannot run, as in an ``except ImportError``)
                    imported = (n for s in stmt.body for n in _imported_names(s))
                    blocks[1] = (stmt.orelse, fallbacks | frozenset(imported))
                else:
                    # (a name the body binds: its binding in a handler is the fallback)
                    body_names = (n for s in stmt.body for n in _bound_names(s))  # type: ignore[attr-defined]
                    tried = fallbacks | frozenset(body_names)
                    blocks += [(h.body, tried) for h in stmt.handlers]  # type: ignore[attr-defined]
                    blocks.append((stmt.finalbody, fallbacks))  # type: ignore[attr-defined]
                for block, names in reversed(blocks):
                    stack.extend((s, names) for s in reversed(block))

    def _function(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, is_method: bool
    ) -> FunctionFacts:
        span = span_of(fn)
        blanked = self.ends.get(fn.lineno)
        if blanked is not None:
            pass_line, end = blanked
            if not (
                len(fn.body) == 1
                and isinstance(fn.body[0], ast.Pass)
                and fn.end_lineno == fn.body[0].lineno == pass_line
            ):
                raise ValueError("skeleton cut disagrees with the parse")  # whole text then
            assert self.source is not None
            last = self.source.lines()[end - 1]
            span = Span(span.line, span.col, end, len(last.rstrip().encode("utf-8")))
        decorators = tuple(decorator_name(d) for d in fn.decorator_list)
        if self.source is not None and not (is_method and fn.name == "__init__"):
            # Read on first use: most functions are never reached from a constructor.
            return FunctionFacts(
                fn.name,
                qualname,
                None,
                None,
                span,
                decorators,
                source=self.source,
                is_method=is_method,
            )
        reader = FunctionReader(fn, is_method)
        effects = reader.read()  # (reading marks the parameters that may stand for parts)
        return FunctionFacts(
            name=fn.name,
            qualname=qualname,
            params=reader.params,
            effects=effects,
            span=span,
            decorators=decorators,
        )

    def _class(self, node: ast.ClassDef, prefix: str, fallback: bool = False) -> None:
        # Nested classes are walked with an explicit stack: no recursion on depth.
        stack: list[tuple[ast.ClassDef, str]] = [(node, prefix)]
        while stack:
            cls, pre = stack.pop()
            qual = f"{pre}{cls.name}"
            methods: list[FunctionFacts] = []
            attrs: list[str] = []
            consts: dict[str, Const] = {}
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.append(self._function(stmt, f"{qual}.{stmt.name}", is_method=True))
                    consts.pop(stmt.name, None)
                elif isinstance(stmt, ast.ClassDef):
                    stack.append((stmt, f"{qual}."))
                    attrs.append(stmt.name)
                    consts.pop(stmt.name, None)
                else:
                    bound = _bound_names(stmt)
                    attrs.extend(bound)
                    for name in bound:
                        consts.pop(name, None)  # (the last binding decides)
                    consts.update(_class_constant(stmt))
                    default = _class_default(stmt)
                    if default is not None:  # ``proj: type = Linear``: a field's default class
                        self.field_defaults.append(FieldValueFacts(qual, *default, stmt.lineno))
            dynamic = any(isinstance(b, ast.Starred) for b in cls.bases) or any(
                k.arg is None for k in cls.keywords
            )
            bases = tuple(to_expr(b) for b in cls.bases if not isinstance(b, ast.Starred))
            self.classes.append(
                ClassFacts(
                    name=cls.name,
                    qualname=qual,
                    span=Span(cls.lineno, cls.col_offset, cls.lineno, cls.col_offset),
                    bases=bases,
                    methods=tuple(methods),
                    decorators=tuple(decorator_name(d) for d in cls.decorator_list),
                    dynamic_bases=dynamic,
                    attrs=tuple(attrs),
                    consts=tuple(consts.items()),
                    fallback=fallback and cls is node,
                    metaclass=next(
                        (dotted(k.value) or "?" for k in cls.keywords if k.arg == "metaclass"), ""
                    ),
                )
            )


def _replaces_itself(branch: list[ast.stmt]) -> bool:
    """Whether the statements store into ``sys.modules[__name__]``: the module replaces
    itself by another object (a lazy module that imports its names on first use)."""
    for stmt in branch:
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            if (
                isinstance(target, ast.Subscript)
                and dotted(target.value) == "sys.modules"
                and isinstance(target.slice, ast.Name)
                and target.slice.id == "__name__"
            ):
                return True
    return False


def _type_checking(test: ast.expr) -> bool | None:
    """True for ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``), whose body only the type
    checker reads; False for ``if not TYPE_CHECKING:``, whose ``else`` only it reads; None for
    any other test."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    name = (
        inner.id
        if isinstance(inner, ast.Name)
        else inner.attr
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
        else ""
    )
    if name != "TYPE_CHECKING":
        return None
    return not negated


def _class_default(stmt: ast.stmt) -> tuple[str, str] | None:
    """``name: T = Value`` or ``name = Value`` in a class body, the value a dotted name whose
    last part is capitalised (a class, as ``facts/field_values.py`` reads keywords): the
    name and the value, as written."""
    binding = _class_binding(stmt)
    if binding is None or not isinstance(binding[1], ast.Name | ast.Attribute):
        return None
    written = dotted(binding[1])
    if not written or not written.rpartition(".")[2][:1].isupper():
        return None
    return binding[0], written


def _class_binding(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """``name = value`` or ``name: T = value`` in a class body (one plain name bound):
    the name and the value; None for any other statement."""
    target: ast.expr
    value: ast.expr | None
    if isinstance(stmt, ast.AnnAssign):
        target, value = stmt.target, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
    else:
        return None
    if not isinstance(target, ast.Name) or value is None:
        return None
    return target.id, value


def _imported_names(stmt: ast.stmt) -> list[str]:
    """The names an import statement binds (none for any other statement)."""
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).partition(".")[0] for a in stmt.names]
    return []


_STORE = re.compile(r"\.([A-Za-z_]\w*)[ \t]*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)")
_SETATTR = re.compile(r"setattr\s*\([^,()]+,\s*[\"']([A-Za-z_]\w*)[\"']")


def foreign_stores(text: str) -> frozenset[str]:
    """The attribute names a module's text may store on something other than ``self``
    (``type(self).build = True``, ``Model.use_cache = False``, ``setattr(cls, "x", v)``),
    read from the text so that method bodies stay unread; a mention in a string or a
    comment counts too."""
    found = {m.group(1) for m in _STORE.finditer(text) if not _on_self(text, m.start())}
    found.update(m.group(1) for m in _SETATTR.finditer(text))
    return frozenset(found)


def _on_self(text: str, dot: int) -> bool:
    """Whether the name before the dot at ``dot`` is ``self`` itself (not ``myself``)."""
    start = dot - 4
    if start < 0 or text[start:dot] != "self":
        return False
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "_.")


def _class_constant(stmt: ast.stmt) -> dict[str, Const]:
    """``name = <constant>`` or ``name: T = <constant>`` in a class body: {name: constant}
    (a string, number, bool or None written out); {} for any other statement."""
    binding = _class_binding(stmt)
    if binding is None or not isinstance(binding[1], ast.Constant):
        return {}
    value = binding[1].value
    if not isinstance(value, str | int | float | bool) and value is not None:
        return {}
    return {binding[0]: value}


def _bound_names(stmt: ast.stmt) -> list[str]:
    """The names a class-body statement other than a def binds. ``x: int`` without a value
    binds nothing; anything compound (if/for/with/try/...) counts every name stored in it."""
    if isinstance(stmt, ast.AnnAssign):
        if stmt.value is None or not isinstance(stmt.target, ast.Name):
            return []
        return [stmt.target.id]
    if isinstance(stmt, ast.Expr | ast.Pass):
        return []
    names: list[str] = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.append(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            names.extend((a.asname or a.name).partition(".")[0] for a in n.names)
    return names

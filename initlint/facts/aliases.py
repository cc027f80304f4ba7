"""Locals that name a part of the object: ``lm = self.vlm.language_model``, bound once and
then used to change it (``del lm.model.decoder``, ``lm.lm_head = None``). The function is
read as if each mention of such a local were the part written out, so that what is done
through it is done to the object's part, and binding it reads nothing."""

from __future__ import annotations

import ast
import copy

from initlint.facts.walk import SCOPES, children


def without_part_aliases(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """``fn`` with each part alias's mentions replaced by the part it names and its binding
    by ``pass``; ``fn`` itself when it has none. A part alias is a local of ``fn``'s own
    scope, not a parameter, bound once by a plain ``name = self.a.b`` and never otherwise
    (no loop, ``with``, ``del``, walrus, ``global``), that a statement stores or deletes
    through (``del name.x``, ``name.x.y = v``), mentioned in no nested function or class,
    and whose part no store of ``fn`` after the binding may change (``self.a = ...``,
    ``self.a.b = ...``, ``setattr``, ``delattr``)."""
    names = _changed_through(fn, self_name) if self_name else frozenset()
    if not names:
        return fn
    found = _aliases(fn, self_name, names)
    if not found:
        return fn
    out = copy.deepcopy(fn)
    _Substitute(found).visit(out)
    return out


def _changed_through(fn: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> frozenset[str]:
    """The names some statement of ``fn`` binds to a part of ``me`` and some statement
    stores or deletes through: read from the statements alone, as most functions have
    none."""
    bound: set[str] = set()
    through: set[str] = set()
    todo: list[ast.stmt] = list(fn.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, SCOPES):
            continue
        if isinstance(stmt, ast.Assign) and self_path(stmt.value, me):
            bound.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        targets = stmt.targets if isinstance(stmt, ast.Assign | ast.Delete) else []
        if isinstance(stmt, ast.AugAssign | ast.AnnAssign):
            targets = [stmt.target]
        through.update(_root(t) for t in targets if isinstance(t, ast.Attribute))
        for field in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, field, ()))
        for block in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
            todo.extend(block.body)
    return frozenset(bound & through)


def _root(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _aliases(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, me: str, names: frozenset[str]
) -> dict[str, ast.expr]:
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    bound: dict[str, list[ast.AST]] = {}  # name -> the nodes that bind it
    nested: set[str] = set()  # names mentioned in a nested scope
    stores: list[tuple[int, str]] = []  # (line, dotted self path stored or "*")
    candidates: dict[str, tuple[ast.Assign, str]] = {}
    todo: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in fn.body]
    while todo:
        node, inner = todo.pop()
        if isinstance(node, ast.Name):
            if inner:
                nested.add(node.id)
            elif not isinstance(node.ctx, ast.Load):
                bound.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            nested.update(node.names)
        elif isinstance(node, ast.Assign) and not inner:
            path = self_path(node.value, me)
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and path:
                candidates[node.targets[0].id] = (node, path)
            for target in node.targets:
                stored = self_path(target, me)
                if stored:
                    stores.append((node.lineno, stored))
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and not inner:
            stored = self_path(node.target, me)
            if stored:
                stores.append((node.lineno, stored))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("setattr", "delattr"):
                stores.append((node.lineno, "*"))
        elif isinstance(node, ast.Delete) and not inner:
            for target in node.targets:
                stored = self_path(target, me)
                if stored:
                    stores.append((node.lineno, stored))
        deeper = inner or isinstance(node, SCOPES)
        todo.extend((child, deeper) for child in children(node))
    out: dict[str, ast.expr] = {}
    for name, (stmt, path) in candidates.items():
        if name not in names or name in params or name in nested:
            continue
        if len(bound.get(name, ())) != 1:
            continue
        if any(line > stmt.lineno and _may_change(s, path) for line, s in stores):
            continue
        out[name] = stmt.value
    return out


def self_path(node: ast.AST, me: str) -> str:
    """``a`` for ``<me>.a``, ``a.b`` for ``<me>.a.b``: the dotted path of an object the
    object ``me`` names holds; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not parts or not (isinstance(node, ast.Name) and node.id == me):
        return ""
    return ".".join(reversed(parts))


def _may_change(stored: str, path: str) -> bool:
    """Whether a store of ``stored`` may put another object at ``path`` or above it."""
    return stored == "*" or path == stored or path.startswith(stored + ".")


class ReplaceNames(ast.NodeTransformer):
    """Every read of some names replaced by a copy of an expression for each, placed where
    the name was."""

    def __init__(self, given: dict[str, ast.expr]) -> None:
        self.given = given

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.given.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        made = copy.deepcopy(value)
        for sub in ast.walk(made):
            if isinstance(sub, ast.expr):
                ast.copy_location(sub, node)
        return made


class _Substitute(ReplaceNames):
    """The alias names read as the parts they stand for, their bindings gone."""

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id in self.given:
            return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)


def part_name_candidates(me: str, nodes: list[ast.AST]) -> frozenset[str]:
    """The names of a function (not ``me``) that may stand for a part of the object when
    the simulation runs it (``simulation/part_refs.py``): those a statement stores or
    deletes through (``out.weight = w``), hands whole to a method of the object
    (``self._tie(out, emb)``) or binds to what an argument-free method of it returns (``out
    = self.get_output_embeddings()``), and the plain names bound to one of them (``m =
    out``). Only a parameter or a name bound by plain assignments alone qualifies, and none
    a nested function, class or lambda mentions: each statement that mentions one records
    its uses (``Effect.names``), so what is read through it is a read of the part.
    ``nodes``: the function's own nodes (``walk.own_nodes``), each before those inside it."""
    found = _seeds(me, nodes) if me else set()
    aliases: list[tuple[str, str]] = []
    unfit: set[str] = {me}  # (bound otherwise, or seen from a nested scope)
    plain: set[int] = set()  # (the targets of plain assignments, met before their targets)
    for node in nodes:
        if isinstance(node, (*SCOPES, ast.Global, ast.Nonlocal)):
            unfit.update(_names_in(node))
        elif isinstance(node, ast.AnnAssign):
            plain.add(id(node.target))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            plain.add(id(target))
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Name):
                aliases.append((target.id, node.value.id))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if id(node) not in plain:  # (a loop, ``with``, walrus, tuple target, ``del``)
                unfit.add(node.id)
        elif isinstance(node, ast.ExceptHandler | ast.alias) or _binds_by_match(node):
            unfit.update(_bound_names(node))
    grew = True
    while grew:  # (``m = out``: each stands for what the other does)
        before = len(found)
        for a, b in aliases:
            if a in found or b in found:
                found.update((a, b))
        grew = len(found) > before
    return frozenset(found - unfit - {""})


def _seeds(me: str, nodes: list[ast.AST]) -> set[str]:
    """The names a statement stores or deletes through, hands whole to a method of the
    object, or binds to what an argument-free method of it returns."""
    found: set[str] = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Call:
            if self_method_call(node, me):
                assert isinstance(node, ast.Call)  # (self_method_call)
                found.update(a.id for a in node.args if isinstance(a, ast.Name))
                found.update(k.value.id for k in node.keywords if isinstance(k.value, ast.Name))
        elif kind is ast.Assign or kind is ast.Delete:
            assert isinstance(node, ast.Assign | ast.Delete)
            found.update(_root(t) for t in node.targets if isinstance(t, ast.Attribute))
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                single = node.targets[0]
                if isinstance(single, ast.Name) and _self_call(node.value, me, bare=True):
                    found.add(single.id)
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            assert isinstance(node, ast.AugAssign | ast.AnnAssign)
            if isinstance(node.target, ast.Attribute):
                found.add(_root(node.target))
    found.discard(me)
    found.discard("")
    return found


def _binds_by_match(node: ast.AST) -> bool:
    return isinstance(node, ast.MatchAs | ast.MatchStar | ast.MatchMapping)


def _bound_names(node: ast.AST) -> set[str]:
    """The names an ``except ... as``, an import's alias or a ``match`` capture binds."""
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return {node.name} if node.name else set()
    if isinstance(node, ast.MatchMapping):
        return {node.rest} if node.rest else set()
    if isinstance(node, ast.alias):
        return {(node.asname or node.name).partition(".")[0]}
    return set()


def _names_in(node: ast.AST) -> set[str]:
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, ast.Global | ast.Nonlocal):
        found.update(node.names)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        found.add(node.name)
    return found


def self_method_call(node: ast.AST, me: str) -> bool:
    """Whether ``node`` is a call of a method of the object ``me`` names (``self.m(...)``)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == me
    )


def _self_call(node: ast.AST, me: str, bare: bool = False) -> bool:
    """``self_method_call``; ``bare``: with no arguments (``self.get_output_embeddings()``)."""
    if not self_method_call(node, me):
        return False
    assert isinstance(node, ast.Call)  # (self_method_call)
    return not bare or not (node.args or node.keywords)

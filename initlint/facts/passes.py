"""Initialisation passes: what a walk over a module's tensors or submodules fills
(``for p in self.parameters(): if p.dim() > 1: xavier_uniform_(p)``), and what a function
that only initialises its argument fills of it (the function ``module.apply`` runs on each
module). Each fill comes with the tests on the item that lead to it, kept only when every
one is understood: which tensors a pass covers is then decided for each tensor the object
holds (``simulation/coverage.py``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Literal

from initlint.facts.effect_log import names_loaded, without_docstring
from initlint.facts.expressions import dotted, root_name
from initlint.facts.model import ItemTest
from initlint.facts.reads import MODULE_WALKS, SIZE_ATTRS

# Tensor methods that overwrite every number of the tensor they are called on: an
# initialisation (``w.data.normal_(0, 0.02)``, ``b.zero_()``), as torch.nn.init's functions
# are (named, like them, with torch's trailing underscore for in place).
FILLING_METHODS = frozenset(
    """normal_ uniform_ zero_ fill_ copy_ random_ bernoulli_ exponential_ log_normal_
    cauchy_ geometric_ fill_diagonal_""".split()
)
# The detail of a visitor's fills (``pass`` effects ``apply`` runs, not the function's own
# work): ``visit`` for the function's own, ``visit:<name>`` for those of a function defined
# in it under ``name`` (``def _basic_init(m)`` then ``self.apply(_basic_init)``).
VISIT = "visit"


def is_visit(detail: str) -> bool:
    """Whether a ``pass`` effect's detail marks a visitor's fill (``VISIT``)."""
    return detail == VISIT or detail.startswith(VISIT + ":")


def nested_visit(name: str) -> str:
    """The detail of the fills of the function defined under ``name`` (``VISIT``)."""
    return f"{VISIT}:{name}"


# The walks among those that yield tensors (the rest yield modules).
TENSOR_WALKS = frozenset("parameters named_parameters buffers named_buffers".split())
# torch.nn.Module's methods that reach every tensor the object holds (its walks, its state,
# a move or cast): a call of one may read any of their numbers.
TENSOR_READERS = MODULE_WALKS | frozenset(
    """state_dict apply _apply to cpu cuda half float double bfloat16 type share_memory
    named_modules""".split()
)


def filled_tensor(call: ast.Call) -> ast.expr | None:
    """The tensor a call fills in place, as an initialisation does: the first argument of a
    function named in torch's in-place way and called by its name or through a module
    ending in ``init`` (``nn.init.xavier_uniform_(w)``, ``trunc_normal_(w, std=0.02)``), or
    the tensor a filling method is called on (``w.data.normal_(0, 0.02)``); else None."""
    func = call.func
    if isinstance(func, ast.Name) and func.id.endswith("_") and not func.id.startswith("_"):
        return call.args[0] if call.args else None
    if isinstance(func, ast.Attribute):
        if func.attr.endswith("_") and dotted(func.value).rpartition(".")[2] == "init":
            return call.args[0] if call.args else None
        if func.attr in FILLING_METHODS:
            return func.value
    return None


# Methods that leave a tensor's own numbers as they are while giving a copy or a view
# (``data.cpu()``, ``w.detach().clone()``): a fill of what they give overwrites it all.
_COPIES = frozenset("cpu cuda clone detach to contiguous float half double bfloat16".split())


def fill_helpers(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """The functions ``fn`` defines in its body that do nothing but fill their one argument
    whole, in place, from none of its numbers nor anything of ``fn``'s own (``def
    normal_(data): data.copy_(data.cpu().normal_(std=0.02).to(data.device))``), bound by
    that ``def`` alone, by name, with the fill each does (``normal_``; the fill of a copy a
    ``copy_`` writes back, else ``copy_``): a call of one is that fill of what it is
    given."""
    found: dict[str, str] = {}
    defs = [s for s in fn.body if isinstance(s, ast.FunctionDef) and not s.decorator_list]
    bindings = _bindings(fn) if defs else []
    for stmt in defs:
        if bindings.count(stmt.name) != 1:
            continue  # (bound again: which function a call runs depends on the path)
        args = stmt.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            continue
        own = without_docstring(stmt.body)
        if len(args.args) != 1 or len(own) != 1 or not isinstance(own[0], ast.Expr):
            continue
        call, param = own[0].value, args.args[0].arg
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        tensor = filled_tensor(call)
        if tensor is None or numbered_path(tensor) not in ([param], [param, "data"]):
            continue
        fill = call.func.attr
        given = [*call.args, *(k.value for k in call.keywords)]
        if fill == "copy_" and len(given) == 1:
            fill = _overwritten_copy(given[0], param) or fill
        if fill == "fill_diagonal_" or not _no_numbers_read(given, param):
            continue
        named = {n.id for a in given for n in ast.walk(a) if isinstance(n, ast.Name)}
        if named & (set(bindings) - {param}):
            continue  # (it reads what ``fn`` holds: ``module.weight`` into the bias)
        found[stmt.name] = fill
    return found


def _bindings(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Every binding of a name in ``fn`` and the functions in it: its parameters, stores,
    ``def``s, classes and imports, each as often as it is bound."""
    out: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            out.append(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.append(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node is not fn:
                out.append(node.name)
        elif isinstance(node, ast.alias):
            out.append((node.asname or node.name).partition(".")[0])
    return out


def _overwritten_copy(value: ast.expr, param: str) -> str | None:
    """The fill of ``param``'s copy ``value`` is (``data.cpu().normal_(...).to(dev)``:
    ``normal_``), where the fill overwrites every number the copy took; None otherwise."""
    node = value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in FILLING_METHODS - {"copy_", "fill_diagonal_"}:
            inner = node.func.value
            while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                if inner.func.attr not in _COPIES:
                    return None
                inner = inner.func.value
            if isinstance(inner, ast.Attribute) and inner.attr == "data":
                inner = inner.value
            return node.func.attr if _is(inner, param) else None
        if node.func.attr not in _COPIES:
            return None
        node = node.func.value
    return None


def _no_numbers_read(given: Sequence[ast.expr], param: str) -> bool:
    """Whether ``given`` reads none of ``param``'s numbers: each mention is of its metadata
    (``data.device``, ``data.shape``) or of a copy a fill overwrites (``_overwritten_copy``)."""
    # (each node's parent where the node is what the parent is taken from or called on:
    # the receiver chain ``data.cpu().normal_()``, not an argument)
    parents: dict[int, ast.AST] = {}
    for root in given:
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute):
                parents[id(node.value)] = node
            elif isinstance(node, ast.Call):
                parents[id(node.func)] = node
    for root in given:
        for node in ast.walk(root):
            if not _is(node, param):
                continue
            up = parents.get(id(node))
            if isinstance(up, ast.Attribute) and up.attr in _METADATA:
                continue
            top: ast.AST = node
            while id(top) in parents:
                top = parents[id(top)]
                if isinstance(top, ast.Call) and _overwritten_copy(top, param):
                    break
            else:
                return False
    return True


def is_fill_diagonal(call: ast.Call) -> bool:
    """Whether ``call`` is ``t.fill_diagonal_(v)`` (by the last part of its name), which
    fills only some numbers."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "fill_diagonal_"


def only_initialises(
    body: Sequence[ast.stmt],
    loop_names: set[str],
    self_name: str,
    modules: bool,
    relaxed: bool = False,
) -> bool:
    """Whether a loop body does nothing but fill, in place, tensors reached through the
    loop's names (``nn.init.zeros_(m.bias)``, ``p.data.normal_()``), under tests that read
    no attribute of the object. Over modules (``modules``), only their tensors: a module
    itself handed on (``tie_(m)``, ``m.reset_parameters()``) may be the object, whose own
    methods read anything (``self.modules()`` yields it first). ``relaxed`` (for a walk that
    stays a call of the object for the other rules) lets plain locals computed on the way
    (``fan_out = m.kernel_size[0] * m.out_channels``; ``std = self.config.init_std``, the
    object's attributes read, no method run) and tests and fill arguments reading the
    object's attributes (``m.out_features == self.num_classes``, ``std=self.init_std``)
    in."""
    for stmt in body:
        if isinstance(stmt, ast.Pass | ast.Continue):
            continue
        if relaxed and _local_binding(stmt, self_name, loop_names):
            continue
        if isinstance(stmt, ast.If):
            if self_name and self_name in names_loaded(stmt.test):
                if not (relaxed and _only_attributes_read(stmt.test, self_name)):
                    return False
            if not only_initialises(stmt.body, loop_names, self_name, modules, relaxed):
                return False
            if not only_initialises(stmt.orelse, loop_names, self_name, modules, relaxed):
                return False
            continue
        if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
            return False
        call = stmt.value
        tensor = filled_tensor(call)
        if tensor is None or root_name(tensor) not in loop_names:
            return False
        if modules and isinstance(tensor, ast.Name):
            return False
        given = [*call.args, *(k.value for k in call.keywords)]
        for a in given:  # (``std=self.config.initializer_range``: a setting, relaxed)
            if self_name and self_name in names_loaded(a):
                if not (relaxed and _only_attributes_read(a, self_name)):
                    return False
    return True


# The comparison operators a dimension test may use, by their ``ItemTest.op`` names.
_ORDER: dict[type[ast.cmpop], str] = {
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
}
# The ways a tensor's number of dimensions is read: ``p.dim()``, ``p.ndimension()``,
# ``p.ndim``, ``len(p.shape)``, ``len(p.size())``.
_DIM_METHODS = frozenset({"dim", "ndimension"})


def _only_attributes_read(node: ast.AST, self_name: str) -> bool:
    """Whether ``node`` mentions the object only to read attributes of it (``self.n``; no
    method called on it, not handed on)."""
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Name) and child.id == self_name:
                if not isinstance(parent, ast.Attribute):
                    return False
    calls = (n for n in ast.walk(node) if isinstance(n, ast.Call))
    return not any(
        isinstance(c.func, ast.Attribute) and root_name(c.func) == self_name for c in calls
    )


def _local_binding(stmt: ast.stmt, self_name: str, loop_names: set[str]) -> bool:
    """``x = v``, ``x //= v``, ``x: T = v`` to a plain name other than the walk's, ``v``
    reading nothing of the object."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AugAssign | ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return False
    if not all(isinstance(t, ast.Name) and t.id not in loop_names for t in targets):
        return False
    if any(_reads_the_item([stmt], name) for name in loop_names):
        return False  # (``w = m.weight``: a way to its numbers)
    # (``std = self.config.initializer_range``: the object's settings read, no method run)
    return not (self_name and self_name in names_loaded(value)) or _only_attributes_read(
        value, self_name
    )


def pass_fills(
    body: Sequence[ast.stmt], item: str, name: str
) -> Iterator[tuple[ast.stmt, str, tuple[ItemTest, ...]]]:
    """Each statement of ``body`` (a loop's, or a visitor function's) that fills the item
    ``item`` or one part of it in place: the statement, the part (``weight``; "" for the
    item itself) and the tests leading to it. ``name`` is the loop's name for the item's
    dotted name (``named_parameters``), "" for none. A fill under a test not understood is
    left out (it may cover fewer tensors than any claim would say); so is every fill after
    a ``continue`` other than a whole ``if <test>: continue`` at the top (its ``else`` or
    ``elif`` runs where the test fails, as the statements after it do)."""
    if _reads_the_item(body, item):
        return  # (its numbers are used: the loop is no mere fill)
    spelled = _class_name_locals(body, item)
    tests: tuple[ItemTest, ...] = ()
    for stmt in _skips_first(body):
        if isinstance(stmt, ast.If) and _skips(stmt):
            test = item_tests(stmt.test, item, name, spelled)
            negated = None if test is None else _negate(test)
            if negated is None:
                return  # (the rest runs where a test not understood fails)
            tests = (*tests, negated)
            continue
        if any(isinstance(n, ast.Continue) for n in ast.walk(stmt)):
            return
        yield from _fills([stmt], item, name, tests, spelled)


def item_calls(
    body: Sequence[ast.stmt], item: str
) -> list[tuple[ast.stmt, str, tuple[ItemTest, ...]]] | None:
    """A loop body that does nothing but call a method of the item with no arguments
    (``layer.reset_parameters()``), under tests of the item that are understood: each call
    with the method and the tests leading to it. None for any other body."""
    out: list[tuple[ast.stmt, str, tuple[ItemTest, ...]]] = []

    def walk(stmts: Sequence[ast.stmt], tests: tuple[ItemTest, ...]) -> bool:
        for stmt in stmts:
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.If):
                test = item_tests(stmt.test, item, "")
                if test is None or not walk(stmt.body, (*tests, *test)):
                    return False
                if stmt.orelse:
                    negated = _negate(test)
                    if negated is None or not walk(stmt.orelse, (*tests, negated)):
                        return False
                continue
            if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
                return False
            call = stmt.value
            func = call.func
            if call.args or call.keywords or not isinstance(func, ast.Attribute):
                return False
            if not _is(func.value, item):
                return False
            out.append((stmt, func.attr, tests))
        return True

    return out if walk(body, ()) and out else None


# What reading a tensor or module for its shape or settings looks like: ``p.dim()``,
# ``m.weight.size(1)``, ``p.requires_grad``; the numbers stay unread.
_METADATA = SIZE_ATTRS | frozenset("requires_grad is_leaf __class__".split())
# The settings torch.nn's modules keep as plain values (``m.kernel_size``, ``m.groups``):
# reading one reads no tensor.
_SETTINGS = frozenset(
    """in_features out_features in_channels out_channels kernel_size stride padding dilation
    groups num_embeddings embedding_dim padding_idx normalized_shape num_features eps
    momentum""".split()
)
# torch.nn.init's functions that fill a tensor in place, called by their bare names (as
# imported): a function of the project's named so may do anything.
INIT_FILLS = frozenset(
    """uniform_ normal_ trunc_normal_ constant_ ones_ zeros_ eye_ dirac_ xavier_uniform_
    xavier_normal_ kaiming_uniform_ kaiming_normal_ orthogonal_ sparse_""".split()
)


def _reads_the_item(body: Sequence[ast.stmt], item: str) -> bool:
    """Whether the body mentions the item anywhere but as the tensor a fill fills, in a
    test of its class or of a part's presence, or for its shape or settings
    (``_METADATA``)."""
    targets: set[int] = set()
    for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
        if isinstance(node, ast.Call) and (tensor := filled_tensor(node)) is not None:
            targets.update(id(n) for n in ast.walk(tensor))
    return any(
        _number_read(node, parents, item)
        for node, parents in _names_with_parents(body)
        if id(node) not in targets
    )


def _names_with_parents(body: Sequence[ast.stmt]) -> Iterator[tuple[ast.Name, list[ast.AST]]]:
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(stmt, []) for stmt in body]
    while stack:
        node, parents = stack.pop()
        if isinstance(node, ast.Name):
            yield node, parents
            continue
        for child in ast.iter_child_nodes(node):
            stack.append((child, [*parents, node]))


def _number_read(name: ast.Name, parents: list[ast.AST], item: str) -> bool:
    """Whether this mention of the item may read numbers: not ``isinstance(m, ...)``,
    ``hasattr(m, ...)``, a chain ending in metadata (``m.weight.size(1)``) or a part tested
    against None (``m.bias is not None``)."""
    if name.id != item:
        return False
    node: ast.AST = name
    depth = 0
    for parent in reversed(parents):  # up the chain ``item.a.b``, ``item.a[-1]``
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if integer_literal(parent.slice) is None:
                break
        elif not isinstance(parent, ast.Attribute) or parent.value is not node:
            break
        elif parent.attr in _METADATA or (depth == 0 and parent.attr in _SETTINGS):
            return False
        node, depth = parent, depth + 1
    outer = parents[-1 - depth] if depth < len(parents) else None
    if isinstance(outer, ast.Call) and isinstance(outer.func, ast.Name):
        # (of the item itself, or of a module it holds: ``isinstance(m.proj[-1], nn.Linear)``)
        if outer.args[:1] == [node]:
            return outer.func.id not in ("isinstance", "hasattr", "type")
    return not (
        isinstance(outer, ast.Compare) and all(isinstance(o, ast.Is | ast.IsNot) for o in outer.ops)
    )


def _continues(stmt: ast.stmt) -> bool:
    """``if <test>: continue``, with an ``else`` or without."""
    return (
        isinstance(stmt, ast.If) and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Continue)
    )


def _skips(stmt: ast.If) -> bool:
    """``if <test>: continue``, and nothing else."""
    return _continues(stmt) and not stmt.orelse


def _skips_first(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each ``if <test>: continue`` that has an ``else`` (or ``elif``) split in
    two, the same loop: the skip alone, then what its ``else`` holds, which runs only where
    the skip's test fails."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If) and _continues(stmt) and stmt.orelse:
            out.append(ast.copy_location(ast.If(test=stmt.test, body=stmt.body, orelse=[]), stmt))
            out.extend(_skips_first(stmt.orelse))
        else:
            out.append(stmt)
    return out


def _fills(
    body: Sequence[ast.stmt],
    item: str,
    name: str,
    tests: tuple[ItemTest, ...],
    spelled: frozenset[str],
) -> Iterator[tuple[ast.stmt, str, tuple[ItemTest, ...]]]:
    for stmt in body:
        if isinstance(stmt, ast.If):
            test = item_tests(stmt.test, item, name, spelled)
            if test is None:
                continue
            yield from _fills(stmt.body, item, name, (*tests, *test), spelled)
            if stmt.orelse:
                negated = _negate(test)
                if negated is not None:
                    yield from _fills(stmt.orelse, item, name, (*tests, negated), spelled)
            continue
        if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
            continue
        part = _filled_part(stmt.value, item)
        # (a test of a module the item holds says something of the tensors that module
        # holds alone: ``isinstance(m.proj, nn.Linear)`` before ``init(m.proj.weight)``)
        if part is not None and all(t.part in ("", part.rpartition(".")[0]) for t in tests):
            yield stmt, part, tests


def inline_fills(body: Sequence[ast.stmt], helpers: Mapping[str, str]) -> list[ast.stmt]:
    """``body`` with each call of a fill helper (``fill_helpers``: ``normal_(m.weight)``)
    written as the fill it does (``m.weight.normal_()``), and the helpers' ``def``s left
    out; the statements keep their places in the source."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name in helpers:
            continue
        if isinstance(stmt, ast.If):
            body, orelse = inline_fills(stmt.body, helpers), inline_fills(stmt.orelse, helpers)
            stmt = ast.copy_location(ast.If(stmt.test, body, orelse), stmt)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            func = call.func
            if isinstance(func, ast.Name) and func.id in helpers and len(call.args) == 1:
                method = ast.Attribute(call.args[0], helpers[func.id], ast.Load())
                fill = ast.copy_location(ast.Call(ast.copy_location(method, func), [], []), call)
                stmt = ast.copy_location(ast.Expr(fill), stmt)
        out.append(stmt)
    return out


def _filled_part(call: ast.Call, item: str) -> str | None:
    """The part of ``item`` the call fills whole (``m.weight``: "weight"; a part of a module
    it holds, ``block.mlp.proj.weight``: "mlp.proj.weight"; ``p``, ``p.data``: ""), None
    when it fills something else, a slice, or from the item's own numbers."""
    tensor = filled_tensor(call)
    if tensor is None:
        return None
    if isinstance(call.func, ast.Name) and call.func.id not in INIT_FILLS:
        return None  # (a function of the project's, named as torch names its fills)
    path = numbered_path(tensor)
    if not path or path[0] != item:
        return None
    rest = [p for p in path[1:] if p != "data"]
    if is_fill_diagonal(call):
        return None
    return ".".join(rest)


def from_end(part: str) -> bool:
    """Whether a name of ``numbered_path`` is an item counted from the end (``-1``)."""
    return part.startswith("-") and part[1:].isdigit()


def module_path(node: ast.expr) -> list[str]:
    """``numbered_path`` of a module (or any object) that may itself be an item taken by
    number (``block.proj[-1]``: ``block``, ``proj``, ``-1``)."""
    return numbered_path(ast.Attribute(value=node, attr="", ctx=ast.Load()))[:-1]


def numbered_path(node: ast.expr) -> list[str]:
    """The names of an attribute chain, an item of a module taken by a written-out number
    counting as one (``block.adaLN_modulation[-1].weight``: ``block``, ``adaLN_modulation``,
    ``-1``, ``weight``); [] for anything else, rows of a tensor picked too (``p[0]``,
    ``m.weight[0]``, ``m.weight.data[0]``: no attribute of the item taken after it)."""
    parts: list[str] = []
    outer: ast.expr | None = None
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node, outer = node.value, node
        elif isinstance(node, ast.Subscript) and (at := integer_literal(node.slice)) is not None:
            if not (isinstance(outer, ast.Attribute) and outer.attr != "data"):
                return []
            parts.append(str(at))
            node, outer = node.value, node
        else:
            break
    if not isinstance(node, ast.Name):
        return []
    parts.append(node.id)
    return parts[::-1]


def item_tests(
    test: ast.expr, item: str, name: str, spelled: frozenset[str] = frozenset()
) -> tuple[ItemTest, ...] | None:
    """The tests ``test`` makes of the item (all must hold: ``a and b`` gives two), None
    when any part of it is not understood. ``spelled``: the locals bound to the item's
    class name (``_class_name_locals``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        out: list[ItemTest] = []
        for value in test.values:
            part = item_tests(value, item, name, spelled)
            if part is None:
                return None
            out.extend(part)
        return tuple(out)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = item_tests(test.operand, item, name, spelled)
        if inner is None or len(inner) != 1:
            return None
        negated = _negate(inner)
        return None if negated is None else (negated,)
    one = _one_test(test, item, name)
    if one is None and _spells_class(test, item, spelled):
        one = _class_name_test(test, item, spelled)
    return None if one is None else (one,)


def _negate(tests: tuple[ItemTest, ...]) -> ItemTest | None:
    """The test that holds where ``tests`` (all of them) do not: one test negated; None for
    a conjunction (its negation is a choice)."""
    if len(tests) != 1:
        return None
    t = tests[0]
    return ItemTest(t.kind, t.names, t.op, t.value, not t.truth, t.part)


def _one_test(test: ast.expr, item: str, name: str) -> ItemTest | None:
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        if test.func.id == "isinstance" and len(test.args) == 2 and not test.keywords:
            return _isinstance(test.args, item)
        if test.func.id == "hasattr" and len(test.args) == 2 and not test.keywords:
            attr = test.args[1]  # ``hasattr(m, "reset_parameters")``
            if _is(test.args[0], item) and isinstance(attr, ast.Constant):
                return ItemTest("hasattr", (attr.value,)) if isinstance(attr.value, str) else None
    exact = _exact_type(test, item)
    if exact is not None:
        return exact
    if name:  # ``n.endswith("bias")``, ``n.startswith(("a", "b"))``, ``"bias" in n``
        text = _text_test(test, lambda node: _is(node, name), "name")
        if text is not None:
            return text
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
        part = module_path(left)  # ``m.bias is not None``: the part is there
        if len(part) >= 2 and part[0] == item and part[-1].isidentifier():
            return ItemTest("present", (part[-1],), part=".".join(part[1:-1]))
        return None
    order = _ORDER.get(type(op))
    if order is None or not _reads_dims(left, item):
        return None
    if not isinstance(right, ast.Constant) or type(right.value) is not int:
        return None
    return ItemTest("dims", (), order, right.value)


def _class_name_locals(body: Sequence[ast.stmt], item: str) -> frozenset[str]:
    """The locals the body binds, at its top and only once, to the item's class name
    (``classname = m.__class__.__name__``)."""
    bound: dict[str, int] = {}
    spelled: set[str] = set()
    for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                bound[target.id] = bound.get(target.id, 0) + 1
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and _class_name(stmt.value, item):
                spelled.add(target.id)
    return frozenset(n for n in spelled if bound[n] == 1)


def _class_name(node: ast.expr, item: str) -> bool:
    """``m.__class__.__name__`` or ``type(m).__name__``."""
    if not isinstance(node, ast.Attribute) or node.attr != "__name__":
        return False
    of = node.value
    if isinstance(of, ast.Attribute) and of.attr == "__class__":
        return _is(of.value, item)
    if isinstance(of, ast.Call) and isinstance(of.func, ast.Name) and of.func.id == "type":
        return len(of.args) == 1 and not of.keywords and _is(of.args[0], item)
    return False


def _spells_class(test: ast.expr, item: str, spelled: frozenset[str]) -> bool:
    """Whether the test mentions the item's class name (and may be one of its tests)."""
    return any(
        (isinstance(n, ast.Name) and n.id in spelled) or _class_name(n, item)
        for n in ast.walk(test)
        if isinstance(n, ast.expr)
    )


def _class_name_test(test: ast.expr, item: str, spelled: frozenset[str]) -> ItemTest | None:
    """A test of the item's class name (``_class_name``, or a local in ``spelled``):
    ``name.find("Conv") != -1`` (``>= 0``; ``== -1`` negated), ``"Conv" in name``,
    ``name.startswith(...)``, ``name.endswith(...)``, ``name == "Conv2d"``."""

    def spells(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in spelled) or _class_name(node, item)

    text = _text_test(test, spells, "classname")
    if text is not None or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return text
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Eq | ast.NotEq) and spells(left):
        texts = _strings(right)
        if texts is None or len(texts) != 1:
            return None
        return ItemTest("classname", texts, "eq", truth=isinstance(op, ast.Eq))
    found, number = _found(left, spells), integer_literal(right)
    if found is None or number is None:
        return None
    # ``find`` gives -1 when the text is absent, else where it starts (0 or more)
    held = {
        (ast.NotEq, -1): True,
        (ast.Eq, -1): False,
        (ast.GtE, 0): True,
        (ast.Gt, -1): True,
        (ast.Lt, 0): False,
    }.get((type(op), number))
    return None if held is None else ItemTest("classname", (found,), "in", truth=held)


def _text_test(
    test: ast.expr, subject: Callable[[ast.expr], bool], kind: Literal["name", "classname"]
) -> ItemTest | None:
    """A test of a text that ``subject`` recognises (the item's dotted name, its class
    name): ``text.startswith(...)``, ``text.endswith(...)`` with strings, ``"bias" in text``
    (``not in`` negated); None for any other test."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute):
        method = test.func.attr
        if method in ("startswith", "endswith") and subject(test.func.value):
            texts = _strings(test.args[0]) if len(test.args) == 1 else None
            if texts is not None and not test.keywords:
                return ItemTest(kind, texts, method)
        return None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.In | ast.NotIn) and subject(right):
        texts = _strings(left)
        if texts is not None and len(texts) == 1:
            return ItemTest(kind, texts, "in", truth=isinstance(op, ast.In))
    return None


def integer_literal(node: ast.expr) -> int | None:
    """An integer literal, ``-1`` too."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _found(node: ast.expr, spells: Callable[[ast.expr], bool]) -> str | None:
    """The text of ``name.find("Conv")`` when ``name`` spells the class name."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    if node.func.attr != "find" or not spells(node.func.value) or node.keywords:
        return None
    texts = _strings(node.args[0]) if len(node.args) == 1 else None
    return texts[0] if texts is not None and len(texts) == 1 else None


def _isinstance(args: list[ast.expr], item: str) -> ItemTest | None:
    """``isinstance(m, nn.Linear)``, ``isinstance(m, (nn.Conv2d, nn.Linear))``; of a
    module the item holds, ``isinstance(m.proj[-1], nn.Linear)``."""
    path = module_path(args[0])
    if not path or path[0] != item:
        return None
    kinds = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
    names = tuple(dotted(k) for k in kinds)
    if not names or not all(names):
        return None
    return ItemTest("isinstance", names, part=".".join(path[1:]))


def _exact_type(test: ast.expr, item: str) -> ItemTest | None:
    """``type(m) in {nn.Conv2d, nn.Linear}``, ``type(m) is nn.Linear`` (``==``; ``not in``,
    ``is not`` and ``!=`` negated): the item's own class is one of those named."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if not isinstance(left, ast.Call) or not isinstance(left.func, ast.Name):
        return None
    if left.func.id != "type" or len(left.args) != 1 or left.keywords:
        return None
    if not _is(left.args[0], item):
        return None
    if isinstance(op, ast.In | ast.NotIn):
        if not isinstance(right, ast.Set | ast.Tuple | ast.List):
            return None
        kinds = right.elts
    elif isinstance(op, ast.Is | ast.IsNot | ast.Eq | ast.NotEq):
        kinds = [right]
    else:
        return None
    names = tuple(dotted(k) for k in kinds)
    if not names or not all(names):
        return None
    return ItemTest("type", names, truth=isinstance(op, ast.In | ast.Is | ast.Eq))


def _reads_dims(node: ast.expr, item: str) -> bool:
    """``p.dim()``, ``p.ndimension()``, ``p.ndim``, ``len(p.shape)``, ``len(p.size())``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in _DIM_METHODS and not node.args and _is(node.func.value, item)
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim" and _is(node.value, item)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        if len(node.args) != 1:
            return False
        arg = node.args[0]
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and not arg.args:
            return arg.func.attr == "size" and _is(arg.func.value, item)
        return isinstance(arg, ast.Attribute) and arg.attr == "shape" and _is(arg.value, item)
    return False


def _strings(node: ast.expr) -> tuple[str, ...] | None:
    """A string literal, or a tuple of them."""
    nodes = node.elts if isinstance(node, ast.Tuple) else [node]
    out = tuple(n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return out if out and len(out) == len(nodes) else None


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name

"""One function body read into its ordered effects (``FunctionReader``): statement by
statement, under the guards of the ``if``s and loops around each, with the call forms that
set up state (``register_buffer``, ``super().__init__``, a container filled, a field
stored)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from initlint.facts.aliases import (
    ReplaceNames,
    part_name_candidates,
    self_path,
    without_part_aliases,
)
from initlint.facts.effect_log import EffectLog, is_name, names_loaded, without_docstring
from initlint.facts.expressions import UNKNOWN_COND, dotted, root_name, span_of, to_cond, to_expr
from initlint.facts.local_uses import followed_names, uses_in, whole_part_fill
from initlint.facts.model import Cond, Effect, Expr
from initlint.facts.passes import (
    FILLING_METHODS,
    INIT_FILLS,
    TENSOR_WALKS,
    VISIT,
    fill_helpers,
    filled_tensor,
    inline_fills,
    integer_literal,
    is_fill_diagonal,
    item_calls,
    nested_visit,
    numbered_path,
    only_initialises,
    pass_fills,
)
from initlint.facts.reads import MODULE_WALKS
from initlint.facts.strict import closes_over
from initlint.facts.walk import SCOPES, children, own_nodes
from initlint.records import dataclass

LOOP_COND = Cond("unknown", name="loop")


@dataclass(frozen=True)
class LoopBinding:
    """A name a loop binds (``loop_bindings``): bound again (``rebinds``: a local, a loop
    variable, an import) or changed (``n += 1``, ``kwargs.pop(k)``), under ``guard``."""

    name: str
    rebinds: bool
    guard: tuple[Cond, ...]


def loop_bindings(effects: tuple[Effect, ...]) -> dict[int, list[LoopBinding]]:
    """The names each loop binds (``Effect.loops``), in its body or a loop inside it."""
    out: dict[int, list[LoopBinding]] = {}
    for e in effects:
        if e.loops and (
            e.kind in ("local", "import") or (e.kind == "objattr" and "." not in e.name)
        ):
            binding = LoopBinding(e.name, e.kind != "objattr", e.guard)
            for loop in e.loops:
                out.setdefault(loop, []).append(binding)
    return out


def loop_entries(effect: Effect) -> list[tuple[int, tuple[Cond, ...]]]:
    """Each loop around ``effect`` with the guard the loop itself runs under."""
    out = []
    at = 0
    for loop in effect.loops:
        try:
            at = effect.guard.index(LOOP_COND, at)
        except ValueError:
            break  # (an effect recorded without its guard: no loop to enter)
        out.append((loop, effect.guard[:at]))
        at += 1
    return out


# Methods that put a value into a container held in a self attribute (a "mutate" effect).
MUTATORS = frozenset("append extend insert add update setdefault add_module".split())
# Methods that change the object a local name holds in place (an "objattr" effect on the
# name: ``rope_scaling.update(...)`` makes a later call with ``rope_scaling`` another one).
# The last names of the functions that write a file or make a folder at a path they are
# given (``torch.save``, ``np.save``, ``os.makedirs``): a call of one is recorded as a
# ``write`` (the simulation's library knowledge says which function it is).
WRITING_NAMES = frozenset(
    """save savez savez_compressed save_file makedirs mkdir copy copy2 copyfile move
    urlretrieve""".split()
)
IN_PLACE = MUTATORS | frozenset("pop popitem clear remove discard __setitem__".split())
IN_PLACE |= frozenset({"resize_", "resize_as_", "set_"})  # (a tensor given another size)
# torch's initialisations that compute a tensor's fans, and raise for one of fewer than two
# dimensions.
FAN_INITS = frozenset(
    """kaiming_normal_ kaiming_uniform_ xavier_normal_ xavier_uniform_ orthogonal_""".split()
)


def call_positional(call: ast.Call) -> list[ast.expr]:
    """The positional arguments of ``call``, a starred one as given."""
    return [a.value if isinstance(a, ast.Starred) else a for a in call.args]


# How many names a loop over names written out may walk to be read once per name.
MAX_NAMES_WRITTEN_OUT = 16


def _names_written_out(stmt: ast.stmt) -> tuple[str, ...] | None:
    """The names a plain ``for`` walks when its head is a tuple or list of strings written
    out (``for name in ("a", "b")``), its target one name, and nothing in its body leaves
    the loop early or rebinds that name (no ``break``, ``continue``, ``else``); None for any
    other loop."""
    if not isinstance(stmt, ast.For) or stmt.orelse or not isinstance(stmt.target, ast.Name):
        return None
    if not isinstance(stmt.iter, ast.Tuple | ast.List):
        return None
    items = stmt.iter.elts
    if not items or len(items) > MAX_NAMES_WRITTEN_OUT:
        return None
    if not all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return None
    target = stmt.target.id
    for node in (n for part in stmt.body for n in ast.walk(part)):
        if isinstance(node, ast.Break | ast.Continue):
            return None
        if isinstance(node, ast.Name) and node.id == target and not isinstance(node.ctx, ast.Load):
            return None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            return None  # (a closure sees the name's last value, not each)
    return tuple(i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str))


# What may rebind a name, change a test's outcome, or write through an alias of what the
# object holds: a body holding one of these is not written out once per item.
_BRANCHES = (ast.If, ast.IfExp, ast.While, ast.Assert, ast.Match, ast.BoolOp, ast.Try)
_EXITS = (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Global, ast.Nonlocal)
_WRITING_CALLS = frozenset(
    """setattr delattr __setattr__ __delattr__ exec eval vars update __setitem__ __delitem__
    pop popitem setdefault clear""".split()
)


def _held_written_out(stmt: ast.stmt, self_name: str) -> list[ast.expr] | None:
    """The items a plain ``for`` walks when its head is a tuple or list written out of what
    the object holds, by attribute (``for m in (self.blocks, self.head): m.apply(init)``),
    its target one name, and its body can make no item's turn differ from writing it out:
    no test or branch of any kind (the item's class is not decided there), no early exit,
    no binding of the loop's name (by a store, ``except ... as``, an import or a ``match``
    capture), no function, lambda or class, no mention of the object or ``super``, no store
    to an attribute or item of anything, no call that writes through a name
    (``_WRITING_CALLS``), and no loop it would write out too. The loop is then those items'
    bodies in order (``_unrolled``). None for any other loop."""
    if not self_name or not isinstance(stmt, ast.For) or stmt.orelse:
        return None
    if not isinstance(stmt.target, ast.Name) or not isinstance(stmt.iter, ast.Tuple | ast.List):
        return None
    items = stmt.iter.elts
    if not items or len(items) > MAX_NAMES_WRITTEN_OUT:
        return None
    if not all(self_path(i, self_name) and dotted(i) for i in items):
        return None
    target = stmt.target.id
    for node in (n for part in stmt.body for n in ast.walk(part)):
        if isinstance(node, _BRANCHES + _EXITS):
            return None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            return None  # (a closure sees the name's last value, not each)
        if isinstance(node, ast.Name):
            if node.id in (self_name, "super") or (
                node.id == target and not isinstance(node.ctx, ast.Load)
            ):
                return None
        elif isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            if not isinstance(node.ctx, ast.Load):
                return None
        elif isinstance(node, ast.Delete | ast.Import | ast.ImportFrom | ast.ExceptHandler):
            return None
        elif isinstance(node, ast.MatchAs | ast.MatchStar | ast.MatchMapping):
            return None
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple | ast.List):
            return None  # (written out too, its copies would multiply)
        elif isinstance(node, ast.Call) and _method_name(node) in _WRITING_CALLS:
            return None
    return list(items)


def _containers_walked(head: ast.expr, self_name: str) -> list[ast.expr] | None:
    """The attributes of the object a loop head walks the items of, in turn: ``self.a``
    itself, ``list(self.a)`` or ``tuple(self.a)``, ``[*self.a, *self.b]``, ``a + b`` of
    such heads and ``itertools.chain(self.a, self.b)``; None for any other head."""
    if self_path(head, self_name) and dotted(head):
        return [head]
    if isinstance(head, ast.BinOp) and isinstance(head.op, ast.Add):
        left = _containers_walked(head.left, self_name)
        right = _containers_walked(head.right, self_name)
        return None if left is None or right is None else left + right
    if isinstance(head, ast.List | ast.Tuple) and head.elts:
        if not all(isinstance(e, ast.Starred) for e in head.elts):
            return None
        starred = [e.value for e in head.elts if isinstance(e, ast.Starred)]
        return _walked_in_turn(starred, self_name)
    if not isinstance(head, ast.Call) or head.keywords or not head.args:
        return None
    if any(isinstance(a, ast.Starred) for a in head.args):
        return None
    called = dotted(head.func)
    if called in ("list", "tuple") and len(head.args) == 1:
        return _containers_walked(head.args[0], self_name)
    if called == "itertools.chain":
        return _walked_in_turn(head.args, self_name)
    return None


def _walked_in_turn(heads: list[ast.expr], self_name: str) -> list[ast.expr] | None:
    out: list[ast.expr] = []
    for h in heads:
        part = _containers_walked(h, self_name)
        if part is None:
            return None
        out += part
    return out


def _loop_level(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of ``stmt`` a ``break`` among would end the loop around it (not those of a
    loop, function or class inside it)."""
    yield stmt
    for child in ast.iter_child_nodes(stmt):
        if not isinstance(child, (ast.For, ast.AsyncFor, ast.While, *SCOPES)):
            yield from _loop_level(child) if isinstance(child, ast.stmt) else ast.walk(child)


def _unrolled(stmt: ast.For, items: list[ast.expr]) -> list[ast.stmt]:
    """The statements a loop over ``items`` written out runs (``_held_written_out``): for
    each item, the body with the loop's name read as it."""
    assert isinstance(stmt.target, ast.Name)  # (``_held_written_out``)
    out: list[ast.stmt] = []
    for item in items:
        named = ReplaceNames({stmt.target.id: item})
        out.extend(named.visit(copy.deepcopy(b)) for b in stmt.body)
    return out


class _Inline(ast.NodeTransformer):
    """Each statement ``inline`` gives a body for replaced by that body (not in nested
    functions or classes: their statements run when they are called). ``inline`` is told
    the names the loops around the statement bind."""

    def __init__(self, inline: Callable[[ast.stmt, frozenset[str]], list[ast.stmt] | None]):
        self.inline = inline
        self.loop_names: frozenset[str] = frozenset()

    def visit_For(self, node: ast.For) -> ast.AST:
        outer = self.loop_names
        names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        self.loop_names = outer | names
        node.body = [s for b in node.body for s in _as_list(self.visit(b))]
        self.loop_names = outer
        node.orelse = [s for b in node.orelse for s in _as_list(self.visit(b))]
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        body = self.inline(node, self.loop_names)
        return node if body is None else body

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


def _as_list(node: ast.AST | list[ast.stmt]) -> list[ast.stmt]:
    if isinstance(node, list):
        return node
    assert isinstance(node, ast.stmt)  # (a statement stays one, or a list of them)
    return [node]


def _plain_argument(arg: ast.expr) -> bool:
    """A name, an attribute or item (by a constant key) of one, or a constant: the same
    value however often it is read."""
    while isinstance(arg, ast.Attribute | ast.Subscript):
        key = arg.slice if isinstance(arg, ast.Subscript) else None
        if key is not None and not isinstance(key, ast.Constant) and integer_literal(key) is None:
            return False  # (``0``, ``-1`` and ``"q"`` pick the same item at every read)
        arg = arg.value
    return isinstance(arg, ast.Name | ast.Constant)


def _with_constant(body: list[ast.stmt], target: ast.expr, value: str) -> list[ast.stmt]:
    """A copy of ``body`` with the loop's name (``target``) read as ``value`` throughout."""
    assert isinstance(target, ast.Name)  # (``_names_written_out``)
    named = ReplaceNames({target.id: ast.Constant(value)})
    return [named.visit(copy.deepcopy(stmt)) for stmt in body]


def _own_method(func: ast.expr, self_name: str, method: str) -> bool:
    """Whether ``func`` is ``self.<method>``, the object's own method named so."""
    return (
        bool(self_name)
        and isinstance(func, ast.Attribute)
        and func.attr == method
        and is_name(func.value, self_name)
    )


def _walk_of(head: ast.expr) -> tuple[str, ast.expr] | None:
    """The walk a loop's head makes, and over what: ``self.layers.modules()`` ->
    ("modules", ``self.layers``); a held container iterated itself, ``self.layers`` or
    ``self.transformer.h``, walks its children (a ``ModuleList``'s items). None for any
    other head."""
    if isinstance(head, ast.Call) and isinstance(head.func, ast.Attribute):
        return head.func.attr, head.func.value
    if isinstance(head, ast.Attribute) and dotted(head):
        return "children", head
    return None


class FunctionReader(EffectLog):
    """Turns one function body into its ordered effects."""

    def read(self) -> tuple[Effect, ...]:
        # (``lm = self.vlm.language_model``, then ``del lm.model.decoder``: read as the part)
        self.fn = without_part_aliases(self.fn, self.self_name)
        nodes = own_nodes(self.fn)
        self.nodes = nodes
        self.built = followed_names(self.fn, self.self_name, nodes)
        self.part_names = part_name_candidates(self.self_name, nodes)
        self.defined_once = _defined_once(nodes)
        self.unnumbered = _unnumbered_bindings(nodes)
        # names that may hold a value a test reads: its parameters and names it assigns
        self.assigned = {p.name for p in self.params} | {
            n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        # nested functions that only fill parts of their first argument, by name
        self.fillers: dict[str, ast.FunctionDef] = {}
        if self.part_names:
            self.params = tuple(
                replace(p, part_name=True) if p.name in self.part_names else p for p in self.params
            )
        # local -> the whole fills of its tensors since it was bound (``carry_fills``)
        self.local_fills: dict[str, list[Effect]] = {}
        self.walk_bindings = self._walk_bindings()
        for i, stmt in enumerate(self.fn.body):
            self.stmt_index = i
            self.top = (stmt.lineno, isinstance(stmt, ast.With | ast.AsyncWith))
            if not self.fillers or isinstance(stmt, ast.FunctionDef | ast.ClassDef):
                self._stmt(stmt, ())
                continue
            self._block(_as_list(_Inline(self._filler_call).visit(copy.deepcopy(stmt))), ())
        self._visits()
        return self.finish()

    # -- statements --------------------------------------------------------------------
    def _block(self, body: Sequence[ast.stmt], guard: tuple[Cond, ...]) -> None:
        for stmt in body:
            self._stmt(stmt, guard)

    def _stmt(self, stmt: ast.stmt, guard: tuple[Cond, ...]) -> None:
        """One statement: a compound one's parts under their guards, a nested def's effect on
        strictness, any other through ``_simple_stmt``."""
        if self.unnumbered:
            # ``(augs := read(path))`` (an ``and`` may stop before it), ``def hook(x):``,
            # a closure's ``nonlocal augs``: the name is bound to a value not followed
            self._rebound(_walrus_targets(stmt) + _defined_names(stmt), guard, stmt)
        if isinstance(stmt, ast.If):
            self.touch([stmt.test], guard, stmt, None)
            self._local_uses(stmt.test, guard, stmt)
            self.calls_in(stmt.test, guard, stmt)
            cond = to_cond(stmt.test)
            self._block(stmt.body, (*guard, cond))
            if stmt.orelse:
                self._block(stmt.orelse, (*guard, Cond("not", (cond,))))
            return
        names = _names_written_out(stmt)
        if names is not None:
            # ``for name in ("q_proj", "k_proj"): delattr(self, name)``: the body runs once
            # per name, in order, as if written out with each
            assert isinstance(stmt, ast.For)  # (``_names_written_out``)
            self.touch([stmt.iter], guard, stmt, None)
            for name in names:
                self._block(_with_constant(stmt.body, stmt.target, name), guard)
            return
        if isinstance(stmt, ast.Assign) and (stmt.lineno, stmt.col_offset) in self.walk_bindings:
            return
        walks = self._walks_in_turn(stmt)
        if walks is not None:
            # ``for b in list(self.down) + list(self.up): init(b.proj.weight)``: a loop over
            # the items of each container in turn
            self._block(walks, guard)
            return
        held = _held_written_out(stmt, self.self_name)
        if held is not None:
            # ``for m in (self.blocks, self.head): m.apply(init)``: the body runs once per
            # item, in order, as if written out with each
            assert isinstance(stmt, ast.For)  # (``_held_written_out``)
            self._block(_unrolled(stmt, held), guard)
            return
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            head = stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test
            heads: list[ast.AST] = [head]
            if isinstance(stmt, ast.For | ast.AsyncFor):
                heads.append(stmt.target)
            self.touch(heads, guard, stmt, None)
            self._local_uses(head, guard, stmt)
            if self._initialisation_pass(stmt):
                assert isinstance(stmt, ast.For)  # (``_initialisation_pass``)
                self._pass(stmt, guard)
            else:
                self.calls_in(head, guard, stmt)
                if self._initialisation_pass(stmt, relaxed=True):
                    # (locals or the object's settings on the way: a pass all the same,
                    # its walk still a call)
                    assert isinstance(stmt, ast.For)
                    self._pass(stmt, guard)
                elif isinstance(stmt, ast.For):
                    # (a method run over what it walks: the head stays a call of the
                    # object's, ``self.modules()`` yielding the object itself first)
                    self._reruns(stmt, guard)
            outer = self.loops
            self.loops_read += 1
            self.loops = (*outer, self.loops_read)
            if isinstance(stmt, ast.For | ast.AsyncFor):
                self._loop_target(stmt.target, head, (*guard, LOOP_COND), stmt)
            self._block(stmt.body, (*guard, LOOP_COND))
            self._block(stmt.orelse, (*guard, LOOP_COND))
            self.loops = outer
            return
        if isinstance(stmt, ast.With | ast.AsyncWith):
            self.stmt_span = span_of(stmt)
            self.touch(list(stmt.items), guard, stmt, None)
            for item in stmt.items:
                self._local_uses(item.context_expr, guard, stmt)
                if isinstance(item.optional_vars, ast.Name):
                    self._assign([item.optional_vars], item.context_expr, guard, stmt)
                else:
                    self.calls_in(item.context_expr, guard, stmt)
            self.protect += 1  # its context manager may swallow an exception
            self._block(stmt.body, guard)
            self.protect -= 1
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.protect += 1
            self._block(stmt.body, guard)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                if handler.name:
                    self._rebound([handler.name], (*guard, UNKNOWN_COND), stmt)
                self._block(handler.body, (*guard, UNKNOWN_COND))
            self._block(stmt.orelse, guard)  # type: ignore[attr-defined]
            self.protect -= 1
            self._block(stmt.finalbody, guard)  # type: ignore[attr-defined]
            return
        if isinstance(stmt, ast.Match):
            self.touch([stmt.subject], guard, stmt, None)
            self._local_uses(stmt.subject, guard, stmt)
            self.calls_in(stmt.subject, guard, stmt)
            for case in stmt.cases:
                self._rebound(_captures(case), (*guard, UNKNOWN_COND), stmt)
                self._block(case.body, (*guard, UNKNOWN_COND))
            return
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self._local_uses(stmt, guard, stmt)  # (a mention there hands the object on)
            if isinstance(stmt, ast.FunctionDef) and stmt.name in self.defined_once:
                self._nested_visits(stmt)
                if self._only_fills(stmt):
                    self.fillers[stmt.name] = stmt
            if self.strict and closes_over([stmt], self.self_name):
                self.strict = False  # calling it may set attributes: no read is strict now,
                for i, e in enumerate(self.effects):  # nor earlier in its statement (a loop)
                    if e.stmt == self.stmt_index and e.strict:
                        self.effects[i] = replace(e, strict=frozenset())
            return
        self._simple_stmt(stmt, guard)

    def _rebound(self, names: list[str], guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        """A ``local`` effect, under an undecided guard, for each of ``names`` the function
        may otherwise read a value of, bound where its effects follow no value."""
        for name in names:
            if name in self.assigned:
                self.add("local", stmt, (*guard, UNKNOWN_COND), name=name)

    def _only_fills(self, fn: ast.FunctionDef) -> bool:
        """Whether ``fn`` (defined in this function) takes plain positional parameters and
        does nothing but fill parts of its first (``def _zero(module, value): ...``)."""
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or fn.decorator_list:
            return False
        body = without_docstring(fn.body)
        first = {args.args[0].arg} if args.args else set()
        return bool(first and body) and only_initialises(
            body, first, self.self_name, True, relaxed=True
        )

    def _filler_call(self, stmt: ast.stmt, loop_names: frozenset[str]) -> list[ast.stmt] | None:
        """``_zero(block.proj[-1], 0)`` as a statement, where ``_zero`` is one of this
        function's fillers (``_only_fills``): its body with each parameter read as the
        argument given for it (or its default), at the call's line, as if written there;
        None for any other statement, or arguments that are more than names, attributes,
        items by constant keys and constants (evaluated once by the call, not per use).
        A filler that tests what it is handed (``if isinstance(module, nn.Linear):``) is
        written out only over an item of a loop around it (``loop_names``), whose tests a
        pass decides; elsewhere its test would stay undecided."""
        if not isinstance(stmt, ast.Expr) or not isinstance(call := stmt.value, ast.Call):
            return None
        fn = self.fillers.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if fn is None or call.keywords or not all(map(_plain_argument, call.args)):
            return None
        tested = any(isinstance(n, ast.If) for n in ast.walk(fn))
        if tested and (not call.args or root_name(call.args[0]) not in loop_names):
            return None
        params = [a.arg for a in fn.args.args]
        defaults = fn.args.defaults
        given: dict[str, ast.expr] = dict(zip(params, call.args, strict=False))
        for name, default in zip(params[len(params) - len(defaults) :], defaults, strict=True):
            given.setdefault(name, default)
        if len(call.args) > len(params) or len(given) != len(params):
            return None
        body = [ReplaceNames(given).visit(copy.deepcopy(s)) for s in without_docstring(fn.body)]
        for s in body:
            for node in ast.walk(s):
                if isinstance(node, ast.stmt | ast.expr):
                    ast.copy_location(node, stmt)
        return body

    def _local_uses(
        self, node: ast.AST, guard: tuple[Cond, ...], stmt: ast.stmt, statement: bool = False
    ) -> None:
        """A ``local_use`` effect for each mention in ``node`` of a local the function built
        by a call, or of a parameter of its ``__init__`` whose parts it reads
        (``local_uses.py``)."""
        if not self.built:
            return
        for name, how, detail in uses_in(node, self.built, statement):
            self.add("local_use", stmt, guard, name=name, target=how, detail=detail)

    def _initialisation_pass(self, stmt: ast.stmt, relaxed: bool = False) -> bool:
        """``for m in self.modules(): nn.init...(m.weight)``: a walk over the object that
        only initialises what it walks in place. It uses no value the object holds (a build
        later thrown away is not used by it), so its head is no call of the object's: the
        loop's own effects say what it does."""
        if not isinstance(stmt, ast.For) or stmt.orelse or not self.self_name:
            return False
        walk = _walk_of(stmt.iter)
        if walk is None or walk[0] not in MODULE_WALKS or root_name(walk[1]) != self.self_name:
            return False
        names = {n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)}
        # (a held container iterated itself, ``for w in self.weights``, yields what it holds:
        # an item filled whole is a tensor there, a ``ParameterList``'s)
        modules = walk[0] not in TENSOR_WALKS and isinstance(stmt.iter, ast.Call)
        return only_initialises(stmt.body, names, self.self_name, modules, relaxed)

    def _pass(self, stmt: ast.For, guard: tuple[Cond, ...]) -> None:
        """A ``pass`` effect for each fill of an initialisation pass (``_initialisation_pass``)
        whose tests on the item are understood: name = the walk (``parameters``), detail = the
        ``self`` attribute walked ("" for the object), target = the part of each item filled
        ("" for the item itself)."""
        walk = _walk_of(stmt.iter)
        assert walk is not None  # (``_initialisation_pass``)
        if isinstance(stmt.iter, ast.Call) and (stmt.iter.args or stmt.iter.keywords):
            return  # (``recurse=False``, ``prefix=``: another walk than the one read here)
        scope = dotted(walk[1]).split(".")[1:]
        if not dotted(walk[1]):
            return  # (``self.layers[0].parameters()``: not read)
        target = stmt.target
        bound = target.elts if isinstance(target, ast.Tuple) else [target]  # (``for n, p``)
        names = [n.id for n in bound if isinstance(n, ast.Name)]
        if len(names) != len(bound) or len(names) > 2:
            return
        item, name = names[-1], names[0] if len(names) == 2 else ""
        detail = ".".join(scope)  # (``self.transformer.h``: "transformer.h")
        for fill, part, tests in pass_fills(stmt.body, item, name):
            if "." in part and walk[0] in TENSOR_WALKS:
                continue  # (a tensor walked holds no modules: ``p.attn.bias`` is no part)
            # (at the fill's line, in the loop's statement: the loop head's own reads are
            # the pass's)
            self.add(
                "pass",
                stmt,
                guard,
                node=fill,
                name=walk[0],
                detail=detail,
                target=part,
                tests=tests,
            )

    def _reruns(self, stmt: ast.For, guard: tuple[Cond, ...]) -> None:
        """``for layer in self.layers: layer.reset_parameters()``, ``for m in
        self.modules(): if isinstance(m, Attn): m.init_weights()``: a loop over the modules
        the object holds that only calls a method of each with no arguments. A
        ``rerun_each`` effect per call; nothing for any other loop."""
        if stmt.orelse or not self.self_name or not isinstance(stmt.target, ast.Name):
            return
        head = stmt.iter
        if isinstance(head, ast.Call) and isinstance(head.func, ast.Attribute):
            if head.args or head.keywords or head.func.attr not in ("modules", "children"):
                return
            walk, path = head.func.attr, dotted(head.func.value).split(".")
        else:
            walk, path = "iter", dotted(head).split(".")
        if path[0] != self.self_name or len(path) > 2 or (walk == "iter" and len(path) != 2):
            return
        calls = item_calls(stmt.body, stmt.target.id)
        if calls is None:
            return
        scope = path[1] if len(path) == 2 else ""
        for call, method, tests in calls:
            self.add(
                "rerun_each",
                stmt,
                guard,
                node=call,
                name=method,
                detail=scope,
                target=walk,
                tests=tests,
            )

    def _state_load(self, value: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        """``self.load_state_dict(sd)`` (or a held module's, ``self.encoder.load_state_dict``),
        strict as by default: it copies new numbers into every parameter, or raises. A
        ``pass`` effect named ``load_state_dict`` (detail: the attribute loaded, "" for the
        object), with no tests; ``strict=False`` or ``assign=True`` claims nothing."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
            return
        if value.func.attr != "load_state_dict" or len(value.args) != 1 or not self.self_name:
            return
        if isinstance(value.args[0], ast.Starred) or self.protect > 0:
            return  # (other arguments, or a load whose failure is caught: the fills stay)
        if any(_state_read(n) for n in ast.walk(value.args[0])):
            return  # (``self.load_state_dict(self.state_dict())``: the numbers go back in)
        if any(k.arg != "strict" or not _is_true(k.value) for k in value.keywords):
            return
        path = dotted(value.func.value).split(".")
        if path[0] != self.self_name or len(path) > 2:
            return
        scope = path[1] if len(path) == 2 else ""
        self.add("pass", stmt, guard, node=value, name="load_state_dict", detail=scope)

    def _visits(self) -> None:
        """A function that does nothing but fill parts of its first argument (a method's
        first after ``self``), as ``module.apply(fn)`` has it do to each module: a ``pass``
        effect with detail ``visit`` for each of those fills, after the function's own
        effects. Running the function as a call does not apply them; ``apply`` does, with
        one argument: parameters after it with defaults keep them (``init_weights(m,
        mean=0.0, std=0.01)``)."""
        first = 1 if self.self_name else 0
        positional = [p for p in self.params if p.kind in ("posonly", "pos")]
        required = [p for p in positional if not p.has_default]
        if len(positional) <= first or len(required) != first + 1 or positional[first].has_default:
            return
        self._visitor_fills(self.fn, positional[first].name, VISIT)

    def _nested_visits(self, fn: ast.FunctionDef) -> None:
        """A function defined in this one, and bound by that ``def`` alone, that does nothing
        but fill parts of its one argument (``def _basic_init(m): ...`` before
        ``self.apply(_basic_init)``): its fills, as ``_visits`` gives a function's own, with
        detail ``visit:<its name>``. ``apply`` given the name runs them; nothing else does."""
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            return
        if len(args.args) != 1 or fn.decorator_list:
            return
        self._visitor_fills(fn, args.args[0].arg, nested_visit(fn.name))

    def _visitor_fills(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, item: str, detail: str
    ) -> None:
        """The ``pass`` effects (of ``detail``) of ``fn`` where it does nothing but fill parts
        of its argument ``item``."""
        body = without_docstring(fn.body)
        helpers = fill_helpers(fn)  # (``def normal_(data): ...`` defined in it)
        if helpers:
            body = inline_fills(body, helpers)
        if not body or not only_initialises(body, {item}, self.self_name, True, relaxed=True):
            return
        for fill, part, tests in pass_fills(body, item, ""):
            self.add("pass", fill, (), name="apply", detail=detail, target=part, tests=tests)

    def _simple_stmt(self, stmt: ast.stmt, guard: tuple[Cond, ...]) -> None:
        """A statement with no body of its own: an expression, an assignment, a ``return``,
        a ``del``, an augmented assignment..."""
        self.stmt_span = span_of(stmt)
        skip = stmt.value if isinstance(stmt, ast.Expr) else None
        self.touch([stmt], guard, stmt, skip)
        # (an expression statement's call result is unused: ``net.eval()`` keeps ``net``)
        self._local_uses(skip or stmt, guard, stmt, statement=skip is not None)
        if isinstance(stmt, ast.Expr):
            self._expr_stmt(stmt.value, guard, stmt)
            self._state_load(stmt.value, guard, stmt)
        elif isinstance(stmt, ast.Assign):
            self._assign(stmt.targets, stmt.value, guard, stmt)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign([stmt.target], stmt.value, guard, stmt)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self.calls_in(stmt.value, guard, stmt)
                self.use(stmt.value, None)
                self.add("return", stmt, guard, value=to_expr(stmt.value))
            else:  # a bare ``return``: it ends the function all the same
                self.add("return", stmt, guard)
        elif isinstance(stmt, ast.Raise):
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.calls_in(child, guard, stmt)
                    self.use(child, None)
            self.add("raise", stmt, guard)  # the path ends here: nothing after it runs
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                module = alias.name if alias.asname else alias.name.partition(".")[0]
                local = alias.asname or module
                self.add("import", stmt, guard, name=local, target=module)
        elif isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                local = alias.asname or alias.name
                self.add("import", stmt, guard, name=local, target=module, detail=alias.name)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                key = self.kwargs_key(target)
                if key is not None:
                    self.add("pop", stmt, guard, name=key)
                elif attr := self.self_attr(target):
                    # ``del self.x``: x exists here (or this raises), so whatever built it ran
                    # (``del self.norm, self.head`` drops two builds: each at its target)
                    at = target if len(stmt.targets) > 1 else None
                    self.add("delete", stmt, guard, name=attr, node=at)
                elif isinstance(target, ast.Attribute):
                    # ``del net.wpe``, ``del self.gpt.wpe``: the part is dropped, as storing
                    # None there drops it (``target`` "del" says which it was)
                    self._store_elsewhere(target, _NONE, set(), guard, stmt, dropped=True)
        else:
            if isinstance(stmt, ast.AugAssign):
                root = root_name(stmt.target)
                if root and root != self.self_name:  # n *= 2, scaling["factor"] += 1
                    # ``discs += [MPD(p) for p in periods]`` fills the list as ``extend`` does
                    added = isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name)
                    fill = to_expr(stmt.value) if added else None
                    self.add("objattr", stmt, guard, name=root, value=fill)
                else:
                    self._added_items(stmt, guard)
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.calls_in(child, guard, stmt)
                    self.use(child, None)

    def _added_items(self, stmt: ast.AugAssign, guard: tuple[Cond, ...]) -> None:
        """``self.layers += [block]``: each item written out goes into the container held in
        ``self.layers``, as ``self.layers.append(block)`` puts it there (a "mutate" effect
        per item)."""
        attr = self.self_attr(stmt.target)
        items = stmt.value
        if not attr or not isinstance(stmt.op, ast.Add):
            return
        if not isinstance(items, ast.List | ast.Tuple) or not items.elts:
            return
        if any(isinstance(item, ast.Starred) for item in items.elts):
            return
        for item in items.elts:
            self.add("mutate", stmt, guard, name=attr, value=to_expr(item), node=item, target="+=")

    def _walks_in_turn(self, stmt: ast.stmt) -> list[ast.stmt] | None:
        """A plain ``for`` (no ``else``, no ``break``) whose head walks the items of several
        containers the object holds one after another (``_containers_walked``), itself or
        through a local bound to it once and read only there (``blocks = list(self.a) +
        list(self.b)``; ``for block in blocks:``): one loop per container, in order, each
        with the same body; it runs the same statements over the same items. None for any
        other loop, and for a head that is the one container itself."""
        if not self.self_name or not isinstance(stmt, ast.For) or stmt.orelse:
            return None
        head = stmt.iter
        if isinstance(head, ast.Name):
            binding = self._bound_once(head.id, stmt)
            if binding is None:
                return None
            head = binding.value
        parts = _containers_walked(head, self.self_name)
        if parts is None or parts == [stmt.iter]:
            return None
        if any(isinstance(n, ast.Break) for b in stmt.body for n in _loop_level(b)):
            return None
        loops: list[ast.stmt] = []
        for part in parts:
            loop = ast.For(
                target=copy.deepcopy(stmt.target),
                iter=copy.deepcopy(part),
                body=copy.deepcopy(stmt.body),
                orelse=[],
                type_comment=None,
            )
            loops.append(ast.copy_location(loop, stmt))
        return loops

    def _bound_once(self, name: str, loop: ast.For) -> ast.Assign | None:
        """The one plain assignment just before ``loop`` that binds the local ``name`` (no
        statement between them: the containers it lists are still those the loop walks),
        when nothing else does and ``loop``'s head is its only read; None otherwise."""
        binding: ast.Assign | None = None
        stores = reads = 0
        for node in self.nodes:
            if isinstance(node, ast.Name) and node.id == name:
                if isinstance(node.ctx, ast.Load):
                    reads += 1
                else:
                    stores += 1
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id == name:
                    binding = node
            elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
                return None
        if binding is None or stores != 1 or reads != 1 or binding.lineno >= loop.lineno:
            return None
        end = binding.end_lineno or binding.lineno
        if any(
            isinstance(n, ast.stmt) and end < n.lineno < loop.lineno and n is not loop
            for n in self.nodes
        ):
            return None
        return binding

    def _walk_bindings(self) -> set[tuple[int, int]]:
        """Where the locals a loop walks in turn are bound (``_walks_in_turn``): the
        assignment lists the containers and does nothing else; the loops read them."""
        out: set[tuple[int, int]] = set()
        for node in self.nodes:
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Name):
                binding = self._bound_once(node.iter.id, node)
                if binding is not None and self._walks_in_turn(node) is not None:
                    out.add((binding.lineno, binding.col_offset))
        return out

    def _loop_target(
        self, target: ast.expr, head: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt
    ) -> None:
        """``for row in frame:``: each name the loop binds holds a part of ``frame``, and
        carries what building ``frame`` cost (work done into a local counts for the method)."""
        value = to_expr(head)
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.add("local", stmt, guard, name=node.id, value=value)

    def _mutation(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """``self.x.append(v)`` and its kin fill the container ``self.x`` with ``v``;
        ``self.add_module("x", v)``, ``setattr(self, "x", v)`` and ``self.__setattr__("x",
        v)`` assign attribute ``x``; ``delattr(self, "x")`` and ``self.__delattr__("x")``
        delete it."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            attr = self.self_attr(func.value)
            if attr and call.args:
                self.calls_in(call, guard, stmt)
                value = call.args[-1] if func.attr in ("insert", "add_module") else call.args[0]
                idx = self.add(
                    "mutate",
                    stmt,
                    guard,
                    name=attr,
                    value=to_expr(value),
                    node=call,
                    target=func.attr,
                )
                self.use(call, idx)
                return True
        deleted = None
        if isinstance(func, ast.Name) and func.id == "delattr" and len(call.args) == 2:
            if self.self_name and is_name(call.args[0], self.self_name):
                deleted = call.args[1]
        elif _own_method(func, self.self_name, "__delattr__") and len(call.args) == 1:
            deleted = call.args[0]
        if isinstance(deleted, ast.Constant) and isinstance(deleted.value, str):
            # ``delattr(self, "x")``, ``self.__delattr__("x")``: ``del self.x``
            self.add("delete", stmt, guard, name=deleted.value)
            return True
        named = None
        if _own_method(func, self.self_name, "add_module") or _own_method(
            func, self.self_name, "__setattr__"
        ):
            named = call.args
        elif (
            isinstance(func, ast.Name)
            and func.id == "setattr"
            and call.args
            and self.self_name
            and is_name(call.args[0], self.self_name)
        ):
            named = call.args[1:]
        if named is None or len(named) != 2:
            return False
        key = named[0]
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return False
        self.calls_in(call, guard, stmt)
        idx = self.add("assign", stmt, guard, name=key.value, value=to_expr(named[1]), node=call)
        self.use(call, idx)
        return True

    def _field_store(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """``setattr(cfg, "x", v)`` and ``object.__setattr__(cfg, "x", v)`` with a literal
        name, on a local or an argument (not ``self``): the same field store as ``cfg.x = v``
        (an ``objattr`` effect), the usual way to write a frozen config's copy."""
        func = call.func
        if isinstance(func, ast.Name) and func.id == "setattr":
            pass
        elif not (
            isinstance(func, ast.Attribute)
            and func.attr == "__setattr__"
            and isinstance(func.value, ast.Name)
            and func.value.id == "object"
        ):
            return False
        if len(call.args) != 3 or call.keywords:
            return False
        obj, key, value = call.args
        path = dotted(obj)
        if (
            not path
            or path.partition(".")[0] == self.self_name
            or not isinstance(key, ast.Constant)
            or not isinstance(key.value, str)
            or not key.value.isidentifier()
        ):
            return False
        self.calls_in(call, guard, stmt)
        self.add("objattr", stmt, guard, name=f"{path}.{key.value}", value=to_expr(value))
        self.use(call, None)
        return True

    def _expr_stmt(self, value: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        if isinstance(value, ast.Call):
            self._initialisation(value, guard, stmt)
            if (name := dotted(value.func)).rpartition(".")[2] in WRITING_NAMES:
                self.add("write", stmt, guard, name=name, args=self.call_args(value))
            handled = (
                self._special_call(value, guard, stmt)
                or self._mutation(value, guard, stmt)
                or self._field_store(value, guard, stmt)
            )
            if handled:
                return
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr == "__init__":
                holder = self.self_attr(func.value)
                if holder:  # self.a.__init__(...): the object self.a holds is set up again
                    self.calls_in(value, guard, stmt)
                    vexpr = to_expr(value)
                    self.add("nested", stmt, guard, name=holder, detail="__init__", value=vexpr)
                    self.use(value, None)
                    return
            if isinstance(func, ast.Attribute) and func.attr in IN_PLACE:
                root = root_name(func.value)
                if root and root != self.self_name:
                    # Changed in place; a container filled (``layers.append(Block())``)
                    # carries what went into it, so the name costs what it holds.
                    filled = func.attr in MUTATORS and isinstance(func.value, ast.Name)
                    fill = to_expr(value) if filled else None
                    self.add("objattr", stmt, guard, name=root, value=fill)
            elif (
                isinstance(func, ast.Name)
                and self.self_name
                and any(is_name(a, self.self_name) for a in call_positional(value))
            ):
                # A function handed the object (``initialize(self, init_type)``): what it
                # does to it is the caller's work.
                args = self.call_args(value)
                self.add("helper", stmt, guard, name=func.id, args=args)
            elif (
                isinstance(func, ast.Name)
                and filled_tensor(value) is None  # (a fill is an ``init`` effect)
                and (handed := next(filter(None, map(self._held_attr, call_positional(value))), ""))
            ):
                # A function handed an object self holds, or a part of one
                # (``kaiming_init(self.conv)``, ``glorot(self.lin.weight)``): what it does to
                # that object is the caller's work too.
                args = self.call_args(value)
                self.add("helper", stmt, guard, name=func.id, target=handed, args=args)
            elif isinstance(func, ast.Attribute) and (held := self.self_attr(func.value)):
                # A method of an object self holds, called for what it does (a quantisation
                # method creating the layer's weights): that work is the caller's cost.
                args = self.call_args(value)
                self.add("held_call", stmt, guard, name=func.attr, target=held, args=args)
            elif isinstance(func, ast.Attribute) and (item := self._held_item(func.value)):
                # A method of an item of a container self holds, ``self.decoder[0]``:
                # target ``decoder.0`` (``decoder.-1`` counts from the end).
                args = self.call_args(value)
                self.add("held_call", stmt, guard, name=func.attr, target=item, args=args)
        self.calls_in(value, guard, stmt)
        self.use(value, None)

    def _initialisation(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> None:
        """An ``init`` effect for a statement that fills a tensor in place
        (``filled_tensor``)."""
        tensor = filled_tensor(call)
        if tensor is None or not (root := root_name(tensor)):
            return
        fan = _method_name(call) in FAN_INITS
        if root == self.self_name:
            node, attr = tensor, ""
            while isinstance(node, ast.Attribute | ast.Subscript):
                attr = self.self_attr(node) or attr  # the attribute of self it is part of
                node = node.value
            # ``self.fc.bias``: a part of what self.fc holds (``.data`` is the tensor itself);
            # ``self.mlp[0].weight``: of an item of what self.mlp holds. No path where a
            # subscript picks rows of the tensor (``self.weight[0]``): not a whole fill.
            numbered = numbered_path(tensor)
            whole = bool(numbered)
            path = [p for p in numbered[1:] if p != "data"]
            if len(path) > 1 and path[0] == attr:
                attr = ".".join(path)
            if attr:
                # ``name``: the attribute again when every number of it is filled anew (no
                # rows picked out, ``self.weight[0].zero_()``; not the diagonal only; not
                # from its own numbers, ``self.weight.copy_(normalize(self.weight))``)
                rest = [a for a in call.args if a is not tensor] + [k.value for k in call.keywords]
                whole = whole and not is_fill_diagonal(call)
                held = attr.split(".")[0]  # (``self.fc.weight.copy_(f(self.fc.weight))``)
                whole = whole and not any(
                    self.self_attr(n) == held for a in rest for n in ast.walk(a)
                )
                name = attr if whole else ""
                self.add(
                    "init", stmt, guard, name=name, detail="self", target=attr, node=call, fan=fan
                )
        else:
            filled = whole_part_fill(call, frozenset({root}))
            part = filled[1] if filled is not None else ""
            path = [p for p in dotted(tensor).split(".")[1:] if p != "data"]
            rest = [a for a in call.args if a is not tensor] + [k.value for k in call.keywords]
            # (detail ``whole``: torch's fill of every number of the local itself, from
            # nothing it holds: ``nn.init.normal_(emb)``, ``emb.data.uniform_(-a, a)``)
            itself = not path and not isinstance(tensor, ast.Subscript) and _torch_fill(call)
            itself = itself and not any(is_name(n, root) for a in rest for n in ast.walk(a))
            idx = self.add(
                "init",
                stmt,
                guard,
                name=root,
                target=part,
                detail="whole" if itself else "",
                node=call,
                fan=fan,
            )
            if part:
                self.local_fills.setdefault(root, []).append(self.effects[idx])

    def _special_call(self, call: ast.Call, guard: tuple[Cond, ...], stmt: ast.stmt) -> bool:
        """register_buffer / register_parameter / super-init. Returns True when consumed."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        keyword = {k.arg: k.value for k in call.keywords if k.arg}
        named = call.args[0] if call.args else keyword.get("name")
        if (
            func.attr in ("register_buffer", "register_parameter")
            and self.self_name
            and is_name(func.value, self.self_name)
            and isinstance(named, ast.Constant)
            and isinstance(named.value, str)
        ):
            first_call = len(self.effects)
            for arg in call.args[1:]:
                self.calls_in(arg, guard, stmt)
            for kw in call.keywords:
                self.calls_in(kw.value, guard, stmt)
            inline = [
                i
                for i in range(first_call, len(self.effects))
                if self.effects[i].kind == "call" and self.effects[i].detail == "self"
            ]
            value = call.args[1] if len(call.args) > 1 else None
            if value is None:
                given = ("tensor", "param", "parameter")
                value = next((keyword[k] for k in given if k in keyword), None)
            detail = "buffer" if func.attr == "register_buffer" else "parameter"
            idx = self.add(
                "buffer",
                stmt,
                guard,
                name=named.value,
                detail=detail,
                value=to_expr(value) if value is not None else Expr("const"),
                node=call,
            )
            self.use(call, idx)
            for origin in inline:
                self.feeds.setdefault(origin, []).append(idx)
            return True
        if func.attr == "__init__":
            form, target = self._super_form(func.value)
            if form:
                args = self.call_args(call, skip_first=(form == "explicit"))
                for arg in call.args:
                    self.calls_in(arg, guard, stmt)
                for kw in call.keywords:
                    self.calls_in(kw.value, guard, stmt)
                self.add(
                    "super_init", stmt, guard, detail=form, target=target, args=args, node=call
                )
                self.use(call, None)
                return True
        return False

    def _super_form(self, node: ast.expr) -> tuple[str, str]:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
        ):
            if not node.args:
                return "super", ""
            if len(node.args) == 2 and self.self_name and is_name(node.args[1], self.self_name):
                return "super2", dotted(node.args[0])
            return "", ""
        name = dotted(node)
        if name and name != self.self_name and not name.startswith(f"{self.self_name}."):
            return "explicit", name
        return "", ""

    def _assign(
        self, targets: Sequence[ast.expr], value: ast.expr, guard: tuple[Cond, ...], stmt: ast.stmt
    ) -> None:
        first_call = len(self.effects)
        self.calls_in(value, guard, stmt)
        call_ids = {
            i
            for i in range(first_call, len(self.effects))
            if self.effects[i].kind == "call" and self.effects[i].detail == "self"
        }
        vexpr = to_expr(value)
        # ``a = b = v`` builds v once: the targets after the first get what the first holds
        # (a tuple target, its part of v)
        flat: list[tuple[ast.expr, Expr]] = []
        for n, t in enumerate(targets):
            if isinstance(t, ast.Tuple | ast.List):
                flat.extend((e.value if isinstance(e, ast.Starred) else e, vexpr) for e in t.elts)
            else:
                first = targets[0]
                same = n and isinstance(first, ast.Name | ast.Attribute)
                flat.append((t, to_expr(first) if same else vexpr))
        carried = set(call_ids)
        if self.taint:  # (no local carries a call's result yet: nothing to look for)
            for name in names_loaded(value):
                carried |= self.taint.get(name, set())
        for target, vexpr in flat:
            target = self._storage_owner(target)
            if (
                isinstance(target, ast.Attribute)
                and self.self_name
                and is_name(target.value, self.self_name)
            ):
                is_param = (
                    isinstance(value, ast.Call)
                    and dotted(value.func).rsplit(".", 1)[-1] == "Parameter"
                )
                if is_param:
                    idx = self.add(
                        "buffer", stmt, guard, name=target.attr, detail="parameter", value=vexpr
                    )
                else:
                    idx = self.add("assign", stmt, guard, name=target.attr, value=vexpr)
                    self._carry_fills(target.attr, value, guard, stmt)
                for origin in carried:
                    self.feeds.setdefault(origin, []).append(idx)
            elif isinstance(target, ast.Name):
                part = frozenset({target.id}) & self.part_names  # (``part_refs.py``)
                self.add("local", stmt, guard, name=target.id, value=vexpr, names=part)
                self.local_fills.pop(target.id, None)  # (bound anew: another object)
                if carried:
                    self.taint[target.id] = set(carried)
                else:  # (as good as an empty set, and keeps ``taint`` empty while it can)
                    self.taint.pop(target.id, None)
            else:
                self._store_elsewhere(target, vexpr, carried, guard, stmt)

    def _held_attr(self, node: ast.expr) -> str:
        """``x`` for ``self.x`` and for a part of it reached by attributes, ``self.x.w``."""
        return self_path(node, self.self_name).partition(".")[0]

    def _item_path(self, node: ast.expr) -> str:
        """``a.b.0`` for ``self.a.b[0]``: a path under ``self`` through attributes and items
        by number; "" for anything else."""
        if isinstance(node, ast.Subscript):
            index = integer_literal(node.slice)
            inner = self._item_path(node.value)
            return f"{inner}.{index}" if inner and index is not None else ""
        return self_path(node, self.self_name)

    def _held_item(self, node: ast.expr) -> str:
        """``decoder.0`` for ``self.decoder[0]``, ``decoder.-1`` for ``self.decoder[-1]``;
        "" for anything else."""
        if not isinstance(node, ast.Subscript) or not (held := self.self_attr(node.value)):
            return ""
        index = integer_literal(node.slice)
        return f"{held}.{index}" if index is not None else ""

    def _keyed_item(self, node: ast.expr) -> str:
        """``embs.name#1`` for ``self.embs[name]`` (the name numbered by its bindings so far,
        as an item store's key is), ``embs.'a'`` for ``self.embs['a']``; "" for anything
        else."""
        if not isinstance(node, ast.Subscript) or not (held := self.self_attr(node.value)):
            return ""
        key = self._item_key(node.slice)
        return f"{held}.{key}" if key else ""

    def _item_key(self, at: ast.expr) -> str:
        """How an item's key is written in the facts: a string constant as written, a name
        with the number of its bindings so far (``i#1``); "" for anything else."""
        if isinstance(at, ast.Constant) and isinstance(at.value, str):
            return ast.unparse(at)
        if isinstance(at, ast.Name) and at.id not in self.unnumbered:
            bound = sum(e.name == at.id and e.kind in ("local", "objattr") for e in self.effects)
            if bound or any(p.name == at.id for p in self.params):
                return f"{at.id}#{bound}"
        return ""  # (a global may change under any call; other bindings are not numbered)

    def _carry_fills(
        self, attr: str, value: ast.expr, guard: tuple[Cond, ...], store: ast.stmt
    ) -> None:
        """``nn.init.normal_(fc.weight)`` and then ``self.fc = fc``, or ``self.body =
        nn.Sequential(fc, act)``: the local's fills are fills of the part it becomes
        (``fc.weight``, ``body.0.weight``), as if made there. An ``init`` effect for each,
        after the store, at the fill's line; only fills that ran wherever the store does,
        of a local the function mentions nowhere else (``_only_filled_then_stored``)."""
        for key, local in _stored_locals(value):
            fills = self.local_fills.get(local)
            if not fills or not self._only_filled_then_stored(local, store):
                continue
            for fill in fills:
                if guard[: len(fill.guard)] != fill.guard:
                    continue
                name = ".".join(p for p in (attr, key, fill.target) if p)
                self.effects.append(
                    replace(fill, guard=guard, detail="self", name=name, target=name)
                )

    def _only_filled_then_stored(self, local: str, store: ast.stmt) -> bool:
        """Whether the function mentions the local ``local`` only to fill its parts whole
        before ``store`` and in ``store`` itself: no forward run, no part read, no other
        hand-off before the store (a fill used), none after it (a read through the local
        of what the store holds, or a fill after the one carried)."""
        allowed: set[int] = set()  # (the mentions that fill it, or store it on the object)
        for node in self.nodes:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                filled = whole_part_fill(node.value, frozenset({local}))
                if filled is not None and _before(node, store):
                    allowed.add(id(filled[2]))
            elif isinstance(node, ast.Assign) and self._stores_on_self(node, local):
                allowed.update(id(n) for n in ast.walk(node.value))  # (``if``/``else`` arms)
        return all(
            id(node) in allowed
            for node in self.nodes
            if isinstance(node, ast.Name) and node.id == local and isinstance(node.ctx, ast.Load)
        )

    def _stores_on_self(self, stmt: ast.Assign, local: str) -> bool:
        """Whether ``stmt`` stores ``local`` (or a container of it) on an attribute of the
        object, and mentions it nowhere else."""
        if len(stmt.targets) != 1 or not self.self_attr(stmt.targets[0]):
            return False
        stored = [name for _, name in _stored_locals(stmt.value)].count(local)
        return stored == 1 and sum(is_name(n, local) for n in ast.walk(stmt.value)) == 1

    def _storage_owner(self, target: ast.expr) -> ast.expr:
        """``self.fc.weight`` for ``self.fc.weight.data`` (``net.fc.weight`` for a local's):
        new numbers in the part's tensor throw away what its build allocated and filled, as
        storing a new tensor there does. ``self.weight.data`` stays: a tensor of ``self``
        filled anew is not a part replaced."""
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "data"
            and isinstance(target.value, ast.Attribute)
            and isinstance(target.value.value, ast.Attribute | ast.Name)
            and not is_name(target.value.value, self.self_name)
        ):
            return target.value
        return target

    def _store_elsewhere(
        self,
        target: ast.expr,
        vexpr: Expr,
        carried: set[int],
        guard: tuple[Cond, ...],
        stmt: ast.stmt,
        dropped: bool = False,
    ) -> None:
        """An assignment to neither ``self.x`` nor a local name: a ``**kwargs`` key, a field
        of a local's or an argument's object, a part of what ``self.x`` holds. ``dropped``:
        a ``del`` of it (``vexpr`` is None then)."""
        how = "del" if dropped else ""
        key = self.kwargs_key(target)
        if key is not None:
            # overwritten: the caller's value is gone, the pack holds ``vexpr`` there now
            self.add("pop", stmt, guard, name=key, value=None if dropped else vexpr)
        elif (
            isinstance(target, ast.Attribute)
            and (path := dotted(target))
            and path.partition(".")[0] not in (self.self_name, "")
        ):
            # config.n_experts = None: a field of a local or argument object
            self.add("objattr", stmt, guard, name=path, value=vexpr, target=how)
        elif isinstance(target, ast.Attribute) and (
            item := self._held_item(target.value) or self._keyed_item(target.value)
        ):
            # self.head[-1].weight = v: a part of one item of a held container, by number;
            # self.embs[name].weight = v: by the key an item was stored at (``item_key``)
            self.add("nested", stmt, guard, name=item, detail=target.attr, value=vexpr, target=how)
        elif isinstance(target, ast.Attribute) and (
            holder := self_path(target.value, self.self_name)
        ):
            # self.a.b = v: a part of the object self.a holds is replaced by v (and
            # self.a.b.c = v one of the object self.a.b holds: name "a.b")
            self.add(
                "nested", stmt, guard, name=holder, detail=target.attr, value=vexpr, target=how
            )
        elif (
            isinstance(target, ast.Subscript)
            and "." in (part := self._item_path(target.value))
            and (index := integer_literal(target.slice)) is not None
        ):
            # self.a.b[0] = v: an item of the container the object self.a holds as ``b``
            # is replaced (torch names a container's items by number: part "0" of a.b;
            # self.a.b[0][1] = v, part "1" of a.b.0)
            self.add("nested", stmt, guard, name=part, detail=str(index), value=vexpr, target=how)
        elif (
            isinstance(target, ast.Subscript)
            and (root := root_name(target.value))
            and root != self.self_name
        ):
            # rope_scaling["type"] = "yarn": the object the name holds is changed
            self.add("objattr", stmt, guard, name=root)
        elif isinstance(target, ast.Subscript) and self.self_attr(target.value):
            # self.x[k] = v: the container self.x is filled with v (at a key or index it
            # may already hold: ``detail`` "item"; ``target`` the key, when a constant or a
            # name: ``'a'``, or ``i#1`` for a name after its first binding here)
            name = self.self_attr(target.value)
            at = target.slice
            written = self._item_key(at) or (
                ast.unparse(at) if isinstance(at, ast.Constant) else ""
            )
            idx = self.add(
                "mutate", stmt, guard, name=name, detail="item", value=vexpr, target=written
            )
            for origin in carried:
                self.feeds.setdefault(origin, []).append(idx)
            return
        for origin in carried:
            self.feeds_other.add(origin)


# What ``del`` leaves in a part: nothing, as a store of None would.
_NONE = to_expr(ast.Constant(None))


def _torch_fill(call: ast.Call) -> bool:
    """Whether the fill is one of torch's whole fills: ``nn.init``'s, by its module or its
    bare name, or a tensor's filling method (not ``fill_diagonal_``)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in INIT_FILLS
    if isinstance(func, ast.Attribute) and dotted(func.value).rpartition(".")[2] == "init":
        return func.attr in INIT_FILLS
    return isinstance(func, ast.Attribute) and func.attr in FILLING_METHODS - {"fill_diagonal_"}


def _method_name(call: ast.Call) -> str:
    """The last part of the name a call is made by (``fill_`` for ``w.data.fill_(0)``)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _state_read(node: ast.AST) -> bool:
    """``x.state_dict()``: a module's own numbers read."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "state_dict"
    )


def _before(node: ast.stmt, other: ast.stmt) -> bool:
    """Whether the statement ``node`` ends before ``other`` starts in the source."""
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    return end <= (other.lineno, other.col_offset)


def _stored_locals(value: ast.expr) -> list[tuple[str, str]]:
    """The locals a store puts on the object, each with the name it is held under: the
    value itself (``self.fc = fc``: ""), or the items of a torch container built of them
    (``nn.Sequential(fc, act)``, ``nn.ModuleList([a, b])``: "0", "1")."""
    if isinstance(value, ast.Name):
        return [("", value.id)]
    if not isinstance(value, ast.Call) or value.keywords:
        return []
    if dotted(value.func).rpartition(".")[2] not in ("Sequential", "ModuleList"):
        return []
    given: list[ast.expr] = list(value.args)
    if len(given) == 1 and isinstance(given[0], ast.List | ast.Tuple):
        given = list(given[0].elts)
    if any(isinstance(g, ast.Starred) for g in given):
        return []
    return [(str(i), g.id) for i, g in enumerate(given) if isinstance(g, ast.Name)]


def _walrus_targets(stmt: ast.stmt) -> list[str]:
    """The names an assignment expression binds in the statement's own expressions (a
    compound statement's head; not in its body, nor in a nested function's or lambda's)."""
    heads: list[ast.AST]
    if isinstance(stmt, ast.If | ast.While):
        heads = [stmt.test]
    elif isinstance(stmt, ast.For | ast.AsyncFor):
        heads = [stmt.iter]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        heads = [item.context_expr for item in stmt.items]
    elif isinstance(stmt, ast.Match):
        heads = [stmt.subject]
    elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        heads = []
    else:
        heads = [stmt]
    return _walrus_in(heads)


def _walrus_in(heads: list[ast.AST]) -> list[str]:
    """The names the assignment expressions in ``heads`` bind in the scope they sit in (a
    nested ``def``'s or lambda's body is its own scope)."""
    out: list[str] = []
    while heads:
        node = heads.pop()
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.append(node.target.id)
        heads.extend(_evaluated_outside(node) if isinstance(node, SCOPES) else children(node))
    return out


def _evaluated_outside(node: ast.AST) -> list[ast.AST]:
    """What a ``def``, ``class`` or ``lambda`` evaluates in the scope around it: its
    decorators, its parameters' defaults, its bases."""
    out: list[ast.AST] = list(getattr(node, "decorator_list", ()))
    args = getattr(node, "args", None)
    if isinstance(args, ast.arguments):
        out += [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if isinstance(node, ast.ClassDef):
        out += [*node.bases, *(k.value for k in node.keywords)]
    return out


def _defined_names(stmt: ast.stmt) -> list[str]:
    """The name a ``def`` or ``class`` binds, and the names a function defined here
    declares ``nonlocal`` (a call of it may bind them at any later point)."""
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return []
    out = [stmt.name]
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Nonlocal):
            out.extend(node.names)
        elif not isinstance(node, ast.ClassDef):
            todo.extend(children(node))
    return out


def _captures(case: ast.match_case) -> list[str]:
    """The names a ``case`` binds: its pattern's captures, an assignment expression in its
    guard."""
    out = [
        name
        for node in ast.walk(case.pattern)
        if isinstance(node, ast.MatchAs | ast.MatchStar | ast.MatchMapping)
        for name in (node.rest if isinstance(node, ast.MatchMapping) else node.name,)
        if name
    ]
    return out + _walrus_in([case.guard] if case.guard is not None else [])


def _unnumbered_bindings(nodes: list[ast.AST]) -> frozenset[str]:
    """The names the function's own scope binds in ways its effects do not record (and so
    cannot number): ``:=``, ``except ... as``, a ``match`` capture, an import, a ``def`` or
    ``class``, or shares with an outer scope (``global``, ``nonlocal``)."""
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, SCOPES):  # (a default or decorator is evaluated in this scope)
            out.update(_walrus_in(_evaluated_outside(node)))
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.add(node.rest)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            out.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).partition(".")[0] for a in node.names)
    return frozenset(out)


def _defined_once(nodes: list[ast.AST]) -> frozenset[str]:
    """The names the function's own scope binds by one ``def`` and nothing else."""
    defs: dict[str, int] = {}
    other: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defs[node.name] = defs.get(node.name, 0) + 1
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal | ast.Import | ast.ImportFrom):
            other.update(a if isinstance(a, str) else (a.asname or a.name) for a in node.names)
    return frozenset(n for n, k in defs.items() if k == 1 and n not in other)

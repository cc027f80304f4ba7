"""Which ``self`` attributes a statement reads and writes (docs/design.md, "Reads").

Over-approximated in the direction that keeps fixes safe: a method call on ``self.x`` may
mutate ``x``, so it counts as a write of ``x``; ``del self.x`` reads ``x`` too (it fails
when ``x`` is missing); ``self`` passed anywhere (``helper(self)``)
reads and writes everything (``*``). Calls of ``self.method()`` read the name ``method``
(harmless: a method is never written), and what the method itself reads is added by the
simulation, which inlines it with virtual dispatch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from initlint.facts.aliases import self_method_call
from initlint.facts.model import Effect
from initlint.facts.walk import children

EVERYTHING = "*"
# The builtins that reach an attribute named by a string, and the object's own methods that
# spell them (``self.__delattr__("x")``): a deletion needs the attribute, so it reads it too.
_BY_NAME = {"getattr": "read", "hasattr": "read", "setattr": "write", "delattr": "delete"}
_BY_DUNDER = {"__getattribute__": "read", "__setattr__": "write", "__delattr__": "delete"}
# The builtins that run code given as text, which may name ``self``.
_RUNS_TEXT = frozenset({"exec", "eval"})
# torch.nn.init's helpers that look only at a tensor's shape (``fan_in`` for a bias's
# bound): no read of the numbers it holds.
SHAPE_ONLY = frozenset({"_calculate_fan_in_and_fan_out", "_calculate_correct_fan"})


def _by_name(how: str | None, args: list[ast.expr], reads: set[str], writes: set[str]) -> bool:
    """Note the attribute that ``args[0]``, a string literal, names (``how``: read, write or
    delete, None for a call of none of those); whether it did."""
    if how is None or not args or not isinstance(args[0], ast.Constant):
        return False
    name = args[0].value
    if not isinstance(name, str):
        return False
    (reads if how == "read" else writes).add(name)
    if how == "delete":
        reads.add(name)  # (like ``del self.x``: x must exist)
    return True


def _fetched_from(call: ast.Call, self_name: str) -> bool:
    """Whether ``call`` is ``getattr(self, ...)``: what it gives, called, runs a method."""
    func, args = call.func, call.args
    return (
        isinstance(func, ast.Name)
        and func.id == "getattr"
        and bool(args)
        and isinstance(args[0], ast.Name)
        and args[0].id == self_name
    )


def _root_attr(node: ast.AST, self_name: str) -> str | None:
    """``x`` for ``self.x``, ``self.x.y``, ``self.x[k]``... (the attribute of ``self`` at the
    bottom of an attribute/subscript chain), else None."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        inner = node.value
        if isinstance(node, ast.Attribute) and isinstance(inner, ast.Name):
            return node.attr if inner.id == self_name else None
        node = inner
    return None


def self_access(
    nodes: list[ast.AST], self_name: str, *, skip: ast.AST | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """(reads, writes) of ``self`` attributes anywhere in ``nodes``. ``skip``: a node whose
    ``self`` argument is not a use of ``self`` (the ``self`` of ``Base.__init__(self)``)."""
    if not self_name:
        return frozenset(), frozenset()
    reads: set[str] = set()
    writes: set[str] = set()
    handled: set[int] = set()  # id() of `self` Name nodes already accounted for
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if node.id == self_name and id(node) not in handled and isinstance(node.ctx, ast.Load):
                reads.add(EVERYTHING)
                writes.add(EVERYTHING)
            continue
        if isinstance(node, ast.Constant):
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == self_name:  # (its one child, that Name, is accounted for)
                if isinstance(node.ctx, ast.Load):
                    reads.add(node.attr)
                else:
                    writes.add(node.attr)
                    if isinstance(node.ctx, ast.Del):
                        reads.add(node.attr)  # `del self.x` needs x: AttributeError without it
            continue
        if isinstance(node, ast.AugAssign):
            root = _root_attr(node.target, self_name)
            if root is not None:
                reads.add(root)
                writes.add(root)
        elif isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            root = _root_attr(node.value, self_name)
            if root is not None:
                writes.add(root)  # self.x.y = v, self.x[k] = v, del self.x[k]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in SHAPE_ONLY and node.args:
                shaped = node.args[0]
                if isinstance(shaped, ast.Attribute) and isinstance(shaped.value, ast.Name):
                    if shaped.value.id == self_name:
                        stack.extend(node.args[1:])
                        stack.extend(k.value for k in node.keywords)
                        continue
            if isinstance(func, ast.Attribute):
                root = _root_attr(func.value, self_name)
                if root is not None:
                    writes.add(root)  # self.x.append(...), self.x.weight.normal_()
                if isinstance(func.value, ast.Name) and func.value.id == self_name:
                    # ``self.__delattr__("x")``: ``delattr(self, "x")`` spelled as a method
                    _by_name(_BY_DUNDER.get(func.attr), node.args, reads, writes)
                if node is skip and func.attr == "__init__" and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Name) and first.id == self_name:
                        handled.add(id(first))
            elif isinstance(func, ast.Call) and _fetched_from(func, self_name):
                # ``getattr(self, "_resize")(n)``: a method of the object run by its name
                reads.add(EVERYTHING)
                writes.add(EVERYTHING)
            elif isinstance(func, ast.Name):
                if func.id in _RUNS_TEXT:  # (code in a string reaches ``self`` by name)
                    reads.add(EVERYTHING)
                    writes.add(EVERYTHING)
                if func.id == "super":
                    handled.update(id(a) for a in node.args if isinstance(a, ast.Name))
                elif func.id in ("isinstance", "type", "id"):
                    handled.update(id(a) for a in node.args[:1] if isinstance(a, ast.Name))
                if node.args and isinstance(node.args[0], ast.Name):
                    if node.args[0].id == self_name and _by_name(
                        _BY_NAME.get(func.id), node.args[1:], reads, writes
                    ):
                        handled.add(id(node.args[0]))
        stack.extend(children(node))  # order is free: `handled` is set by a parent
    return frozenset(reads), frozenset(writes)


# The effects that store on the object under the name they carry, and those that run work
# that may write any attribute (a method of the object, a function handed it, an
# ancestor's construction).
_STORES = frozenset({"assign", "buffer", "mutate", "delete", "nested"})
_RUNS = frozenset({"call", "helper", "super_init"})


def may_write(eff: Effect) -> frozenset[str]:
    """The ``self`` attributes the effect ``eff`` may write: a statement's writes, a store's
    attribute, ``EVERYTHING`` for work that may write any; none for anything else."""
    if eff.kind == "touch":
        return eff.writes
    if eff.kind in _STORES:
        return frozenset({eff.name.partition(".")[0]})
    return frozenset({EVERYTHING}) if eff.kind in _RUNS else frozenset()


# What reading a value for what it is looks like, at the end of an attribute chain or as
# its method: its shape, size, kind or place; its numbers stay unread.
SIZE_ATTRS = frozenset("shape size dim ndim ndimension numel dtype device".split())
# torch.nn.Module's methods that walk what a module holds: its parameters, buffers, modules.
MODULE_WALKS = frozenset(
    """parameters named_parameters buffers named_buffers modules named_modules children
    named_children""".split()
)


# torch's tensor methods that change the tensor they are called on in place from its own
# numbers (and the arguments), the result staying in that tensor; and ``requires_grad_``,
# which sets its autograd flag and reads none of its numbers.
CHANGING_METHODS = frozenset(
    """mul_ div_ add_ sub_ clamp_ clamp_min_ clamp_max_ abs_ neg_ pow_ sqrt_ exp_ log_
    renorm_ masked_fill_ index_fill_ fmod_ remainder_ sign_ round_ tanh_ sigmoid_ lerp_
    addcmul_ addcdiv_ requires_grad_""".split()
)


def changed_in_place(stmt: ast.stmt, self_name: str) -> frozenset[str]:
    """The attribute of ``self`` whose tensor the statement ``stmt`` only changes in place
    (``self.head.proj.weight.data.mul_(scale)``: a call of a changing method on a path
    below ``self.head``, its result dropped, its arguments reading nothing of ``self.head``
    nor handing ``self`` on): ``{"head"}``; empty for any other statement."""
    if not self_name or not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return frozenset()
    call = stmt.value
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in CHANGING_METHODS:
        return frozenset()
    root = _root_attr(func.value, self_name)
    if root is None:
        return frozenset()
    given: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    reads, _ = self_access(given, self_name)
    return frozenset() if EVERYTHING in reads or root in reads else frozenset({root})


def shallow_reads(
    nodes: list[ast.AST], self_name: str, precondition: bool = False
) -> tuple[frozenset[str], frozenset[str]]:
    """The ``self`` attributes that ``nodes`` mention only to ask what the value is, found
    in one walk: (those only tested against None, ``self.norm is not None``, or asked for,
    ``hasattr(self, "norm")``: whether there is an object; those only read so or for their
    length, a tensor's shape or kind down an attribute chain, ``len(self.ups)``,
    ``self.proj.weight.size(1)``, or whether a part has an attribute, ``hasattr(self.vlm,
    "lm_head")``). Nothing of their numbers is read. In a ``precondition`` (the test of an
    ``if`` that only raises, an ``assert``), so are torch's walks whose items are only
    counted or asked their kind (``len(list(self.parameters(recurse=False)))``): the
    construction goes on only where the test let it, and nothing it guards reads them."""
    if not self_name:
        return frozenset(), frozenset()
    tested: set[str] = set()
    sized: set[str] = set()
    other: set[str] = set()  # (read otherwise: their numbers may be)
    untested: set[str] = set()  # (read otherwise than in a None test)
    none_operands: set[int] = set()  # id() of the ``self.x`` nodes a None test compares
    size_operands: set[int] = set()  # id() of those read for their size or kind
    stack = list(nodes)
    while stack:
        node = stack.pop()
        chain = None
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Is | ast.IsNot)
        ):
            left, right = node.left, node.comparators[0]
            for a, b in ((left, right), (right, left)):
                if isinstance(b, ast.Constant) and b.value is None:
                    none_operands.add(id(a))
        elif isinstance(node, ast.Call) and _asks_what(node):
            # (``len(self.ups)``, ``hasattr(self.vlm, "lm_head")``, ``len(list(
            # self.parameters(recurse=False)))``: how many, not what they hold)
            chain = _counted(node.args[0]) if precondition else node.args[0]
        elif precondition and isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            chain = _kinds_only(node)  # (``any(isinstance(c, X) for c in self.children())``)
        elif isinstance(node, ast.Attribute) and node.attr in SIZE_ATTRS:
            chain = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "hasattr"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == self_name
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            # ``hasattr(self, "x")``: whether there is an object, as ``self.x is not None``
            tested.add(node.args[1].value)
            continue
        if chain is not None:
            while isinstance(chain, ast.Attribute) and isinstance(chain.value, ast.Attribute):
                chain = chain.value
            size_operands.add(id(chain))
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self_name
        ):
            if id(node) in none_operands:
                tested.add(node.attr)
            elif id(node) in size_operands:
                sized.add(node.attr)
                untested.add(node.attr)
            else:
                other.add(node.attr)
                untested.add(node.attr)
            continue
        stack.extend(children(node))  # (a parent comes before its children)
    return frozenset(tested - untested), frozenset((sized | tested) - other)


def _counted(node: ast.expr) -> ast.expr:
    """What ``len`` counts: through ``list(...)`` or ``tuple(...)`` of one argument, and
    through a walk of a module (``self.parameters(recurse=False)``: its items are counted,
    not read)."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "tuple")
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in MODULE_WALKS:
            return node.func
    return node


def _kinds_only(node: ast.GeneratorExp | ast.ListComp | ast.SetComp) -> ast.expr | None:
    """The walk (``MODULE_WALKS``) a comprehension of one loop goes over when it asks of
    each item only its kind or presence (``isinstance(c, X)``, ``hasattr(c, "w")``, ``c is
    None``): the items' numbers stay unread. None for any other comprehension."""
    if len(node.generators) != 1:
        return None
    loop = node.generators[0]
    head = loop.iter
    if loop.is_async or not isinstance(head, ast.Call):
        return None
    if not isinstance(head.func, ast.Attribute) or head.func.attr not in MODULE_WALKS:
        return None
    item = _walked_item(loop.target, head.func.attr)
    if item is None:
        return None
    asked: set[int] = set()
    for part in [node.elt, *loop.ifs]:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.args:
                if sub.func.id in ("isinstance", "hasattr", "type"):
                    asked.add(id(sub.args[0]))
            elif isinstance(sub, ast.Compare) and len(sub.ops) == 1:
                if isinstance(sub.ops[0], ast.Is | ast.IsNot):
                    asked.update(id(side) for side in (sub.left, sub.comparators[0]))
    for part in [node.elt, *loop.ifs]:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Name) and sub.id == item and id(sub) not in asked:
                return None
    return head.func


def _walked_item(target: ast.expr, walk: str) -> str | None:
    """The name a comprehension's loop binds each module or tensor of the walk ``walk`` to:
    the target, or the second of ``name, item`` for a ``named_*`` walk (the name is a
    string); None for any other target."""
    if isinstance(target, ast.Name) and not walk.startswith("named_"):
        return target.id
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and walk.startswith("named_"):
        name, item = target.elts
        if isinstance(name, ast.Name) and isinstance(item, ast.Name):
            return item.id
    return None


def _asks_what(call: ast.Call) -> bool:
    """``len(x)``, or ``hasattr(x.part, name)``: what ``x`` is, not its numbers (``hasattr``
    on ``self`` itself asks whether there is an attribute, and is a test apart)."""
    func, args = call.func, call.args
    if not isinstance(func, ast.Name):
        return False
    if func.id == "len":
        return len(args) == 1
    return func.id == "hasattr" and len(args) == 2 and isinstance(args[0], ast.Attribute)


def handed_reads(nodes: list[ast.AST], self_name: str) -> frozenset[str]:
    """The ``self`` attributes that ``nodes`` mention once, and only to hand a part of the
    object on whole: as an argument of a call of a method of the object (``self._tie(
    self.lm_head, emb)``) or as the value returned (``return self.model.embed_tokens``).
    Where the simulation follows the receiving code under a name that stands for the part,
    what that code does through the name is the use, not the handing
    (``simulation/part_refs.py``)."""

    def attr(node: ast.AST) -> str:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self_name
        ):
            return node.attr
        return ""

    return _handed_once(nodes, self_name, attr, returned=True)


def handed_names(nodes: list[ast.AST], names: frozenset[str], self_name: str) -> frozenset[str]:
    """The ``names`` that ``nodes`` mention once, and only as a whole argument of a call of
    a method of the object (``self._tie(out, emb)``): where the callee takes it under a
    parameter that stands for the part, its own mentions are the uses."""

    def name(node: ast.AST) -> str:
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            return node.id
        return ""

    return _handed_once(nodes, self_name, name, returned=False)


def _handed_once(
    nodes: list[ast.AST], self_name: str, mention: Callable[[ast.AST], str], returned: bool
) -> frozenset[str]:
    """What ``mention`` names in ``nodes`` exactly once, that once as an operand
    ``_handed_operands`` finds (met before the nodes it names: parents come first)."""
    passed: set[int] = set()
    seen: dict[str, int] = {}
    other: set[str] = set()
    for node in _walk(nodes):
        passed.update(id(x) for x in _handed_operands(node, self_name, returned))
        named = mention(node)
        if named:
            seen[named] = seen.get(named, 0) + 1
            if id(node) not in passed:
                other.add(named)
    return frozenset(n for n, k in seen.items() if k == 1 and n not in other)


def _handed_operands(node: ast.AST, self_name: str, returned: bool) -> list[ast.expr]:
    """The ``self.x`` nodes (or plain names) at the bottom of what ``node`` hands whole to
    a method of the object, by position or keyword (not ``*``/``**``), and, ``returned``,
    of the value a ``return`` gives."""
    operands: list[ast.expr] = []
    if returned and isinstance(node, ast.Return) and node.value is not None:
        operands = [node.value]
    elif self_method_call(node, self_name):
        assert isinstance(node, ast.Call)  # (self_method_call)
        operands = [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
    out: list[ast.expr] = []
    for chain in operands:
        while isinstance(chain, ast.Attribute) and isinstance(chain.value, ast.Attribute):
            chain = chain.value
        if isinstance(chain, ast.Name) or (
            isinstance(chain, ast.Attribute)
            and isinstance(chain.value, ast.Name)
            and chain.value.id == self_name
        ):
            out.append(chain)
    return out


def _walk(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


def name_uses(nodes: list[ast.AST], names: frozenset[str]) -> frozenset[str]:
    """The ``names`` that ``nodes`` use: mention other than as the root of an attribute
    store or ``del`` target (``out.weight = w``), as the whole value bound to another plain
    name (``m = out``, which stands for the same part), or only to ask what it is (``out is
    not None``, ``isinstance(out, nn.Linear)``, ``hasattr(out, "bias")``, ``getattr(out,
    "bias", None) is None``). A name handed whole to a method of the object is used here
    too (``handed_names`` says which the simulation may pass on)."""
    passed: set[int] = set()  # (the ``Name`` nodes met in one of those roles: parents first)
    used: set[str] = set()
    for node in _walk(nodes):
        passed.update(id(n) for n in _asked_what(node))
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            while isinstance(t, ast.Attribute):
                t = t.value
                if isinstance(t, ast.Name):
                    passed.add(id(t))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                passed.add(id(node.value))
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in names
            and id(node) not in passed
        ):
            used.add(node.id)
    return frozenset(used)


def _asked_what(node: ast.AST) -> list[ast.expr]:
    """The plain names ``node`` asks only what they are: compared with None, or handed to
    ``isinstance``/``hasattr``/``getattr`` with a default of None compared with None."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        if isinstance(node.ops[0], ast.Is | ast.IsNot):
            pair = (node.left, node.comparators[0])
            if any(isinstance(x, ast.Constant) and x.value is None for x in pair):
                return [_asked_of(x) for x in pair if isinstance(_asked_of(x), ast.Name)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        if node.func.id in ("isinstance", "hasattr") and isinstance(node.args[0], ast.Name):
            return [node.args[0]]
    return []


def _asked_of(x: ast.expr) -> ast.expr:
    """``out`` for ``getattr(out, "bias", None)``; ``x`` itself otherwise."""
    if (
        isinstance(x, ast.Call)
        and isinstance(x.func, ast.Name)
        and x.func.id == "getattr"
        and len(x.args) == 3
        and isinstance(x.args[0], ast.Name)
        and isinstance(x.args[2], ast.Constant)
        and x.args[2].value is None
    ):
        return x.args[0]
    return x

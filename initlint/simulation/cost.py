"""The cost model: which expressions allocate or compute real data, and how much
(docs/design.md, "Cost classes"): ``CostModel`` prices an expression, a call, a function's
body and a class's construction in the levels of ``levels``, by what ``torch_knowledge``
knows of libraries and by reading the project's (and installed dependencies') source; a
memoised factory (``memo_finder``) costs nothing.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import field, replace
from fnmatch import fnmatchcase
from functools import partial
from typing import Literal

from initlint.facts.expressions import UNKNOWN_COND, test_of
from initlint.facts.function_reader import LOOP_COND, loop_bindings, loop_entries
from initlint.facts.model import Body, BodyError, Cond, Const, Effect, Expr, Param, import_of
from initlint.facts.reads import EVERYTHING, MODULE_WALKS, may_write
from initlint.index.project import ProjectIndex
from initlint.index.records import NO_BINDINGS, ClassInfo, FunctionInfo, Module, Target
from initlint.records import dataclass
from initlint.simulation.binding import bind_args
from initlint.simulation.choices import ChoiceFinder, merge
from initlint.simulation.folding import ORDERS, UNFOLDED, compare, fold
from initlint.simulation.levels import (
    HEAVY,
    LIGHT,
    NO_COSTS,
    NONE,
    UNKNOWN,
    Costs,
    Priced,
    highest,
)
from initlint.simulation.memo_finder import MemoFinder
from initlint.simulation.torch_knowledge import (
    CHEAP_NN,
    DATA_CONVERSIONS,
    FROM_VALUES,
    GROWING_METHODS,
    IO_CALLS,
    KNOWN_LIBRARIES,
    LOADERS,
    METADATA_METHODS,
    NEW_FACTORIES,
    NO_BOUND,
    RANGES,
    WRITTEN_NUMEL,
    Bound,
    dtype_integer,
    dtype_room,
    int_value,
    keyword_values,
    legacy_sized,
    library_cost,
    positional_values,
    range_count,
    repeated_numel,
    tensor_cost,
    torch_params,
    torch_vector,
    written_numel,
    written_only,
)
from initlint.simulation.values import UNKNOWN as UNKNOWN_VALUE
from initlint.simulation.values import Val

# Operators whose value is a bool (``x is None``, ``not x``, ``bool(x)``): the cost of the
# names they test is not carried into it.
_TESTS = frozenset({"test", "not", "bool"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**"})
# Operators that may broadcast two views into a table (``CostModel._outer``).
_TABLE_OPS = _ARITHMETIC | {"test"}
# torch's functions (and tensor methods) that make the table of two vectors.
_OUTER = frozenset({"outer", "ger"})
# Builtins whose result is a new plain value (a string, a number, a bool, a type).
_PLAIN_RESULTS = frozenset(
    """str repr int float bool len hash id type isinstance issubclass callable format round
    abs""".split()
)
# The constants a call fixes of the parameters of what it runs, by name.
Fixed = tuple[tuple[str, Const], ...]
# The parameters a call passes a tuple display (``shape=(n, 1)``): a pack of its items, so
# that a tensor made in that shape is sized by them (``numel``).
Shapes = tuple[tuple[str, Val], ...]
# What a call gives each parameter of what it runs (``_call_values``).
Given = dict[str, Expr | None]
# An effect priced for the cheapest path: its cost, and the parameters' constants standing.
Priced_ = tuple[Effect, int, Mapping[str, Const]]
# How ``isinstance(None, <classes>)`` comes out, by the classes' text (``none_isinstance``).
NoneTest = Callable[[str], bool | None]
# ``nn.Module``, ``(A, b.C)``: dotted names, alone or in a tuple.
_CLASS_NAMES = re.compile(r"\(?\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*,?\s*\)?")
# Class names None may be an instance of: its own class, ``object``, ``Any``.
_NONE_CLASSES = re.compile(r"\bNone|NoneType|\bobject\b|\bAny\b")
# Names Python binds in every module: calling one is no construction work to follow.
BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class CostModel:
    index: ProjectIndex
    expensive_calls: tuple[str, ...] = ()
    cheap_calls: tuple[str, ...] = ()
    # (by the constants a call fixes of the parameters, which may decide its tests)
    _fn_memo: dict[tuple[str, str, Fixed | None, Shapes], int] = field(default_factory=dict)
    _cls_memo: dict[tuple[str, Fixed | None], int] = field(default_factory=dict)
    # each constructed class's self attributes -> the project classes stored there
    _held_memo: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # (constructed class, attribute) -> what its __init__ chain builds there
    _stored_memo: dict[tuple[str, str], int] = field(default_factory=dict)
    # function -> whether it initialises what it is given (``_initialises_given``)
    _gives_memo: dict[str, bool] = field(default_factory=dict)
    # the reasons ``_call`` gives, while ``why_of`` asks (None otherwise)
    notes: list[tuple[str, FunctionInfo | ClassInfo | None]] | None = field(
        default=None, init=False
    )
    memos: MemoFinder = field(init=False)  # the memoised factories (``memo_finder``)
    choices: ChoiceFinder = field(init=False)  # classes a value may hold (``choices``)
    # Pricing the cheapest path (``cheapest``): every function and class priced by the
    # least work a run of it does, each parameter keeping its default and every other
    # undecided test going either way; ``A if c else B`` the cheaper of the two, or the
    # one a parameter's default picks (``bound`` holds the defaults then).
    least: bool = False
    _cheapest: CostModel | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.memos = MemoFinder(self.index)
        self.choices = ChoiceFinder(self.index)

    def cheapest(self) -> CostModel:
        """The model that prices the cheapest path (its own memos: a price differs)."""
        if self._cheapest is None:
            self._cheapest = CostModel(
                self.index, self.expensive_calls, self.cheap_calls, least=True
            )
        return self._cheapest

    def _matches(self, name: str, patterns: tuple[str, ...]) -> bool:
        return bool(patterns) and any(fnmatchcase(name, p) for p in patterns)

    def external_expensive(self, name: str) -> bool:
        return self.external_cost(name) > NONE

    def external_cost(self, name: str, call: Expr | None = None, bound: Bound = NO_BOUND) -> int:
        """The cost of calling the external (non-project) callable ``name`` (``call`` holds
        the arguments, read for a tensor factory's sizes)."""
        if self._matches(name, self.cheap_calls):
            return NONE
        if self._matches(name, self.expensive_calls):
            return HEAVY
        return library_cost(name, call, bound)

    def expr_cost(
        self,
        e: Expr | None,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs = NO_COSTS,
        attrs: Costs = NO_COSTS,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        """The cost of evaluating ``e``: the highest cost of the calls in it. ``locals_`` and
        ``attrs`` hold what the locals and ``self`` attributes in scope cost to build (a name
        carries the cost of the work that made it; ``attrs`` are read by ``copy.deepcopy``);
        ``bound`` the constants the frame's names hold (a tensor's sizes)."""
        if e is None:
            return NONE
        best = NONE
        stack = [e]
        while stack:
            cur = stack.pop()
            kind = cur.kind
            if kind == "name":
                c = locals_.get(cur.name, NONE)
            elif kind == "op" and cur.name == "if" and len(cur.children) == 3:
                test, picked, other = cur.children
                stack.append(test)
                truth = _bound_truth(test, bound)
                if truth is not None:  # (the constants the frame holds pick one value)
                    stack.append(picked if truth else other)
                    continue
                if not self.least:
                    stack.extend((picked, other))
                    continue
                a = self.expr_cost(picked, module, mro, locals_, attrs, bound)
                b = self.expr_cost(other, module, mro, locals_, attrs, bound)
                if isinstance(a, BodyError) or isinstance(b, BodyError):
                    return highest(a, b)
                c = min(a, b)  # the cheaper pick
            elif kind == "op" and len(cur.children) == 2 and cur.name in _TABLE_OPS:
                # (``t[:, None] >= t[None, :]``, a comparison: a table of bools, a causal
                # mask; naming a costly local there builds nothing)
                bools = cur.name == "test"
                grown = self._outer(cur, module, mro, locals_, attrs, bound, bools=bools)
                stack.extend(c for c in cur.children if not (bools and c.kind == "name"))
                if grown is None:
                    continue
                if isinstance(grown, BodyError):
                    return grown
                c = grown
            elif kind == "op":
                if cur.name in _TESTS:  # a bool: naming a costly local builds nothing
                    stack.extend(c for c in cur.children if c.kind != "name")
                else:
                    stack.extend(cur.children)
                continue
            elif kind == "subscript":
                # ``read_csv(path)[0]``: the call's work is done whatever part is kept (a
                # local's part is a view of what the local holds: no work of its own)
                if cur.receiver is not None and cur.receiver.kind != "name":
                    stack.append(cur.receiver)
                continue
            elif kind == "call":
                pair = self._outer_pair(cur, module, bound)
                table = pair and self._table(pair, module, mro, locals_, attrs, bound)
                if isinstance(table, BodyError):
                    return table
                if table is not None:
                    # (``torch.outer(t, f)``: the table of the two vectors, light when both
                    # are of sizes known here and it is small; else heavy, as a table of
                    # sizes not known is)
                    if table != LIGHT:
                        return HEAVY
                    best = max(best, LIGHT)
                    continue
                if (
                    cur.attr in _ARITHMETIC_METHODS
                    and cur.receiver is not None
                    and len(cur.children) == 1
                    and not cur.keywords
                ):  # (``a.mul(b)``: ``a * b``)
                    as_op = Expr(
                        "op",
                        name=_ARITHMETIC_METHODS[cur.attr],
                        children=(cur.receiver, *cur.children),
                    )
                    grown = self._outer(as_op, module, mro, locals_, attrs, bound)
                    if isinstance(grown, BodyError):
                        return grown
                    if grown is not None and grown > best:
                        best = grown
                        if best == HEAVY:
                            return HEAVY
                priced = self._call(cur, module, mro, locals_, attrs, bound)
                if isinstance(priced, BodyError):
                    return priced
                c = priced
                if cur.receiver is None and cur.name in _PLAIN_RESULTS:
                    # ``str(model)``: a new plain value, which holds none of what it was
                    # made from: the names given carry no cost into it
                    stack.extend(c for c in cur.children if c.kind != "name")
                else:
                    stack.extend(cur.children)
            else:
                continue
            if c > best:
                best = c
                if best == HEAVY:
                    return HEAVY
        if best in (LIGHT, UNKNOWN):  # (builds of a few numbers each: together, many?)
            total = self._written_total(e, module, bound, root=True)
            if total is not None and total >= WRITTEN_NUMEL:
                return HEAVY
            if total is None and best == LIGHT:
                return UNKNOWN
        return best

    def _outer(
        self,
        op: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound,
        bools: bool = False,
    ) -> Priced | None:
        """``t[:, None] * f[None, :]``: arithmetic on views of two vectors along different
        axes (``_oriented``: a column and a row, ``t.unsqueeze(1)``, ``f.view(1, -1)``
        alike) broadcasts them into a table as big as the product of their sizes, as
        ``torch.outer(t, f)`` builds. HEAVY where a side is heavy, or a vector of a size not
        known here (as a factory of two sizes not known is); by their product against the
        same mebibyte for two vectors of sizes written out in the expression or bound to a
        local (``vector_total``); UNKNOWN for any other side (a tensor handed in, an alias,
        a local holding another light build: its numbers are not carried). None where no table
        forms: views along the same axis, a side of one number, anything else.
        ``bools``: a comparison, whose table holds a byte per pair."""
        left, right = (_oriented(c) for c in op.children)
        if left is None or right is None or left[0] == right[0]:
            return None
        return self._table((left[1], right[1]), module, mro, locals_, attrs, bound, bools)

    def _table(
        self,
        vectors: tuple[Expr, Expr],
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound,
        bools: bool = False,
    ) -> Priced | None:
        """What the table of every pair of the numbers of two ``vectors`` costs (``_outer``),
        None where a side holds one number (no table)."""
        sizes: list[Vector | None] = []
        heavy = False
        for base in vectors:
            if base.kind == "name":
                made, total = locals_.get(base.name, NONE), self.vector_total(base, module, bound)
            elif base.kind == "attr" and base.receiver is not None and base.receiver.name == "self":
                made, total = attrs.get(base.attr, NONE), None
            else:
                priced = self.expr_cost(base, module, mro, locals_, attrs, bound)
                if isinstance(priced, BodyError):
                    return priced
                made, total = priced, self.vector_total(base, module, bound)
            sizes.append(total if made == LIGHT else None)
            if total is not None and total[0] <= 1:
                return None  # (a view of one number: no table)
            if made in (UNKNOWN, HEAVY):  # (a vector of a size not known here, or more)
                heavy = True
        if heavy:
            return HEAVY
        first, second = sizes
        if not first or not second:
            return UNKNOWN
        count = first[0] * second[0]
        if bools:
            return HEAVY if count // 4 >= WRITTEN_NUMEL else LIGHT  # (a bool takes a byte)
        # (an integer and a float meet in the float's room, int64 times float32 is float32;
        # two of one kind in the wider's)
        (_, room, integer), (_, other, other_integer) = first, second
        if integer != other_integer:
            room = other if integer else room
        else:
            room = max(room, other)
        return HEAVY if count * room >= WRITTEN_NUMEL else LIGHT

    def _outer_pair(self, call: Expr, module: Module, bound: Bound) -> tuple[Expr, Expr] | None:
        """The two vectors ``torch.outer(a, b)`` (``torch.ger``; ``a.outer(b)`` where ``a``
        is a torch vector, ``vector_total``) makes the table of; None for any other call."""
        if call.attr not in _OUTER or call.keywords or call.value is not None:
            return None
        public = self.index.public_name(module, call.name) if call.name else None
        if public is not None and public.rpartition(".")[0] == "torch":
            return (call.children[0], call.children[1]) if len(call.children) == 2 else None
        recv = call.receiver
        if recv is not None and len(call.children) == 1:
            known = self.vector_total(recv, module, bound) is not None
            return (recv, call.children[0]) if known else None
        return None

    def sized_vector(self, value: Expr | None, module: Module, bound: Bound) -> Val | None:
        """What a name bound to ``value`` holds where that is a torch vector of sizes written
        out (``vector_total``): an unknown carrying how many numbers; None otherwise."""
        if value is None or value.kind != "call":
            return None
        total = self.vector_total(value, module, bound)
        return None if total is None else Val("unknown", numel=total)

    def vector_total(self, e: Expr, module: Module, bound: Bound) -> Vector | None:
        """How many numbers a torch vector of sizes written out holds (``torch.arange(64)``,
        ``torch.ones(512)``, a name ``bound`` holds one in, also cast,
        ``torch.arange(64).float()``), the room of each in float32 numbers
        (``dtype_room``) and whether they are integers; None for any other value."""
        e, cast = _uncast(e)
        if e.kind == "name":
            held = bound.get(e.name)
            counted = held.numel if held is not None else None
        else:
            counted = self._made_vector(e, module, bound)
        if counted is None:
            return None
        return counted if cast is None else (counted[0], *cast)

    def _made_vector(self, e: Expr, module: Module, bound: Bound) -> Vector | None:
        """``vector_total`` of a call of torch's that makes a vector."""
        public = self.index.public_name(module, e.name) if e.kind == "call" and e.name else None
        head, _, last = (public or "").rpartition(".")
        if head != "torch":
            return None
        written = written_only(bound)
        if last in RANGES:
            counted = range_count(last, e, written)
            dtype = keyword_values(e).get("dtype")
            integer = dtype_integer(dtype, last not in ("linspace", "logspace"))
            return None if counted is None else (*counted, integer)
        if last in _VECTORS and len(e.children) == 1 and not _shape_tuple(e.children[0]):
            n = int_value(e.children[0], written)
            return None if n is None else (n, 1, False)
        return None

    def _written_total(
        self, e: Expr, module: Module, bound: Bound, root: bool = False
    ) -> int | None:
        """How many numbers the torch builds of written-out sizes in ``e`` hold together
        (``written_numel``); None when that is not known. The items of a comprehension count
        as often as its loop runs, known when it walks a ``range`` of numbers or a display;
        a comprehension with several loops or a condition (an op with no name, as a set or a
        dict display is too) makes the total not known. Of ``A if c else B`` the arm
        ``expr_cost`` prices. A lambda's body has not run. The items of a tuple stored
        whole (``self.a, self.b = A, B`` gives each target one): the largest."""
        if e.kind == "call":
            public = self.index.public_name(module, e.name) if e.name else None
            total = written_numel(public, e, bound) if public is not None else 0
        elif e.kind != "op":
            total = 0
        elif e.name == "lambda":
            return 0
        elif e.name == "if" and len(e.children) == 3:
            test, picked, other = e.children
            truth = _bound_truth(test, bound)
            if truth is not None:
                return self._written_total(picked if truth else other, module, bound)
            arms = [self._written_total(c, module, bound) for c in (picked, other)]
            if None in arms:
                return None
            sizes = [a for a in arms if a is not None]
            return min(sizes) if self.least else max(sizes)
        elif e.name == "comp" and e.children:
            walked, *items = e.children
            each = 0
            for item in items:
                n = self._written_total(item, module, bound)
                if n is None:
                    return None
                each += n
            if not each:
                return self._written_total(walked, module, bound)
            count = _loop_count(walked, {**bound, **written_only(bound)})
            return None if count is None else count * each
        elif root and e.name == "tuple":
            parts = [self._written_total(c, module, bound) for c in e.children]
            return None if None in parts else max((p for p in parts if p is not None), default=0)
        else:
            total = 0
        for part in (*e.children, e.receiver):
            if part is not None:
                n = self._written_total(part, module, bound)
                if n is None:
                    return None
                total += n
        if total and e.kind == "op" and not e.name:
            return None  # (maybe a comprehension whose count is not followed)
        return total

    def _call(
        self,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        name = call.name
        say = self._said
        if self._matches(name, self.cheap_calls):
            return say(NONE, "`{}` is in cheap-calls", name)
        if self._matches(name, self.expensive_calls):
            return say(HEAVY, "`{}` is in expensive-calls", name)
        recv = call.receiver
        if recv is not None and recv.kind == "name" and recv.name == "self" and call.attr:
            fn = self.index.lookup_method(mro, call.attr)
            if fn is None:
                return say(NONE, "no such method is found")
            if call.attr in MODULE_WALKS and _torch_or_none(fn):
                return say(NONE, "torch's walk over what the module holds builds nothing")
            return say(self.function_cost(fn, mro), "runs {}", fn)
        if call.attr in LOADERS:
            return say(HEAVY, "`.{}` loads a model or its weights", call.attr)
        best: Priced = NONE
        if recv is not None and call.attr in NEW_FACTORIES:
            # (what the tensor it is called on holds is not copied: a named one is no work
            # here; one built in the call is)
            made: Priced = tensor_cost(NEW_FACTORIES[call.attr], call, bound)
            if recv.kind not in ("name", "attr"):
                made = highest(made, self.expr_cost(recv, module, mro, locals_, attrs, bound))
            return say(made, "`.{}` makes a tensor of the sizes it is given", call.attr)
        if recv is not None and call.attr not in METADATA_METHODS:
            if recv.kind in ("call", "name", "op", "subscript"):
                best = self.expr_cost(recv, module, mro, locals_, attrs, bound)
                if isinstance(best, BodyError) or best == HEAVY:
                    return say(best, "what it is called on is heavy work")
            times = repeated_numel(call, bound) if call.attr in ("repeat", "tile") else None
            if times is not None and recv.kind == "call":  # (of a build written out: its size)
                vector = self.vector_total(recv, module, bound)
                times *= (
                    vector[0] * vector[1]
                    if vector is not None
                    else self._written_total(recv, module, bound) or 1
                )
            if times is not None and times >= WRITTEN_NUMEL:
                # (``row.repeat(1024, 1024)``: at least as many numbers as it is repeated)
                return say(HEAVY, "`.{}` repeats a tensor {} times", call.attr, times)
            if call.attr in GROWING_METHODS and best == UNKNOWN:
                # ``t.outer(f)``, ``row.repeat(n, 1)``: more dimensions than the tensor
                # it is called on, which is of a size not known here
                return say(HEAVY, "`.{}` adds dimensions to a tensor of unknown size", call.attr)
            if call.attr in ("repeat", "tile") and times is None and best == LIGHT:
                return say(
                    UNKNOWN, "`.{}` repeats a tensor a number of times not known here", call.attr
                )
        if not name:
            # ``REGISTRY[kind](d)``, ``getattr(nn, name)(d)``: a callable computed at run time
            if recv is not None:
                return say(best, "a method of a value")
            picks = self.choices.choices(module, call.callee, bound) if call.callee else ()
            if picks:  # ``MODELS[arch](d)``: one of the classes a table written out holds
                priced = self._chosen_cost(picks, call, module, mro, locals_, attrs, bound)
                names = ", ".join(n for _, n in picks)
                return say(priced, "the value called is one of {}", names)
            return say(highest(best, UNKNOWN), "a callable computed at run time, not followed")
        held = bound.get(name)
        if held is not None and held.ref is not None:  # ``attn_cls(...)``: what it was given
            given = self.index.resolve_value(*held.ref)
            if given is None:
                return say(highest(best, UNKNOWN), "`{}` holds a callable not found here", name)
            priced = self._ref_cost(given, call, module, mro, locals_, attrs, bound)
            return say(highest(best, priced), "`{}` holds {}, as given", name, given.name)
        if held is not None and held.choices:  # ``conv = A if transposed else B``
            priced = self._chosen_cost(held.choices, call, module, mro, locals_, attrs, bound)
            names = ", ".join(n for _, n in held.choices)
            return say(highest(best, priced), "`{}` holds one of {}", name, names)
        if held is not None and recv is None:
            # an argument or a local: not the module-level name it may shadow
            return say(highest(best, UNKNOWN), "`{}` holds a callable not known here", name)
        # Built-in knowledge of torch and numpy stays the judge of their own classes and
        # functions where they are installed (nn.ModuleList is cheap, nn.Linear is not;
        # their sources wrap compiled code the simulation cannot follow); other
        # dependencies are judged from their source, like the project, the modules read
        # when first needed: what a call costs never depends on what else this run read.
        public = self.index.public_name(module, name)
        library = public.partition(".")[0] if public is not None else ""
        if public is not None and library in KNOWN_LIBRARIES:
            external = self._external_call(public, call, module, mro, locals_, attrs, bound)
            return say(highest(best, external), "{}, by what initlint knows of {}", public, library)
        target = self.index.resolve(module, name)
        if target is not None and target.name.startswith("torch."):
            if self.index.in_dependency(target):
                external = self.external_cost(public or target.name, call, bound)
                return say(highest(best, external), "{}, by what initlint knows", target.name)
        if recv is not None and recv.kind == "name" and target is None:
            imported = bound.get(recv.name)
            if imported is not None and imported.ref is not None:
                owner = self.index.resolve_value(*imported.ref)
                if owner is None or owner.kind == "external":
                    # ``Allocator.get(device)`` after a function's ``from lib import
                    # Allocator``: a library initlint does not read
                    text = "a method of `{}`, which the function imports from a library not read"
                    return say(highest(best, UNKNOWN), text, recv.name)
        if recv is not None and call.attr and (target is None or target.kind == "attribute"):
            inherited = self._class_method(module, recv, locals_, bound, call.attr)
            if inherited == "missing":  # as for ``self.method()``: a base initlint cannot read
                return say(best, "no such method is found")
            if inherited is not None:  # ``Model.from_config_dict(cfg)``: through its MRO
                fn, owner_mro = inherited
                return say(highest(best, self.function_cost(fn, owner_mro)), "runs {}", fn)
            if target is not None:  # a value a class or module holds, called
                text = "`{}`: a value of a class or module, not followed"
                return say(highest(best, UNKNOWN), text, name)
        if target is None:
            if name in IO_CALLS or self._matches(name, self.expensive_calls):
                return say(HEAVY, "`{}` reads or writes files", name)
            if recv is None and name not in BUILTIN_NAMES:
                # a local or argument holding some callable
                return say(highest(best, UNKNOWN), "`{}` is not known here", name)
            if recv is not None and recv.kind == "name" and recv.name not in locals_:
                if self._imported_object(module, recv.name):
                    # ``MODELS.build(cfg)``: a method of an object another module made
                    text = "a method of `{}`, an object another module made"
                    return say(highest(best, UNKNOWN), text, recv.name)
            return say(best, "a builtin, or a method of a value")
        if target.kind == "external":
            external = self._external_call(target.name, call, module, mro, locals_, attrs, bound)
            if (
                external == NONE
                and not self.index.known_external(target.name)
                and not self._matches(target.name, self.cheap_calls)
            ):
                # a library the environment does not hold: not read
                text = "{}: nothing initlint could read (not installed, or an object's method)"
                return say(UNKNOWN, text, target.name)
            return say(highest(best, external), "{}, by what initlint knows", target.name)
        if target.kind == "class":
            info = self.index.class_info(target.name)
            if info is None:
                return say(best, "{}, not read", target.name)
            return say(highest(best, self.class_cost(info, call, bound)), "builds {}", info)
        if target.kind == "function":
            fn = self.index.function_info(target.name)
            if fn is None:
                return say(best, "{}, not read", target.name)
            priced = self.function_cost(fn, (), *self._function_args(fn, call, bound))
            return say(highest(best, priced), "runs {}", fn)
        return say(best, "{}", target.name)

    def _class_method(
        self, module: Module, recv: Expr, locals_: Costs, bound: Bound, attr: str
    ) -> tuple[FunctionInfo, tuple[str, ...]] | Literal["missing"] | None:
        """The method ``attr`` of the class ``recv`` names, found through that class's MRO
        as Python finds it (a classmethod inherited from a mixin), and that MRO; "missing"
        when the class has no such method initlint reads; None when ``recv`` names no
        class."""
        if recv.kind not in ("name", "attr") or not recv.name:
            return None
        head = recv.name.partition(".")[0]
        imported = bound.get(recv.name)
        if imported is not None and imported.ref is not None:  # imported in the function
            owner = self.index.resolve_value(*imported.ref)
        elif head in locals_ or head in bound or head == "self":
            return None
        else:
            owner = self.index.resolve(module, recv.name)
        if owner is None or owner.kind != "class":
            return None
        owner_mro = self.index.mro(owner.name).classes
        fn = self.index.lookup_method(owner_mro, attr)
        return "missing" if fn is None else (fn, owner_mro)

    def _said(self, level: Priced, why: str, *parts: object) -> Priced:
        """``level``, with the reason ``why`` (a format of ``parts``) noted when ``why_of``
        is asking: worded only then, as pricing runs hot."""
        if self.notes is not None:
            shown = (_place(p) if isinstance(p, FunctionInfo | ClassInfo) else p for p in parts)
            self.notes.append((why.format(*shown), next(_readable(parts), None)))
        return level

    def why_of(self, e: Expr | None, module: Module, mro: tuple[str, ...]) -> tuple[int, str]:
        """Where the cost of evaluating ``e`` comes from, for ``explain-class``: its
        costliest call and why that call costs what it does (the construction it
        simulated, what initlint knows of a library, or why it is not known), followed one
        level into a function or class it runs; with the cost found so. Priced without the
        values of the frame's names (what an argument holds): "" when no call in ``e``
        costs anything that way."""
        return self._why(e, module, mro, 0)

    def _why(
        self,
        e: Expr | None,
        module: Module,
        mro: tuple[str, ...],
        depth: int,
        bound: Bound = NO_BOUND,
    ) -> tuple[int, str]:
        best, said, inner = NONE, "", None
        stack = [e] if e is not None else []
        while stack:
            cur = stack.pop()
            stack.extend(c for c in (*cur.children, cur.receiver) if c is not None)
            if cur.kind != "call":
                continue
            self.notes = []
            try:
                priced = self._call(cur, module, mro, NO_COSTS, NO_COSTS, bound)
                reason, ran = self.notes[-1] if self.notes else ("", None)
            finally:
                self.notes = None
            if isinstance(priced, int) and priced > best:
                best, said, inner = priced, f"{_shown(cur)}: {reason}", ran
        if inner is not None and best > LIGHT and depth < 1:
            deeper = self._body_why(inner, mro, depth + 1, best)
            if deeper:
                said += f", where {deeper}"
        return best, said

    def _body_why(
        self, ran: FunctionInfo | ClassInfo, mro: tuple[str, ...], depth: int, level: int
    ) -> str:
        """The reason of the first value of ``ran``'s body (a class's ``__init__``) that
        costs ``level``."""
        if isinstance(ran, ClassInfo):
            mro = self.index.mro(ran.qualname).classes
            init = self.index.lookup_method((ran.qualname,), "__init__")  # its own only
            if init is None:
                return ""
            ran = init
        elif ran.owner is None:
            mro = ()
        body = ran.facts.load()
        if isinstance(body, BodyError):
            return ""
        imported = self._imports(ran.module, body.effects, {p.name for p in body.params})
        for eff in body.effects:
            if eff.value is None or eff.kind not in ("local", "assign", "return", *_STORES):
                continue
            priced, why = self._why(eff.value, ran.module, mro, depth, imported)
            if priced == level and why:
                return f"line {eff.span.line}: {why}"
        return ""

    def _imports(
        self, module: Module, effects: Iterable[Effect], bound: AbstractSet[str] | Mapping[str, Val]
    ) -> dict[str, Val]:
        """What the imports among ``effects`` bind where calling the name, or a method of
        it, runs a class or function the import names (``ProjectIndex.imported_ref``):
        Python binds a function's import there, before the module's names. An import on
        some paths only leaves a name ``bound`` before to what it held."""
        out: dict[str, Val] = {}
        for eff in effects:
            if eff.kind == "import" and not (_path_guard(eff.guard) and eff.name in bound):
                ref = self.index.imported_ref(module, import_of(eff))
                if ref is not None:
                    out[eff.name] = Val("unknown", ref=ref)
        return out

    def _imported_object(self, module: Module, name: str) -> bool:
        """``name`` is imported into ``module`` and resolves to no class, function or module
        initlint knows: an object some module made (a registry, a settings object)."""
        classes, functions, imports = self.index.name_table(module).named.get(name, NO_BINDINGS)
        return bool(imports) and not classes and not functions

    def target_cost(self, target: Target, module: Module, mro: tuple[str, ...]) -> Priced:
        """What building the class or function ``target`` costs with arguments initlint
        does not see: a class a spec possibly holds (``builds.py``)."""
        call = Expr("call", name=target.name)
        return self._ref_cost(target, call, module, mro, NO_COSTS, NO_COSTS, NO_BOUND)

    def _ref_cost(
        self,
        target: Target,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound,
    ) -> Priced:
        """What calling the class or function ``target`` costs: a name bound to one, such as
        a parameter whose default is a class (``attn_cls=Attention``)."""
        if target.kind == "external" or (
            target.name.startswith("torch.") and self.index.in_dependency(target)
        ):
            return self._external_call(target.name, call, module, mro, locals_, attrs, bound)
        if target.kind == "class":
            info = self.index.class_info(target.name)
            return NONE if info is None else self.class_cost(info, call, bound)
        fn = self.index.function_info(target.name)
        if fn is None:
            return NONE
        return self.function_cost(fn, (), *self._function_args(fn, call, bound))

    def _chosen_cost(
        self,
        choices: tuple[tuple[str, str], ...],
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound,
    ) -> Priced:
        """What calling a value that is one of ``choices`` costs: what they all cost when
        they agree on heavy work, the most any of them costs when none is more than light,
        and unknown otherwise (which one runs is not known), or when one is not found or
        is a library initlint cannot read."""
        levels: list[int] = []
        for written_in, dotted in choices:
            target = self.index.resolve_value(written_in, dotted)
            if target is None:
                return UNKNOWN
            if target.kind == "external" and not (
                target.name.startswith("torch.") or self.index.known_external(target.name)
            ):
                return UNKNOWN
            priced = self._ref_cost(target, call, module, mro, locals_, attrs, bound)
            if isinstance(priced, BodyError):
                return priced
            levels.append(priced)
        if min(levels) == HEAVY or max(levels) <= LIGHT:
            return max(levels)
        return UNKNOWN

    def _external_call(
        self,
        name: str,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        if name == "copy.deepcopy":
            return self._copy_cost(call, module, mro, locals_, attrs)
        like = positional_values(call)[:1] if name.startswith("torch.") else ()
        if name.endswith("_like") and like and like[0].kind in ("name", "attr"):
            # ``torch.ones_like(self.weight)``: a tensor as big as the one it is like, which
            # costs what making that one did (a 1-D weight's size is not known here); one
            # made elsewhere (an argument) is of a size not known here
            return self._like_cost(like[0], locals_, attrs)
        if legacy_sized(name, call):
            # ``torch.Tensor(out, in, *k)``: an uninitialised tensor of that shape
            return tensor_cost("empty", call, bound)
        if name in DATA_CONVERSIONS and call.children:
            data = list(positional_values(call))
            if name in FROM_VALUES and len(data) == 1 and _flat_values(data[0]):
                # ``torch.tensor([alpha] * n)``, ``torch.tensor([0.5, beta])``: one value per
                # item of a flat display, a 1-D vector
                return LIGHT
            if data and all(_made_here(d, locals_) for d in data):
                # an array of the values this function computed: as big as they are, and
                # what computing them cost is counted where they were computed
                return LIGHT
            if data and all(d.kind in ("call", "subscript") for d in data):
                # an array of values computed right here (``from_numpy(np.arange(n))``):
                # as costly as computing them
                priced: Priced = LIGHT
                for d in data:
                    priced = highest(priced, self.expr_cost(d, module, mro, locals_, attrs, bound))
                return priced
        return self.external_cost(name, call, bound)

    def _like_cost(self, like: Expr, locals_: Costs, attrs: Costs) -> int:
        """What a ``torch.*_like(like)`` tensor costs: what making ``like`` did (a local's,
        or a self attribute's as stored); unknown for one made elsewhere."""
        if like.kind == "attr" and like.receiver is not None and like.receiver.name == "self":
            return attrs.get(like.attr, UNKNOWN)
        if like.kind == "name":
            made = locals_.get(like.name, NONE)
            return UNKNOWN if made == NONE else made
        return UNKNOWN

    def _copy_cost(
        self, call: Expr, module: Module, mro: tuple[str, ...], locals_: Costs, attrs: Costs
    ) -> Priced:
        """``copy.deepcopy(x)`` costs what building ``x`` cost; at least LIGHT when ``x`` is
        not known (a copy of some object), NONE for a constant."""
        if not call.children:
            return NONE
        arg = call.children[0]
        if arg.kind == "const":
            return NONE
        if arg.kind == "attr" and arg.receiver is not None and arg.receiver.name == "self":
            known = attrs.get(arg.attr)
            if known is not None:
                return known
        elif arg.kind == "name" and arg.name in locals_:
            return max(LIGHT, locals_[arg.name])
        return highest(LIGHT, self.expr_cost(arg, module, mro, locals_, attrs))

    def class_cost(
        self, info: ClassInfo, call: Expr | None = None, bound: Bound = NO_BOUND
    ) -> Priced:
        """A project class costs what its ``__init__`` chain costs, and at least LIGHT when it
        has an ``__init__`` of its own or is an ``nn.Module``; one that inherits a torch
        module with parameters (``nn.Linear``) is HEAVY. A class without either (a plain
        dataclass, an enum) costs nothing. A body that does not parse ends the pricing: its
        error is returned, and the recursion guard is taken back (nothing memoised).
        ``call``, the call that builds it: the parameters of the ``__init__`` it runs that
        the call leaves out keep their defaults (``conv_block=None``, then ``if conv_block
        is None: conv_block = BasicConv2d``), and those it gives a constant (or a name
        ``bound`` holds one in) hold it."""
        mro = self.index.mro(info.qualname).classes
        first, fixed = self._first_init(mro, call, bound)
        key = (info.qualname, fixed)
        if key in self._cls_memo:
            return self._cls_memo[key]
        self._cls_memo[key] = NONE  # recursion guard
        result = NONE
        for qual in mro:
            cinfo = self.index.class_info(qual)
            if cinfo is None or cinfo.module.is_dependency:
                head, _, last = qual.rpartition(".")
                if head.startswith("torch.nn"):
                    # torch.nn.Module, or torch.nn.modules.module.Module
                    if last == "Module":
                        result = max(result, LIGHT)
                    elif last not in CHEAP_NN:
                        result = max(result, self.external_cost(qual))
                if result == HEAVY:
                    break
            if cinfo is None or (cinfo.module.is_dependency and qual.startswith("torch.")):
                continue  # torch's own classes: judged by what the cost model knows of them
            init = cinfo.facts.method("__init__")
            if init is not None:
                fn = FunctionInfo(f"{qual}.__init__", cinfo.module, init, cinfo)
                # An object whose own __init__ sets it up (a sampler, a matcher) is light
                # work at the least.
                priced = self.function_cost(fn, mro, fixed if qual == first else None)
                if isinstance(priced, BodyError):
                    del self._cls_memo[key]
                    return priced
                result = max(result, LIGHT, priced)
                if result == HEAVY:
                    break
        self._cls_memo[key] = result
        return result

    def _first_init(
        self, mro: tuple[str, ...], call: Expr | None, bound: Bound
    ) -> tuple[str, Fixed | None]:
        """The class of ``mro`` whose ``__init__`` a call of the first runs, when initlint
        reads it (not one of torch's own), and the constants ``call`` fixes of its
        parameters; ("", None) otherwise."""
        init = self.index.lookup_method(mro, "__init__") if call is not None else None
        owner = init.owner if init is not None else None
        if call is None or init is None or owner is None or _torch_or_none(init):
            return "", None
        body = init.facts.load()
        if isinstance(body, BodyError):
            return "", None
        values = _call_values(call, body.params[1:])
        return owner.qualname, _call_consts(call, values, self._names(bound))

    def _function_args(
        self, fn: FunctionInfo, call: Expr, bound: Bound
    ) -> tuple[Fixed | None, Shapes]:
        """The constants a call of the module-level function ``fn`` fixes of its parameters
        (as a class's call does of its ``__init__``'s), and the shapes it passes; none for
        a decorated function (its wrapper may pass others)."""
        if fn.owner is not None or fn.facts.decorators:
            return None, ()
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return None, ()
        values = _call_values(call, body.params)
        names = self._names(bound)
        return _call_consts(call, values, names), _call_shapes(call, values, bound, names)

    def _names(self, bound: Bound) -> Bound:
        """What the caller's names hold, as far as a call's constants may be read from them:
        only on the cheapest path, whose frame holds the constructed class's defaults. (The
        simulation walks a loop once and does not follow ``:=``, so a name it holds a
        constant in may hold another when the call runs: no reason to rule a path out.)"""
        return bound if self.least else NO_BOUND

    def none_isinstance(self, module: Module, text: str) -> bool | None:
        """How ``isinstance(None, <text>)`` comes out, the classes as written in ``module``
        (``nn.Module``, ``(A, B)``): false where they are classes of the project or of
        torch, which None is no instance of; not decided for a name bound to a tuple, a
        typing construct, another library's abstract class, or None's own class."""
        if not _CLASS_NAMES.fullmatch(text) or _NONE_CLASSES.search(text):
            return None
        for name in text.strip("() ").split(","):
            target = self.index.resolve(module, name.strip()) if name.strip() else None
            if target is None:
                return None
            if target.kind != "class" and not (
                target.kind == "external" and target.name.startswith("torch.")
            ):
                return None
        return False

    def function_cost(
        self,
        fn: FunctionInfo,
        mro: tuple[str, ...],
        fixed: Fixed | None = None,
        shapes: Shapes = (),
    ) -> Priced:
        """The highest cost of the work ``fn`` does: what it stores, registers, returns or
        leaves in a local (work done into a local counts for the function that does it),
        and the methods it calls on ``self``. A memoised factory costs nothing. ``fixed``:
        the parameters the call fixes to constants (None: the call is not seen);
        ``shapes``: those it passes a tuple display."""
        if fn.owner is None:
            memo = self.memos.memoised(fn)
            if memo is not False:
                return NONE if memo is True else memo
        return self.body_cost(fn, mro, fixed, shapes)

    def callee_of(
        self, module: Module, eff: Effect, mro: tuple[str, ...], caller: FunctionInfo | None = None
    ) -> FunctionInfo | None:
        """The method a call effect runs on the object: through the class it names
        (``Base.method(self)``); after the ``caller``'s class in the object's MRO for
        ``super().method()`` (after the class named for ``super(X, self)``); else through
        the object's MRO."""
        if eff.detail == "explicit":
            owner = self.index.resolve(module, eff.target)
            if owner is None or owner.kind != "class":
                return None
            return self.index.lookup_method(self.index.mro(owner.name).classes, eff.name)
        if not mro:
            return None
        if eff.detail in ("super", "super2"):
            after = caller.owner.qualname if caller is not None and caller.owner else None
            if eff.detail == "super2":
                named = self.index.resolve(module, eff.target)
                after = named.name if named is not None and named.kind == "class" else None
            if after not in mro:
                return None
            return self.index.lookup_method(mro, eff.name, mro.index(after) + 1)
        return self.index.lookup_method(mro, eff.name)

    def body_cost(
        self,
        fn: FunctionInfo,
        mro: tuple[str, ...] = (),
        fixed: Fixed | None = None,
        shapes: Shapes = (),
    ) -> Priced:
        """What running ``fn``'s body costs, a memoised function's too: the work a call
        does when its cache holds nothing for its arguments."""
        key = (fn.qualname, mro[0] if mro else "", fixed, shapes)
        if key in self._fn_memo:
            return self._fn_memo[key]
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        self._fn_memo[key] = NONE  # recursion guard: a cycle adds nothing
        priced = self._effects_cost(fn, body, mro, fixed, shapes)
        if isinstance(priced, BodyError):
            del self._fn_memo[key]  # taken back: a later pricing meets the error again
            return priced
        self._fn_memo[key] = priced
        return priced

    def _effects_cost(
        self,
        fn: FunctionInfo,
        body: Body,
        mro: tuple[str, ...],
        consts: Fixed | None,
        shapes: Shapes = (),
    ) -> Priced:
        local_cost: dict[str, int] = {}
        # the parameters the call fixes to constants, until rebound: what the tests that
        # read only them come to (work on a path they rule out is not done)
        fixed = dict(consts) if consts is not None else {}
        # what the names hold, where that is classes written in the code (the arguments:
        # not known, whatever module-level name they shadow)
        held: dict[str, Val] = dict.fromkeys((p.name for p in body.params), UNKNOWN_VALUE)
        held.update(shapes)
        # (the object's attributes holding numbers written in the code: ``self.max_pos``;
        # not those a loop may write, whose later passes read what an earlier one wrote)
        written = {k for k, _ in shapes if k.startswith("self.")}
        for eff in body.effects if written else ():
            if eff.loops:
                _forget_written(eff, written, held)
        if fn.facts.is_classmethod and body.params and mro:
            # ``cls`` is the class the method was looked up on (``Text._from_config(c)``
            # runs ``cls(c)`` as ``Text(c)``), the first of the MRO it is priced with
            held[body.params[0].name] = self._class_value(mro[0])
        walks: dict[str, str] = {}  # locals that walk the object's parameters: the part walked
        given: set[str] = set()  # locals that walk the parameters of an object passed in
        # (pricing the cheapest path) each effect's cost, and the parameters' constants that
        # still stand there (not rebound before it)
        priced: list[Priced_] = []
        standing: Mapping[str, Const] = (
            dict(consts) if consts is not None else const_defaults(body.params)
        )
        none_test = partial(self.none_isinstance, fn.module)
        result = NONE
        c: Priced
        loops = loop_bindings(body.effects)
        for eff in _past_returns(body.effects) if self.least else body.effects:
            kind = eff.kind
            for loop, outer in loop_entries(eff) if loops and eff.loops else ():
                # (a pass may follow another: what the loop binds is not known on entry)
                binds = loops.pop(loop, None)
                if binds and _guard_truth(outer, fixed, none_test) is not False:
                    bound = {b.name for b in binds}
                    fixed = {k: v for k, v in fixed.items() if k not in bound}
                    standing = {k: v for k, v in standing.items() if k not in bound}
                    rebound = {b.name for b in binds if b.rebinds}
                    held.update((k, UNKNOWN_VALUE) for k in rebound & held.keys())
            runs = _guard_truth(eff.guard, fixed, none_test) if fixed else None
            if runs is False:
                continue
            if written:
                _forget_written(eff, written, held)
            # (the constants standing when the effect's statement starts: what the tests
            # around it were made with, before it rebinds a name)
            opening = standing
            if kind == "objattr" and (head := eff.name.partition(".")[0]) in held:
                if held[head].numel is not None:  # (``t.resize_(n)``, ``t.data = u``)
                    held[head] = UNKNOWN_VALUE
            if kind in ("local", "objattr"):
                # (``n += 1`` is an ``objattr`` of ``n``: rebound, no longer the constant)
                fixed.pop(eff.name, None)
                if eff.name in standing:
                    standing = {k: v for k, v in standing.items() if k != eff.name}
            if kind == "local":
                c = self.expr_cost(eff.value, fn.module, mro, local_cost, bound=held)
                if isinstance(c, BodyError):
                    return c
                if self.least and eff.name in local_cost and _path_guard(eff.guard):
                    c = min(c, local_cost[eff.name])  # bound here on some paths only
                local_cost[eff.name] = c  # (NONE too: a local made here, ``_made_here``)
                holds = self.choices.held(fn.module, eff.value, held)
                before = held.get(eff.name)
                either = eff.guard and before is not None and not runs  # some paths
                if either:
                    holds = merge([before, holds])
                elif holds is None:
                    holds = self.sized_vector(eff.value, fn.module, held)
                held[eff.name] = UNKNOWN_VALUE if holds is None else holds
                walks.pop(eff.name, None)
                given.discard(eff.name)
                walked = _walk(eff.value)
                if walked is not None and walked[0] == "self":
                    walks[eff.name] = walked[1]
                elif walked is not None:
                    given.add(eff.name)
            elif kind == "import":
                held.update(self._imports(fn.module, (eff,), held))
                continue
            elif kind in ("assign", "return", "buffer", "mutate"):
                c = self.expr_cost(eff.value, fn.module, mro, local_cost, bound=held)
            elif kind == "call":
                callee = self.callee_of(fn.module, eff, mro, fn)
                c = self.method_cost(fn.module, eff, callee, mro)
            elif kind == "init":
                c = self._init_cost(eff, mro, walks, local_cost.keys() - given)
            elif kind == "helper":
                c = self._helper_cost(fn, eff, mro)
            elif kind == "held_call":
                c = self._held_call_cost(eff, mro)
            elif kind == "raise":
                c = NONE
            elif kind == "objattr" and eff.value is not None and "." not in eff.name:
                # a local container filled: it holds what went in
                c = self.expr_cost(eff.value, fn.module, mro, local_cost)
                if isinstance(c, BodyError):
                    return c
                if c:
                    local_cost[eff.name] = max(local_cost.get(eff.name, NONE), c)
                continue
            else:
                continue
            if isinstance(c, BodyError):
                return c
            if self.least:
                priced.append((eff, c, opening))
            elif c > result:
                result = c
                if result == HEAVY:
                    break
        return _cheapest_path(priced, none_test) if self.least else result

    def _class_value(self, qualname: str) -> Val:
        """A value naming the class ``qualname``, as an argument naming it is."""
        info = self.index.class_info(qualname)
        if info is None or not qualname.startswith(f"{info.module.name}."):
            return UNKNOWN_VALUE  # (an earlier definition of a name, ``module.Name@line``)
        return Val("unknown", ref=(info.module.name, qualname[len(info.module.name) + 1 :]))

    def _init_cost(
        self, eff: Effect, mro: tuple[str, ...], walks: Mapping[str, str], made: AbstractSet[str]
    ) -> Priced:
        """What filling a tensor in place costs: as much as the tensor holds. Part of an
        attribute of ``self``: what the construction built there; reached through a walk
        over the object's parameters or modules (``for p in self.parameters()``): the whole
        object's (or the walked part's) weights; a tensor this function made: nothing more
        (making it is counted); one it was given: not known here, unless the fill computes
        fans, which only a tensor of two or more dimensions has: a pass over a weight."""
        filled: Priced
        if eff.detail == "self":
            attr, _, part = eff.target.partition(".")
            built = self._stored_cost(mro, attr)
            # a part of what was built there (``self.fc.bias``): not known to be all of it
            filled = min(built, UNKNOWN) if part and isinstance(built, int) else built
        elif eff.name in walks:
            filled = self._stored_cost(mro, walks[eff.name])
        else:
            filled = NONE if eff.name in made else UNKNOWN
        return HEAVY if eff.fan and filled == UNKNOWN else filled

    def _helper_cost(self, fn: FunctionInfo, eff: Effect, mro: tuple[str, ...]) -> Priced:
        """``initialize(self, ...)``, ``kaiming_init(self.conv)``: what the function does; a
        pass over the weights it is handed (the object's, or what the attribute holds) when
        it initialises what it is given. A class or a library's function handed the object
        costs what building or calling it does; a name not found here, nothing claimed."""
        helper = self.helper_of(fn.module, eff)
        if helper is not None:
            return self._run_on_self(helper, (), mro, eff.target)
        target = self.index.resolve(fn.module, eff.name)
        if target is None or target.kind == "function" or eff.target:
            # (a name initlint cannot find or read: a logging or hook helper as likely as
            # work; its call may have side effects, so no repeat of it is claimed; one
            # handed a part of the object is priced by what it does, where it is read)
            return NONE
        return self.target_cost(target, fn.module, mro)  # a class, or a library's

    def helper_of(self, module: Module, eff: Effect) -> FunctionInfo | None:
        """The function a ``helper`` effect calls, where initlint reads its source."""
        target = self.index.resolve(module, eff.name)
        if target is None or target.kind != "function":
            return None
        return self.index.function_info(target.name)

    def _run_on_self(
        self,
        called: FunctionInfo,
        called_mro: tuple[str, ...],
        mro: tuple[str, ...],
        attr: str = "",
    ) -> Priced:
        """What running ``called`` on the object (or on each module it holds; on what its
        attribute ``attr`` holds, when given that) costs: its own work, and the weights it
        is given when it initialises them."""
        priced = self.function_cost(called, called_mro)
        if isinstance(priced, BodyError) or not self._initialises_given(called):
            return priced
        return highest(priced, self._stored_cost(mro, attr))

    def fills(self, fn: FunctionInfo, mro: tuple[str, ...]) -> bool:
        """Whether running ``fn`` on the object initialises tensors in place, itself or
        through the methods, helpers and ``apply`` it calls: work whose result depends on
        the random draws before it. (Asked only when a fix is planned: not memoised, so
        that a cycle of calls answers the same whichever function is asked first.)"""
        return self._fills(fn, mro, set())

    def _fills(self, fn: FunctionInfo, mro: tuple[str, ...], seen: set[str]) -> bool:
        if fn.qualname in seen:
            return False
        seen.add(fn.qualname)
        body = fn.facts.load()
        for eff in () if isinstance(body, BodyError) else body.effects:
            if eff.kind == "init":
                return True
            if eff.kind == "call":
                callee = self.callee_of(fn.module, eff, mro, fn)
                if eff.name == "apply" and eff.detail == "self" and _torch_or_none(callee):
                    return True
                if callee is not None and not _torch_or_none(callee):
                    if self._fills(callee, mro, seen):
                        return True
            elif eff.kind == "helper":
                helper = self.helper_of(fn.module, eff)
                if helper is not None and self._fills(helper, (), seen):
                    return True
        return False

    def _initialises_given(self, fn: FunctionInfo) -> bool:
        """Whether ``fn`` fills in place a tensor of an object it is given: an argument's
        (``nn.init.normal_(m.weight)``) or one found by walking an argument's parameters
        (``for p in model.parameters(): p.data.zero_()``)."""
        known = self._gives_memo.get(fn.qualname)
        if known is not None:
            return known
        body = fn.facts.load()
        found = False
        if not isinstance(body, BodyError):
            reached = {p.name for p in body.params} - {"self"}
            for eff in body.effects:
                if eff.kind == "local":
                    walked = _walk(eff.value)
                    if walked is not None and walked[0] in reached:
                        reached.add(eff.name)
                elif eff.kind == "init" and eff.detail != "self" and eff.name in reached:
                    found = True
                    break
        self._gives_memo[fn.qualname] = found
        return found

    def method_cost(
        self,
        module: Module,
        eff: Effect,
        callee: FunctionInfo | None,
        mro: tuple[str, ...],
        written: Shapes = (),
    ) -> Priced:
        """What the call effect ``eff`` (in ``module``) on the object costs: the work of the
        method it runs, ``callee``, where the object's attributes ``written`` names hold
        the numbers written in the code it gives (``self.max_pos``, as the call starts).
        torch's own ``apply(fn)`` runs ``fn`` on every module the object holds; torch's
        walks over it (``self.parameters()``) build nothing."""
        if eff.detail == "self" and _torch_or_none(callee):
            if eff.name == "apply":
                return self._apply_cost(module, eff, mro)
            if eff.name in MODULE_WALKS:
                return NONE
        return NONE if callee is None else self.function_cost(callee, mro, shapes=written)

    def _apply_cost(self, module: Module, eff: Effect, mro: tuple[str, ...]) -> Priced:
        """``self.apply(init)`` runs ``init`` on every module the object holds: a pass that
        does work on what it is given (it initialises weights) is a pass over the object's
        weights; one that does none costs nothing; one not known here is unknown."""
        first = eff.args[0] if eff.args else None
        if first is None or first.keyword not in (None, "fn") or first.star:
            return UNKNOWN
        arg = self.index.unwrap_partial(module, first.expr)
        called: FunctionInfo | None = None
        if arg.kind == "attr" and arg.receiver is not None:
            if arg.receiver.kind == "name" and arg.receiver.name == "self":
                called = self.index.lookup_method(mro, arg.attr)
        elif arg.kind == "name":
            target = self.index.resolve(module, arg.name)
            if target is not None and target.kind == "function":
                called = self.index.function_info(target.name)
        if called is None:
            return UNKNOWN
        return self._run_on_self(called, mro if called.owner is not None else (), mro)

    def _stored_cost(self, mro: tuple[str, ...], attr: str) -> Priced:
        """What the ``__init__`` chain of ``mro`` builds into ``self.<attr>`` (every
        attribute for ""); UNKNOWN when it builds nothing there that it shows (the
        attribute is built elsewhere)."""
        key = (mro[0] if mro else "", attr)
        known = self._stored_memo.get(key)
        if known is not None:
            return known
        self._stored_memo[key] = UNKNOWN  # recursion guard
        result: int | None = None
        if not attr:  # the whole object: torch's module classes it is too (``nn.Linear``)
            for qual in mro:
                if qual.startswith("torch.nn") and qual.rpartition(".")[2] != "Module":
                    result = max(result or NONE, self.external_cost(qual))
        for qual in mro if attr else ():
            # a tensor torch's own class registers (``nn.Linear``'s weight): a vector is
            # light, any other (a matrix, a kernel, an embedding table) heavy
            if attr in torch_params(qual):
                result = max(result or NONE, LIGHT if torch_vector(qual, attr) else HEAVY)
        for cinfo, body in self._init_bodies(mro):
            locals_: dict[str, int] = {}
            for e in body.effects:
                stored = e.kind in _STORES and (not attr or e.name == attr)
                if e.kind == "local" or stored:
                    c = self.expr_cost(e.value, cinfo.module, mro, locals_)
                    if isinstance(c, BodyError):
                        continue
                    if e.kind == "local":
                        locals_[e.name] = c
                    else:
                        result = max(result or NONE, c)
        priced = UNKNOWN if result is None else result
        self._stored_memo[key] = priced
        return priced

    def _init_bodies(self, mro: tuple[str, ...]) -> Iterator[tuple[ClassInfo, Body]]:
        """The ``__init__`` bodies of ``mro``'s project classes (torch's own are judged by
        what the cost model knows of them), each with its class; bodies that do not parse
        left out."""
        for qual in mro:
            cinfo = self.index.class_info(qual)
            init = cinfo.facts.method("__init__") if cinfo is not None else None
            if cinfo is None or init is None or qual.startswith("torch."):
                continue
            body = init.load()
            if not isinstance(body, BodyError):
                yield cinfo, body

    def _held_call_cost(self, eff: Effect, mro: tuple[str, ...]) -> Priced:
        """What ``self.<held>.<method>(...)`` costs: the method's work, for each project
        class the construction stores in that attribute (``self.quant_method =
        UnquantizedLinearMethod()``). An object of a class it does not know is not priced."""
        result: Priced = NONE
        for qual in self._held_classes(mro).get(eff.target, ()):
            held_mro = self.index.mro(qual).classes
            method = self.index.lookup_method(held_mro, eff.name)
            if method is not None:
                result = highest(result, self.function_cost(method, held_mro))
        return result

    def _held_classes(self, mro: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """The project classes the ``__init__`` chain of ``mro`` constructs into each ``self``
        attribute (``self.x = Cls(...)``)."""
        key = mro[0] if mro else ""
        known = self._held_memo.get(key)
        if known is not None:
            return known
        held: dict[str, tuple[str, ...]] = {}
        for cinfo, body in self._init_bodies(mro):
            for attr, cls in self._stored_classes(cinfo.module, body):
                held[attr] = (*held.get(attr, ()), cls)
        self._held_memo[key] = held
        return held

    def _stored_classes(self, module: Module, body: Body) -> Iterator[tuple[str, str]]:
        """(attribute, class) for each ``self.x = Cls(...)`` of ``body``, also through a local
        (``m = Cls()``, ``self.x = m``) and a class imported in the function (which Python
        binds there, before the module's names)."""
        imported = {e.name: e for e in body.effects if e.kind == "import"}
        made: dict[str, list[Expr]] = {}  # a local's values
        for eff in body.effects:
            value = eff.value
            if eff.kind == "local" and value is not None and value.kind == "call":
                made.setdefault(eff.name, []).append(value)
            if eff.kind != "assign" or value is None:
                continue
            for call in made.get(value.name, []) if value.kind == "name" else [value]:
                if call.kind != "call":
                    continue
                local = imported.get(call.name)
                if local is not None:
                    target = self.index.resolve_import(module, import_of(local))
                else:
                    target = self.index.resolve(module, call.name)
                if target is not None and target.kind == "class":
                    yield eff.name, target.name


# What a construction stores on ``self``.
_STORES = ("assign", "buffer", "mutate")


# Casts that keep a tensor's numbers, with the room each number takes after them (in
# float32 numbers; 0: not said, the tensor's own); torch factories of one size (a vector).
_CASTS: dict[str, tuple[int, bool] | None] = {
    **dict.fromkeys(("float", "half", "bfloat16"), (1, False)),
    **dict.fromkeys(("int", "short", "bool"), (1, True)),
    "double": (2, False),
    "long": (2, True),
    **dict.fromkeys(("to", "type", "type_as", "contiguous", "clone"), None),
}
# Methods that cast to a dtype they are given (``t.to(torch.float64)``, ``t.type(dtype)``).
_DTYPE_CASTS = frozenset({"to", "type", "type_as"})
# A vector's count of numbers, the room of each in float32 numbers, whether integers.
Vector = tuple[int, int, bool]
_VECTORS = frozenset("zeros ones empty rand randn".split())
# Tensor methods that do an arithmetic op with their argument (``a.mul(b)``: ``a * b``).
_ARITHMETIC_METHODS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "subtract": "-"}
_ARITHMETIC_METHODS |= {"multiply": "*", "divide": "/", "true_divide": "/", "pow": "**"}


def _uncast(e: Expr) -> tuple[Expr, tuple[int, bool] | None]:
    """``e`` without the casts around it (``t.float().contiguous()``: ``t``), and the room
    in float32 numbers and kind (integers or not) the outermost cast that says one gives
    each number (None: none does)."""
    cast: tuple[int, bool] | None = None
    while e.kind == "call" and e.attr in _CASTS and e.receiver is not None:
        said = _dtype_cast(e) if e.attr in _DTYPE_CASTS else _CASTS[e.attr]
        cast = cast or said
        e = e.receiver
    return e, cast


def _dtype_cast(call: Expr) -> tuple[int, bool] | None:
    """What ``t.to(...)``, ``t.type(...)``, ``t.type_as(u)`` make each number: the dtype it
    is given (``torch.float64``), wide where that may be a dtype not known here (a name, an
    attribute, ``u``'s); None where it is given only a place (``"cuda"``, ``device=d``)."""
    given = dict(zip(call.keywords, call.children[len(call.positional()) :], strict=False))
    dtype = given.get("dtype")
    if dtype is None and call.attr != "type_as":
        places = [c for c in call.positional() if c.kind != "const"]
        if not places or "device" in given:
            return None  # (``t.to("cuda")``, ``t.to(device=d)``)
        dtype = places[-1] if len(places) > 1 else places[0]
    if dtype is None or not (dtype.kind == "attr" and dtype.name.startswith("torch.")):
        return 2, False  # (a dtype not known here counts wide)
    return dtype_room(dtype, False), dtype_integer(dtype, False)


def _oriented(e: Expr) -> tuple[int, Expr] | None:
    """The axis, counted from the end, along which a view of a vector lays its numbers
    (``t[:, None]``, ``t.unsqueeze(1)``, ``t.view(-1, 1)``: -2, a column; ``t[None, :]``,
    ``t.unsqueeze(0)``: -1, a row; ``t[:, None, None]``: -3), also cast
    (``t[:, None].float()``) or scaled by a number (``2.0 * t[:, None]``), and the tensor
    viewed; None for any other value."""
    e = _uncast(e)[0]
    if e.kind == "op" and e.name in _ARITHMETIC and len(e.children) == 2:
        left, right = e.children
        if right.kind == "const":
            return _oriented(left)
        return _oriented(right) if left.kind == "const" else None
    base = e.receiver
    if base is None:
        return None
    if e.kind == "subscript" and e.name == "newaxis":
        items = e.attr.split(",")
        if items.count(":") > 1 or items.count("...") > 1:
            return None  # (a view of more than one dimension, or no index Python takes)
        # (the vector's one dimension is where ``:`` is, else where ``...`` is, else after
        # the index, as torch leaves the dimensions an index does not name)
        whole = ":" if ":" in items else "..." if "..." in items else ""
        return (items.index(whole) - len(items) if whole else -1), base
    if e.kind != "call" or len(e.children) != (1 if e.attr == "unsqueeze" else 2):
        return None
    if e.keywords and (e.attr != "unsqueeze" or e.keywords != ("dim",)):
        return None
    given = tuple(int_value(c) for c in e.children)
    if e.attr == "unsqueeze" and given in ((1,), (-1,), (0,)):
        return (-1 if given == (0,) else -2), base
    if e.attr in ("view", "reshape") and given in ((-1, 1), (1, -1)):
        return (-2 if given == (-1, 1) else -1), base
    return None


def _shape_tuple(e: Expr) -> bool:
    """Whether ``e`` is a shape written as a tuple of more than one size, or a pack of
    them (``(512, 64)``, ``*shape``)."""
    return e.kind == "op" and (e.name == "*" or (e.name == "tuple" and len(e.children) != 1))


def _walk(value: Expr | None) -> tuple[str, str] | None:
    """The object and part a loop or local walks the parameters or modules of: ("self",
    "") for ``self.parameters()``, ("self", "enc") for ``self.enc.modules()``, ("model",
    "") for ``model.parameters()``; None when ``value`` is no such walk."""
    if value is None or value.kind != "call" or value.attr not in MODULE_WALKS:
        return None
    recv = value.receiver
    if recv is None:
        return None
    if recv.kind == "name":
        return recv.name, ""
    if recv.kind == "attr" and recv.receiver is not None and recv.receiver.kind == "name":
        return recv.receiver.name, recv.attr
    return None


def _place(info: FunctionInfo | ClassInfo) -> str:
    """A function or class by name and where it is defined."""
    span = info.facts.span
    return f"{info.qualname} ({info.module.path.name}:{span.line})"


def _readable(parts: tuple[object, ...]) -> Iterator[FunctionInfo | ClassInfo]:
    """The functions and classes among a reason's parts: what the call runs."""
    return (p for p in parts if isinstance(p, FunctionInfo | ClassInfo))


def _shown(call: Expr) -> str:
    """A call as a short text: ``nn.Linear(...)``, ``self._build(...)``, ``(...)(...)``."""
    if call.name:
        return f"{call.name}(...)"
    if call.attr:
        return f"....{call.attr}(...)"
    return "a computed callable(...)"


def _torch_or_none(fn: FunctionInfo | None) -> bool:
    """No project method: torch's own (``nn.Module.apply``), or none found."""
    return fn is None or (fn.module.is_dependency and fn.qualname.startswith("torch."))


def _made_here(e: Expr, locals_: Costs) -> bool:
    """``e``'s data is what the function being priced computed from the values it holds
    (constants, its locals, calls and operations on those), priced no higher than light: no
    argument or attribute from elsewhere, whose size the function does not know."""
    if e.kind == "const":
        return True
    if e.kind == "name":
        return locals_.get(e.name, HEAVY) <= LIGHT
    if e.kind == "call":
        recv = e.receiver
        if recv is not None and recv.kind == "name" and recv.name not in locals_:
            recv = None  # ``np.array(...)``: a module's function, called on its arguments
        if recv is not None and not _made_here(recv, locals_):
            return False
        return bool(e.name) and all(_made_here(c, locals_) for c in e.children)
    if e.kind in ("op", "subscript"):
        parts = [*e.children, *((e.receiver,) if e.receiver is not None else ())]
        return all(_made_here(c, locals_) for c in parts)
    return False


# A path that reaches a ``raise``: no object is made on it (above every cost level).
_NO_PATH = HEAVY + 1


def _past_returns(effects: Iterable[Effect]) -> Iterator[Effect]:
    """``effects`` with what runs after an ``if`` whose branch ends in a ``return`` guarded
    by that branch's test failing (``if layer is not None: return layer`` / ``return
    nn.Linear(...)``: the build runs only where no layer was given), so that the cheapest
    path takes the branch that returns. A ``return`` directly under its branch ends it on
    every path through it; the other arms of that ``if`` (one test, the other way) and
    what a loop runs are left as they were."""
    ended: list[tuple[tuple[Cond, ...], Cond]] = []  # (the guard around the if, its arm)
    for eff in effects:
        guard = eff.guard
        for around, arm in ended:
            depth = len(around)
            if guard[:depth] != around:
                continue
            if len(guard) > depth and test_of(guard[depth])[0] == test_of(arm)[0]:
                continue  # (an arm of the same ``if``, or a test of the same condition)
            guard = (*around, Cond("not", (arm,)), *guard[depth:])
        if guard != eff.guard:
            eff = replace(eff, guard=guard)
        if eff.kind == "return" and guard and guard[-1] not in (LOOP_COND, UNKNOWN_COND):
            ended.append((guard[:-1], guard[-1]))
        yield eff


def _cheapest_path(priced: list[Priced_], none_test: NoneTest) -> int:
    """The least work a run of a body does: each ``if`` takes its cheaper branch, one whose
    test reads only parameters taking the branch their defaults choose (where the call is
    seen, the constants it fixes stand for the defaults; a parameter rebound before the
    test holds neither), a loop runs, and a branch that reaches a ``raise`` (out of any
    ``try``) is not taken. Two tests of one condition are taken apart, and what runs after
    a branch that returns runs only where that branch is not taken (``_past_returns``):
    the price is at most the cheapest path's."""
    least = _cheapest_block(priced, 0, none_test)
    return max((c for _, c, _ in priced), default=NONE) if least >= _NO_PATH else least


def _cheapest_block(priced: list[Priced_], depth: int, none_test: NoneTest) -> int:
    """The least work of the effects under one branch, all guarded by the same ``depth``
    conditions: what runs there, and the cheaper branch of each ``if`` nested in it."""
    cost = NONE
    # each test of the ``depth``-th conditions: the effects under it, by the truth they need
    nested: dict[Cond, dict[bool, list[Priced_]]] = {}
    for item in priced:
        eff, c, _ = item
        if len(eff.guard) == depth:
            cost = max(cost, _NO_PATH if eff.kind == "raise" and not eff.protected else c)
        else:
            test, holds = test_of(eff.guard[depth])
            nested.setdefault(test, {}).setdefault(holds, []).append(item)
    for test, arms in nested.items():
        # a loop runs; so, for this price, does an ``except`` handler or a ``match`` case
        # (their test is one unnamed condition for all of them: no branch of one ``if``)
        runs = test in (LOOP_COND, UNKNOWN_COND)
        # (the constants standing when the test is made: at the first effect under it)
        standing = next(iter(arms.values()))[0][2]
        truth = True if runs else _default_truth(test, standing, none_test)
        taken = (True, False) if truth is None else (truth,)
        branches = [_cheapest_block(arms.get(holds, []), depth + 1, none_test) for holds in taken]
        cost = max(cost, min(branches))
    return cost


def _guard_truth(
    guard: tuple[Cond, ...], defaults: Mapping[str, Const], none_test: NoneTest
) -> bool | None:
    """Whether an effect under ``guard`` runs when the parameters in ``defaults`` hold
    them: False when one of its tests comes out the other way, True when every one comes
    out as the guard needs; None when a test reads anything else."""
    truth: bool | None = True
    for cond in guard:
        test, holds = test_of(cond)
        came = _default_truth(test, defaults, none_test)
        if came is None:
            truth = None
        elif came != holds:
            return False
    return truth


def _call_values(call: Expr, params: tuple[Param, ...]) -> Given | None:
    """What ``call`` gives each of ``params`` (a default for one it leaves out: a name there
    is the callee's module's, not the caller's); None when it spreads a ``*args`` or ``**kw``
    (which may give any)."""
    if any(k == "" or k.startswith("*") for k in call.keywords):
        return None
    positional: list[Expr | None] = list(call.positional())
    keywords: dict[str, Expr | None] = dict(
        zip(call.keywords, call.children[len(positional) :], strict=False)
    )
    return bind_args(positional, keywords, params, _default_of, None)[0]


def _forget_written(eff: Effect, written: set[str], held: dict[str, Val]) -> None:
    """Drop from ``written`` and ``held`` the ``self.<attr>`` numbers the effect ``eff`` may
    change (``may_write``; a number the attribute held on entry stands until then): all,
    where it hands ``self`` on, writes its ``__dict__`` or runs work that may write any."""
    writes = may_write(eff)
    if not writes:
        return
    if EVERYTHING in writes or "__dict__" in writes:
        gone = set(written)
    else:
        gone = {k for k in written if k[len("self.") :] in writes}
    written -= gone
    for k in gone:
        held.pop(k, None)


def _call_shapes(call: Expr, values: Given | None, bound: Bound, names: Bound) -> Shapes:
    """The parameters ``call`` (giving them ``values``, ``_call_values``) passes a tuple
    display, each as a pack of its items (a constant, or a name ``names`` holds one in;
    unknown otherwise), or a name ``bound`` holds such a pack in (``shape = (n, d)``; its
    items' constants read as ``names``')."""
    passed = {id(c) for c in call.children}
    shapes: list[tuple[str, Val]] = []
    for name, e in (values or {}).items():
        if e is None or id(e) not in passed:
            continue
        if e.kind == "op" and e.name == "tuple" and e.children:
            if not any(c.kind == "op" and c.name == "*" for c in e.children):
                items = tuple(_item(c, names) for c in e.children)
                shapes.append((name, Val("args", items=items)))
        elif e.kind == "name" and (held := bound.get(e.name)) is not None:
            if held.kind == "args" and held.items and not held.open:
                sizes = tuple(
                    v if names and v.kind == "const" else UNKNOWN_VALUE for v in held.items
                )
                shapes.append((name, Val("args", items=sizes)))
    return tuple(shapes)


def _item(e: Expr, bound: Bound) -> Val:
    if e.kind == "const" and not e.name:
        return Val("const", e.value)
    held = bound.get(e.name) if e.kind == "name" else None
    return held if held is not None and held.kind == "const" else UNKNOWN_VALUE


def _call_consts(call: Expr, values: Given | None, bound: Bound) -> Fixed | None:
    """The constants ``call`` (giving the parameters ``values``, ``_call_values``) fixes: a
    constant it passes (or a name ``bound`` holds one in), or the constant default of one
    it leaves out; None when it spreads a ``*args`` or ``**kw`` (which may give any)."""
    if values is None:
        return None
    passed = {id(c) for c in call.children}
    fixed: list[tuple[str, Const]] = []
    for name, e in values.items():
        if e is not None and e.kind == "const" and not e.name:
            fixed.append((name, e.value))
        elif e is not None and e.kind == "name" and id(e) in passed:
            held = bound.get(e.name)
            if held is not None and held.kind == "const":
                fixed.append((name, held.value))
    return tuple(fixed)


def const_defaults(params: tuple[Param, ...]) -> dict[str, Const]:
    """The parameters with a constant default, by name (not ``...``, whose facts hold None)."""
    return {
        p.name: p.default.value
        for p in params
        if p.default is not None and p.default.kind == "const" and not p.default.name
    }


def _default_of(_: None, p: Param) -> Expr | None:
    """What a parameter a call leaves out holds: its default expression."""
    return p.default


def _default_truth(test: Cond, defaults: Mapping[str, Const], none_test: NoneTest) -> bool | None:
    """How ``test`` comes out when the parameters it reads keep their defaults (``norm``,
    ``lm is None``, ``mode == "greedy"``, ``n - k > 0``, ``isinstance(layer, nn.Module)``
    of a None, as ``none_test`` decides it); None when it reads anything else."""
    if test.op == "name" and test.name in defaults:
        return bool(defaults[test.name])
    if test.op == "isinstance" and test.args and isinstance(test.value, str):
        tested = test.args[0]
        if tested.name not in defaults or defaults[tested.name] is not None:
            return None
        return none_test(test.value)
    if test.op in ORDERS and len(test.args) == 2:

        def lookup(c: Cond) -> object:
            return defaults[c.name] if c.op == "name" and c.name in defaults else UNFOLDED

        return compare(test.op, fold(test.args[0], lookup), fold(test.args[1], lookup))
    if test.op in ("is", "isnot", "eq", "ne") and len(test.args) == 2:
        left, right = test.args
        if left.op == "const":
            left, right = right, left
        if left.op != "name" or left.name not in defaults or right.op != "const":
            return None
        return compare(test.op, defaults[left.name], right.value)
    return None


def _bound_truth(test: Expr, bound: Bound) -> bool | None:
    """How ``test`` (``flag``, ``not flag``) comes out over the constants the names hold;
    None when it reads anything else."""
    if test.kind == "op" and test.name == "not" and len(test.children) == 1:
        inner = _bound_truth(test.children[0], bound)
        return None if inner is None else not inner
    if test.kind == "name":
        held = bound.get(test.name)
        if held is not None and held.kind == "const":
            return bool(held.value)
    if test.kind == "op" and test.name == "test" and test.attr and len(test.children) == 2:
        # ``num_classes > 0`` with ``num_classes`` bound to its default 1000
        values = [_bound_value(c, bound) for c in test.children]
        if all(v is not _UNBOUND for v in values):
            return compare(test.attr, values[0], values[1])
    return None


_UNBOUND = object()


def _bound_value(e: Expr, bound: Bound) -> object:
    """The constant ``e`` is (written, or held by a name); ``_UNBOUND`` when not known."""
    if e.kind == "const" and not e.name:
        return e.value
    if e.kind == "name":
        held = bound.get(e.name)
        if held is not None and held.kind == "const":
            return held.value
    return _UNBOUND


def _path_guard(guard: tuple[Cond, ...]) -> bool:
    """Whether ``guard`` holds on some paths only (a loop's body is taken to run)."""
    return any(c != LOOP_COND for c in guard)


def _flat_values(data: Expr) -> bool:
    """A list or tuple display of plain values (constants, names, attributes), or one
    repeated by a number (``[alpha] * n``): a flat sequence of values."""
    if data.kind == "op" and data.name == "*" and len(data.children) == 2:
        shown = [c for c in data.children if c.kind == "op" and c.name == "tuple"]
        return len(shown) == 1 and _flat_values(shown[0])
    return (
        data.kind == "op"
        and data.name == "tuple"
        and bool(data.children)
        and all(c.kind in ("const", "name", "attr") for c in data.children)
    )


def _loop_count(walked: Expr, bound: Bound) -> int | None:
    """How many items a loop over ``walked`` gives, where that is written out: ``range``
    of numbers (or of names holding numbers), or a display; None otherwise."""
    if walked.kind == "op" and walked.name == "tuple":
        starred = any(c.kind == "op" and c.name == "*" for c in walked.children)
        return None if starred else len(walked.children)
    if walked.kind != "call" or walked.name != "range" or walked.keywords:
        return None
    ends = [int_value(c, bound) for c in walked.children]
    if not 1 <= len(ends) <= 3 or None in ends:
        return None
    numbers = [n for n in ends if n is not None]
    if len(numbers) == 1:
        numbers = [0, *numbers]
    return len(range(*numbers)) if numbers[2:3] != [0] else None

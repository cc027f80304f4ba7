"""Builds: what a value stored on ``self`` costs and what it builds (``price_stored_value``).
A heavy construction with a flag passed as False is simulated with those arguments; a
builder's call (``Simulator.builder_of``) builds the class it is given; a build from a spec
(``specs.py``) built again of the same spec is priced by what the project gives the spec's
field; a memoised factory's result (``memo.py``) costs nothing when its cache returns the
object an earlier build of the attribute got. A construction that is heavy only on some
paths of its own (not on the one its parameters' defaults take) is possibly heavy: unknown,
not heavy."""

from __future__ import annotations

from initlint.facts.model import BodyError, Effect, Expr
from initlint.index.records import NO_BINDINGS, FunctionInfo, Module, Target
from initlint.records import dataclass
from initlint.simulation.arguments import call_args
from initlint.simulation.binding import DEFAULTED, SYM, Key, expr_key
from initlint.simulation.cost import const_defaults
from initlint.simulation.events import writes_any
from initlint.simulation.levels import HEAVY, LIGHT, NONE, Priced
from initlint.simulation.levels import UNKNOWN as UNKNOWN_COST
from initlint.simulation.memo import Binding, MemoRoute, View, compare, route_binding
from initlint.simulation.raises import SIGNATURE_KEEPING, RaiseModel
from initlint.simulation.run_state import EffectContext, Frame
from initlint.simulation.specs import direct_keys, field_of, keys_of, spec_rewritten
from initlint.simulation.torch_knowledge import (
    keyword_values,
    torch_params,
    torch_vector,
    unshadowed,
)
from initlint.simulation.values import MAYBE, TRUE, Val, const

# Why a build priced heavy is only possibly that (the finding's message says it).
HEAVY_WHEN = "heavy only on some paths of its construction, not with its parameters' defaults"


def _plain(held: Val) -> bool:
    """An argument that is the constructed class's parameter as its caller passed it: not a
    field of it, nor one with fields set, nor a class its default names."""
    return not held.fields and held.ref is None and "." not in held.sym


@dataclass(frozen=True)
class _Built:
    """A builder's call: the value passed as the class (``held``), the class when it is
    known (``target``), what the build costs, whether the builder surely returns it, and
    the spec keys of an unknown one."""

    held: Val
    target: Target | None
    cost: int
    sure: bool
    keys: frozenset[str]


@dataclass(slots=True)
class StoredValue:
    """A value stored on self (buffer, assign, mutate) as priced: what it costs, the class
    reference it constructs through and the spec keys it is built from, why it is only
    possibly that (then its status is MAYBE), and the memoised factory's routes to it."""

    cost: int
    status: str
    via: tuple[Val, Target] | None
    possibly: str
    spec: frozenset[str]
    routes: tuple[MemoRoute, ...] = ()
    bindings: tuple[Binding, ...] = ()
    changed: str = ""
    heavy_when: str = ""  # (``Event.heavy_when``)


class BuildPricing(RaiseModel):
    """Pricing the values stored on self by what they build."""

    def _stored_value_cost(self, frame: Frame, ctx: EffectContext) -> tuple[int, str] | BodyError:
        """What the stored value costs by its expression (a buffer is at least light, an
        assigned heavy construction is priced by what the class builds), and why it is only
        possibly heavy when it is heavy on some paths of what it runs only."""
        eff, kind = ctx.effect, ctx.effect.kind
        priced = self.value_cost(frame, eff.value)
        if isinstance(priced, BodyError):
            return priced
        cost = priced
        if kind == "buffer":
            cost = max(cost, LIGHT)  # a registered tensor, at the least
            owner = frame.call.fn.owner
            if owner is not None and torch_vector(owner.qualname, eff.name):
                cost = LIGHT  # torch's own bias or norm vector (read from its source)
        elif kind == "assign" and cost == HEAVY and eff.value is not None:
            priced = self._construction_cost(frame, eff.value)
            if isinstance(priced, BodyError):
                return priced
            cost = priced
        if cost == HEAVY and kind in ("assign", "mutate"):
            least = self.simulator.cost.cheapest().expr_cost(
                eff.value,
                frame.call.fn.module,
                self.sim.mro,
                frame.local_cost,
                self.attr_cost,
                self._with_defaults(frame, eff.value),
            )
            # (a path of unknown cost may be heavy too: no reason to lower; nor is a body
            # on the cheapest path that does not parse, which the heaviest never reached)
            if not isinstance(least, BodyError) and least <= LIGHT:
                return UNKNOWN_COST, HEAVY_WHEN
        return cost, ""

    def _with_defaults(self, frame: Frame, value: Expr | None) -> dict[str, Val]:
        """The frame's names, with the constructed class's own parameters (unknown: callers
        initlint does not see pass them) at their constant defaults, as the cheapest path
        takes them; not a name ``value`` binds itself (a comprehension's loop, or any name
        under a lambda, whose parameters the facts do not keep)."""
        env = dict(unshadowed(value, frame.call.env))
        if value is None:
            return env
        inner = list(value.nodes())
        if any(x.kind == "op" and x.name == "lambda" for x in inner):
            return env
        shadowed = {x.attr for x in inner if x.kind == "op" and x.name == "comp"}
        if frame.call.parent is not None:
            # a called frame's parameters are bound to what its caller passed; one an open
            # ``**kw`` pack may give holds its default unless the pack names it
            # (``_open_default``), and one the constructed class's own parameter gave holds
            # that parameter's default: the cheapest path takes the default there too
            body = self.sim.top_fn.facts.load()
            top = {} if isinstance(body, BodyError) else const_defaults(body.params)
            for name, given in env.items():
                if given.kind != "unknown" or name in shadowed:
                    continue
                if given.sym.startswith(DEFAULTED):
                    env[name] = const(given.value)
                elif given.sym in top and _plain(given):
                    env[name] = const(top[given.sym])
            return env
        top = const_defaults(frame.body.params)
        names = frozenset(
            name
            for name, held in env.items()
            if name in top and held.kind == "unknown" and held.sym == name and name not in shadowed
        )
        self.bind_defaults(env, frame.body.params, names, frame.call.fn.module)
        return env

    def price_stored_value(self, frame: Frame, ctx: EffectContext) -> StoredValue | BodyError:
        """What the stored value costs, the class it constructs (through a reference or a
        builder) or the spec it is built from, and why it is only possibly that."""
        eff, kind = ctx.effect, ctx.effect.kind
        priced = self._stored_value_cost(frame, ctx)
        if isinstance(priced, BodyError):
            return priced
        cost, heavy_when = priced
        via = self._called_ref(frame, eff.value)
        possibly = ""
        spec: frozenset[str] = frozenset()
        if via is None and eff.value is not None and eff.value.kind == "call":
            built = self._built_by_builder(frame, eff.value)
            if isinstance(built, BodyError):
                return built
            if built is not None and built.target is not None:
                via = built.held, built.target
                # the builder's call of what it was given is resolved: no longer unknown
                cost = built.cost if cost == UNKNOWN_COST else max(cost, built.cost)
                if not built.sure and cost > NONE:
                    possibly = f"the builder {eff.value.name}() may return something else"
            elif built is not None:
                spec = built.keys
            else:
                spec = self._direct_spec(frame, eff.value)
        if spec and kind == "assign" and not ctx.shadow and cost in (NONE, UNKNOWN_COST):
            again = self._same_spec(eff.name, spec)
            if isinstance(again, BodyError):
                return again
            if again is not None:
                cost, possibly = again
        if via is not None and via[0].maybe_ref and cost > NONE:
            possibly = (
                f"the class is the default of the constructed class's own `{via[0].sym}`: "
                "a caller may pass another"
                if via[0].sym
                else "the class is a default that an open `**kwargs` pack may replace"
            )
        status = ctx.status
        if possibly and status == TRUE:
            status = MAYBE
        else:
            possibly = ""  # (an undecided guard says it already)
        stored = StoredValue(cost, status, via, possibly, spec, heavy_when=heavy_when)
        if kind == "assign" and eff.value is not None:
            failed = self._price_memo_routes(frame, eff.value, ctx, stored)
            if failed is not None:
                return failed
        return stored

    def _price_memo_routes(
        self, frame: Frame, value: Expr, ctx: EffectContext, stored: StoredValue
    ) -> BodyError | None:
        """An assigned value a memoised factory returns: the routes to its cache, what its
        key is bound to, and, when that changed (no cached object), what the factory costs."""
        found = self.simulator.cost.memos.memo_routes(value, frame.call.fn.module)
        if isinstance(found, BodyError):
            return found
        stored.routes = found
        if not found:
            return None
        stored.bindings = self._memo_bindings(frame, value, found)
        stored.changed = self._memo_changed(frame, ctx.effect, stored.bindings)
        for route in found if stored.changed else ():  # no cached object: the factory builds
            if route.fn is not None:
                priced = self.simulator.cost.body_cost(route.fn)
                if isinstance(priced, BodyError):
                    return priced
                stored.cost = max(stored.cost, priced)
        return None

    def _construction_cost(self, frame: Frame, call: Expr) -> Priced:
        """``self.norm = Norm(d, affine=False)``: a project subclass of a torch module (see
        ``_switchable``) built with a keyword passed as False costs what simulating its
        construction with these arguments does (the flag may switch off every tensor it
        would own). HEAVY otherwise, as the cost model said."""
        if call.kind != "call" or not call.name or not call.keywords or call.keywords[0] == "*":
            return HEAVY
        values = keyword_values(call)
        if not any(
            self.eval_arg(frame, v, None).value is False
            for v in values.values()
            if v.kind in ("const", "name")
        ):
            return HEAVY
        via = self._called_ref(frame, call)
        module = frame.call.fn.module
        target = via[1] if via is not None else self.simulator.index.resolve(module, call.name)
        info = (
            self.simulator.index.class_info(target.name)
            if target and target.kind == "class"
            else None
        )
        if info is None or not _switchable(self.simulator.index.mro(info.qualname).classes):
            return HEAVY
        args = call_args(call)  # (never None: a starred call was turned away above)
        if args is None:
            return HEAVY
        return self.simulator.construction_cost(
            info, lambda params: self.bind_call(frame, args, params, True)
        )

    def _built_by_builder(self, frame: Frame, call: Expr) -> _Built | BodyError | None:
        """``build(Attention, d)``, a call of a builder (``Simulator.builder_of``): the value
        passed as the class, and when it names a class, that class and what building it
        costs; when it is an unknown of the constructed class's arguments (a spec read from
        ``submodules.linear_proj``), its spec keys (``simulation/specs.py``). None when the
        call is no builder's or the value is neither; the error of a body that does not
        parse, met in pricing what it builds."""
        if not call.name or (call.receiver is not None and call.receiver.kind != "name"):
            return None
        builder = self.simulator.builder_of(frame.call.fn.module, call.name)
        if builder is None:
            return None
        args = call_args(call)
        if args is None:
            return None
        env = self.bind_call(frame, args, builder.params, False, module=builder.fn.module)
        shape = builder.shape
        held = env.get(shape.param) if env is not None else None
        if env is None or held is None:
            return None
        if held.ref is None:
            keys = keys_of(held.sym, shape.fields)
            return _Built(held, None, NONE, builder.sure, keys) if keys else None
        if shape.local:
            if "" not in shape.fields:
                return None  # the class is read from a field of what was passed
            env = {**env, shape.local: held}
        target = self.simulator.index.resolve_value(*held.ref)
        if target is None:
            return None
        cost = self.simulator.cost.expr_cost(
            builder.spec, builder.fn.module, self.sim.mro, bound=env
        )
        if isinstance(cost, BodyError):
            return cost
        return _Built(held, target, cost, builder.sure, frozenset())

    def _direct_spec(self, frame: Frame, call: Expr) -> frozenset[str]:
        """The spec keys of calling an unknown of the constructed class's arguments
        directly: ``submodules.core_attention(...)``, ``spec.module(...)``."""
        name = call.name
        if not name or name.partition(".")[0] == "self":
            return frozenset()
        held = self.dotted_value(frame, name) if "." in name else frame.call.env.get(name)
        if held is None or held.ref is not None:
            return frozenset()
        return direct_keys(held.sym)

    def _same_spec(self, name: str, keys: frozenset[str]) -> tuple[int, str] | BodyError | None:
        """``self.<name>`` built from a spec with ``keys`` after the latest build of it was
        of the same spec, not changed in place since: both built the same class. What that
        class possibly costs (the heaviest the project gives the spec's field: ``_spec_cost``)
        and why, which the earlier build is repriced with too; None when unknown."""
        prev = self.last_assign.get(name)
        if prev is None or prev.cost not in (NONE, UNKNOWN_COST):
            return None
        common = prev.spec & keys
        if not common or spec_rewritten(common, self.spec_writes, prev.index):
            return None
        priced = self._spec_cost(common)
        if priced is None or isinstance(priced, BodyError):
            return priced
        prev.cost, prev.expensive, prev.possibly = priced[0], True, priced[1]
        return priced

    def _spec_cost(self, keys: frozenset[str]) -> tuple[int, str] | BodyError | None:
        """The heaviest class the project gives the field a spec key reads
        (``submodules.linear_proj`` with ``submodules: Subs``: every ``Subs(linear_proj=X)``,
        ``ProjectIndex.field_classes``), and the reason text; None when nothing is known."""
        index = self.simulator.index
        for key in sorted(keys):
            split = field_of(key)
            typed = self.own_types.get(split[0]) if split is not None else None
            if split is None or typed is None:
                continue
            module, annotation = typed
            best, heaviest, given, holder = NONE, "", 0, ""
            for written in annotation:
                target = index.resolve(module, written)
                if target is None or target.kind != "class":
                    continue
                for cls in index.field_classes(target.name, split[1]):
                    priced = self.simulator.cost.target_cost(cls, module, self.sim.mro)
                    if isinstance(priced, BodyError):
                        return priced
                    given += 1
                    if priced > best:
                        best, heaviest, holder = priced, cls.name.rsplit(".", 1)[-1], written
            if best > NONE:
                others = f" (the heaviest of {given})" if given > 1 else ""
                return best, (
                    f"the class is what `{key}` holds: the project gives "
                    f"`{holder}({split[1]}=...)` {heaviest}{others}; a caller may give another"
                )
        return None

    def refused_construction(self, frame: Frame, value: Expr | None) -> str:
        """The class ``value`` constructs, when Python surely refuses the call (a required
        parameter left out, a surplus positional or an unknown keyword, no ``*``/``**``
        pack of unknown length passed): its ``__init__`` is the ``def`` initlint read, and
        nothing in the project part of its MRO (a decorator, a metaclass, ``__new__``,
        ``__init_subclass__``, an ``__init__`` bound another way) may change what it takes.
        "" otherwise."""
        if value is None or value.kind != "call" or not value.name or value.receiver:
            return ""
        head = value.name.partition(".")[0]
        module = frame.call.fn.module
        if head in frame.call.env or not self.bound_once(module, head):
            return ""  # (a name the frame binds, or one the module binds more than once)
        index = self.simulator.index
        target = index.resolve(module, value.name)
        info = index.class_info(target.name) if target and target.kind == "class" else None
        mro = index.mro(info.qualname) if info is not None else None
        if info is None or mro is None or not mro.ok:
            return ""
        if not self.bound_once(info.module, info.facts.name) or "." in info.facts.qualname:
            return ""  # (defined twice, under a test, or rebound: which one runs is not sure)
        for qualname in mro.classes:  # (any of them may change what the call takes)
            cls = index.class_info(qualname)
            if cls is None:
                continue
            facts = cls.facts
            if facts.decorators or facts.metaclass or facts.fallback or "__init__" in facts.attrs:
                return ""
            if any(m.name in ("__new__", "__init_subclass__") for m in facts.methods):
                return ""
        init = index.lookup_method(mro.classes, "__init__")
        if init is None or init.owner is None or init.module.is_dependency:
            return ""
        if not self.init_as_written(init, mro.classes, mro.classes.index(init.owner.qualname)):
            return ""
        body = init.facts.load()
        args = call_args(value)
        if body is None or isinstance(body, BodyError) or args is None:
            return ""
        return info.qualname if self.refused(frame, args, body.params, True) else ""

    def init_as_written(self, init: FunctionInfo, mro: tuple[str, ...], start: int | None) -> bool:
        """Whether the ``__init__`` Python runs is surely the ``def`` initlint read, so that
        its parameters say which calls it refuses: undecorated (but for decorators that call
        it with what they are given, ``SIGNATURE_KEEPING``), the one binding of ``__init__``
        in its class's body, and none made outside it in its module, that class undecorated,
        bound once at the top of its module, at place ``start`` of ``mro``, no class before
        it binding ``__init__`` another way and none from it up naming a metaclass or
        defining ``__init_subclass__`` (either may wrap or replace it)."""
        owner = init.owner
        decorators = (d.rpartition(".")[2] for d in init.facts.decorators)
        if owner is None or start is None or not all(d in SIGNATURE_KEEPING for d in decorators):
            return False
        facts = owner.facts
        if facts.decorators or facts.fallback or "__init__" in facts.attrs:
            return False
        if "__init__" in owner.module.facts.foreign_stores:
            return False  # (``Base.__init__ = patched`` in its module)
        if sum(m.name == "__init__" for m in facts.methods) != 1 or "." in facts.qualname:
            return False
        if not self.bound_once(owner.module, facts.name):
            return False
        for i, qualname in enumerate(mro):
            info = self.simulator.index.class_info(qualname)
            if info is None:
                continue
            if i < start and "__init__" in info.facts.attrs:
                return False  # (``__init__ = other`` in a class the lookup passed over)
            if i >= start and (
                info.facts.metaclass or info.facts.method("__init_subclass__") is not None
            ):
                return False
        return True

    def bound_once(self, module: Module, name: str) -> bool:
        """Whether ``module`` binds ``name`` at its top level once: by one ``def``, class or
        import, and no assignment."""
        classes, functions, imports = self.simulator.index.name_table(module).named.get(
            name, NO_BINDINGS
        )
        return len(classes) + len(functions) + len(imports) == 1 and name not in module.facts.names

    def _called_ref(self, frame: Frame, value: Expr | None) -> tuple[Val, Target] | None:
        """When ``value`` calls a name of the frame given a class or function by name
        (``attn_cls(...)``): that value and what it is. None otherwise."""
        if value is None or value.kind != "call" or not value.name or "." in value.name:
            return None
        held = frame.call.env.get(value.name)
        if held is None or held.ref is None:
            return None
        target = self.simulator.index.resolve_value(*held.ref)
        return None if target is None else (held, target)

    def _memo_changed(self, frame: Frame, eff: Effect, bindings: tuple[Binding, ...]) -> str:
        """Whether ``self.x = factory(args)`` gets an object other than the one the previous
        build of x got from the same memoised factory: "" when that build bound equal
        arguments to it (``memo.compare``) and nothing the arguments read was written since
        (the cache returns that object), else "yes", or "maybe" when the only writes sit
        under undecided guards, or a wrapper on either side may have taken another route. A
        first build, or one after another kind of build, is "yes": it builds."""
        prev = self.last_assign.get(eff.name)
        if prev is None or not prev.memo:
            return "yes"
        verdict = compare(prev.memo, bindings)
        if verdict == "yes":
            return "yes"
        since = prev.index
        maybe = verdict == "maybe"
        for name in _names(eff.value):
            at = frame.written.get(name)
            if at is not None and at[0] > since:
                if at[1] == TRUE:
                    return "yes"
                maybe = True
        read = self.self_reads(frame, eff.value)
        if read and writes_any(self.sim.events, since, read):
            return "yes"
        return "maybe" if maybe else ""

    def _memo_bindings(
        self, frame: Frame, call: Expr, routes: tuple[MemoRoute, ...]
    ) -> tuple[Binding, ...]:
        """The arguments ``call`` gives each memoised factory it may reach."""
        visiting: set[str] = set()

        def name_key(name: str) -> Key | None:
            if name in frame.local_values:  # a local: the value it was bound to
                value = frame.local_values[name]
                if value is None or name in visiting:
                    return None
                visiting.add(name)
                try:
                    return expr_key(value, name_key)
                finally:
                    visiting.discard(name)
            v = frame.call.env.get(name)
            if v is None:
                return ("g", name)  # a global or builtin of the module
            if v.kind == "const":
                return ("c", repr(v.value))
            if v.kind == "unknown" and v.sym:
                return (SYM, v.sym)  # the constructed class's argument it came from
            return None

        def view(e: Expr) -> View:
            return expr_key(e, name_key), repr(e)

        return tuple(route_binding(r, call, view) for r in routes)


def _switchable(mro: tuple[str, ...]) -> bool:
    """Whether a class of ``mro`` is a torch.nn module with a registration a keyword can
    switch off (``nn.LayerNorm``'s ``elementwise_affine``): only then can a ``False``
    keyword leave the construction without tensors. (A composite project module, which
    owns other modules' weights, is judged heavy without simulating it again.)"""
    return any(any(offs for offs in torch_params(q).values()) for q in mro)


def _names(value: Expr | None) -> set[str]:
    """The plain names an expression reads (a call's callee excluded)."""
    out: set[str] = set()
    stack = list(value.children) if value is not None else []
    if value is not None and value.receiver is not None:
        stack.append(value.receiver)
    while stack:
        cur = stack.pop()
        if cur.kind == "name":
            out.add(cur.name)
        elif cur.kind == "attr" and cur.name and "." in cur.name:
            out.add(cur.name.partition(".")[0])
        if cur.receiver is not None:
            stack.append(cur.receiver)
        stack.extend(cur.children)
    return out

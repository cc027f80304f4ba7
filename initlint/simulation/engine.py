"""Simulate ``C.__init__`` and produce the ordered effect events of constructing C
(docs/design.md, "The init simulation")."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import ClassVar

from initlint.facts.model import (
    Arg,
    Body,
    BodyError,
    Cond,
    Const,
    Effect,
    EffectKind,
    Expr,
    Param,
)
from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo, FunctionInfo, Module, Target
from initlint.simulation.arguments import kwarg_name
from initlint.simulation.builds import BuildPricing, StoredValue
from initlint.simulation.cost import CostModel
from initlint.simulation.levels import HEAVY, LIGHT, NONE, Priced
from initlint.simulation.records import (
    Builder,
    Event,
    FlagRef,
    Simulation,
    SimulationLimit,
)
from initlint.simulation.run_state import Call, EffectContext, Frame, KeyArgs
from initlint.simulation.specs import (
    builder_shape,
)
from initlint.simulation.torch_knowledge import (
    SMALL_NUMEL,
    torch_params,
    torch_shape,
    torch_vector,
)
from initlint.simulation.torch_module import MODULE_CLASSES
from initlint.simulation.values import (
    FALSE,
    MAYBE,
    TRUE,
    UNKNOWN,
    Origin,
    Val,
)

# Limits of one simulation. Calls run on an explicit stack, so neither is bound by Python's
# recursion limit. The super chain of a class moves forward in its MRO at each step, so its
# depth is at most the MRO's length: MAX_DEPTH sits far beyond real hierarchies (and one
# simulation costs up to MAX_DEPTH frames). MAX_FRAMES bounds the work of one class
# (methods that each call another several times multiply the frames: 2**depth).
# A simulation that reaches either stops, and the class is reported as IL902.
MAX_DEPTH = 1024
MAX_FRAMES = 100_000


class Simulator:
    def __init__(self, index: ProjectIndex, cost: CostModel) -> None:
        self.index = index
        self.cost = cost
        # One simulation per (class, bound constant): the checker and the fixer share them.
        self._memo: dict[tuple[str, str], Simulation | None] = {}
        self._building: set[str] = set()  # classes whose simulation is running (parts_built)
        self._built_cost: dict[tuple[str, str], int] = {}  # construction_cost's results
        self._builders: dict[tuple[str, str], Builder | None] = {}  # builder_of's results
        # The guards' state keys (``GuardEval``): each guard's reading, by identity (guard,
        # text, attributes, getters called).
        self.state_tests: dict[int, tuple[Cond, str, tuple[str, ...], tuple[str, ...]]] = {}
        self.getters: dict[tuple[str, str], str] = {}  # ``EventLog.getter_of``'s resolutions

    def simulate(
        self, cls: ClassInfo, inject: tuple[str, Const] | None = None
    ) -> Simulation | BodyError | None:
        """Simulate constructing ``cls``. ``inject`` adds ``name=value`` to C's super call.

        Memoised: the result is shared and must not be changed by its readers. Raises
        SimulationLimit (every time) when the simulation stopped at a limit. A body the
        simulation (or its pricing) had to read and that does not parse ends it: its
        ``BodyError`` comes back up through every call as a value and is the result, not
        memoised (the body stays unread, so a later simulation meets it again; the cost
        model's memo tables keep nothing of it). Nothing else is known of such a class."""
        key = (cls.qualname, "" if inject is None else f"{inject[0]}={inject[1]!r}")
        if key in self._memo:
            result = self._memo[key]
        else:
            simulated = self._simulate(cls, inject)
            if isinstance(simulated, BodyError):
                return simulated
            result = self._memo[key] = simulated
        if result is not None and result.incomplete:
            raise SimulationLimit(result.stopped)
        return result

    def _simulate(
        self, cls: ClassInfo, inject: tuple[str, Const] | None
    ) -> Simulation | BodyError | None:
        mro_res = self.index.mro(cls.qualname)
        if not mro_res.ok:
            return None
        mro = mro_res.classes
        init = self.index.lookup_method(mro, "__init__")
        if init is None:
            return None
        body = init.facts.load()
        if isinstance(body, BodyError):
            return body
        sim = Simulation(cls, mro, top_fn=init)
        run = _Run(self, sim)
        run.inject = inject
        env = run.bind_top(body.params, init.module)
        error = run.execute(init, env, ancestor=False, parent=None, status=TRUE, flags=(), depth=0)
        return sim if error is None else error

    def parts_built(self, holder: Event, part: str) -> tuple[Event, ...] | BodyError:
        """The builds of ``part`` that constructing the object ``holder`` stored made: for
        ``self.attn = Attention(d)``, Attention's simulation's costly stores of ``part``
        (``self.qkv = Linear(...)``), in order. () when the value is not a call of a project
        or dependency class, or its simulation is not at hand (a cycle, a limit). The
        holder's construction reading a body that does not parse: that error (so does
        this one's construction)."""
        value = holder.effect.value
        if value is None or value.kind != "call" or not value.name:
            return ()
        if holder.constructs:  # ``self.attn = attn_cls(...)``: the class the name held
            target: Target | None = Target("class", holder.constructs)
        else:
            target = self.index.resolve(holder.fn.module, value.name)
        if target is None or target.kind != "class":
            return ()
        info = self.index.class_info(target.name)
        if info is None or info.qualname in self._building:
            return ()
        self._building.add(info.qualname)
        try:
            inner = self.simulate(info)
        except SimulationLimit:
            return ()
        finally:
            self._building.discard(info.qualname)
        if inner is None or isinstance(inner, BodyError):
            return () if inner is None else inner
        return tuple(
            e
            for e in inner.events
            if e.name == part
            and not e.shadow
            and ((e.kind == "assign" and e.expensive) or (e.kind == "buffer" and not e.value_const))
        )

    def construction_cost(
        self, info: ClassInfo, bind: Callable[[tuple[Param, ...]], dict[str, Val] | None]
    ) -> Priced:
        """What constructing ``info`` with the arguments ``bind`` binds costs: the highest
        cost of the work its simulation does (at least LIGHT); HEAVY when it cannot be
        simulated (no __init__, unbindable arguments, a cycle, a limit); the error of a
        body it reads that does not parse (not memoised)."""
        mro_res = self.index.mro(info.qualname)
        init = self.index.lookup_method(mro_res.classes, "__init__") if mro_res.ok else None
        if init is None or info.qualname in self._building:
            return HEAVY
        body = init.facts.load()
        if isinstance(body, BodyError):
            return body
        env = bind(body.params)
        if env is None:
            return HEAVY
        # memoised by the constants bound (the rest is unknown either way)
        key = (info.qualname, repr(sorted((k, v.kind, v.value) for k, v in env.items())))
        known = self._built_cost.get(key)
        if known is not None:
            return known
        sim = Simulation(info, mro_res.classes, top_fn=init)
        self._building.add(info.qualname)
        try:
            error = _Run(self, sim).execute(
                init, env, ancestor=False, parent=None, status=TRUE, flags=(), depth=0
            )
        finally:
            self._building.discard(info.qualname)
        if error is not None:
            return error
        live = (e for e in sim.events if not e.shadow and e.kind not in ("touch", "super_init"))
        cost = HEAVY if sim.incomplete else max((e.cost for e in live), default=LIGHT) or LIGHT
        self._built_cost[key] = cost
        return cost

    def builder_of(self, module: Module, name: str) -> Builder | None:
        """The function ``name`` (as written in ``module``) when it is a builder: it returns
        a call of one of its own parameters (``return spec(*args, **kwargs)``) or of a local
        taken from it or a field of it (``module = spec.module``), so what it builds is
        whatever class the caller passes there. None for any other callee."""
        key = (module.name, name)
        if key in self._builders:
            return self._builders[key]
        found = None
        target = self.index.resolve_value(module.name, name)
        fn = self.index.function_info(target.name) if target and target.kind == "function" else None
        body = fn.facts.load() if fn is not None else None
        if fn is not None and isinstance(body, Body):
            shape = builder_shape(body)
            if shape is not None:
                found = Builder(fn, body.params, shape.call, shape.sure, shape)
        self._builders[key] = found
        return found

    def needs_simulation(self, cls: ClassInfo) -> bool:
        """Cheap test: C's first __init__ calls a super init, and a project __init__ follows
        or a torch module's (known without torch's sources: C's own builds may be thrown
        away, IL005, whether or not the environment holds torch).
        True when that ``__init__``'s body does not parse: ``simulate`` says so."""
        mro_res = self.index.mro(cls.qualname)
        if not mro_res.ok:
            return False
        init = self.index.lookup_method(mro_res.classes, "__init__")
        if init is None:
            return False
        calls_super = init.facts.super_init_call()
        if isinstance(calls_super, BodyError):
            return True
        if not calls_super:
            return False
        return any(
            ((info := self.index.class_info(q)) is not None and info.facts.method("__init__"))
            or (info is None and (bool(torch_params(q)) or q in MODULE_CLASSES))
            for q in mro_res.classes[1:]
        ) and not _only_passes_on(cls, init)


# A handler of one effect kind (``_Run._EFFECT_HANDLERS``): what ``_Run._effect`` returns.
_EffectHandler = Callable[["_Run", Frame, EffectContext], "Call | BodyError | None"]


class _Run(BuildPricing):
    # -- execution -------------------------------------------------------------------------
    def execute(
        self,
        fn: FunctionInfo,
        env: dict[str, Val],
        *,
        ancestor: bool,
        parent: int | None,
        status: str,
        flags: tuple[FlagRef, ...],
        depth: int,
        shadow: tuple[Origin, ...] = (),
    ) -> BodyError | None:
        """Run ``fn``'s effects, and the calls they make, in order. Calls go on an explicit
        stack of frames, each a generator that yields the calls its effects make. A body
        that does not parse, met by a frame or by pricing, ends the run: its error is
        returned (the run's state is dropped with it)."""
        first = self._enter(Call(fn, env, ancestor, parent, status, flags, depth, shadow))
        if first is None or isinstance(first, BodyError):
            return first
        stack = [first]
        while stack:
            frame, effects = stack[-1]
            call = next(effects, None)
            if call is None:
                stack.pop()
                self.active.discard(frame.call.fn.qualname)
                continue
            if isinstance(call, BodyError):
                return call
            inner = self._enter(call)
            if isinstance(inner, BodyError):
                return inner
            if inner is not None:
                inner[0].caller = frame
                stack.append(inner)
            elif self.sim.incomplete:
                return None  # a limit: the class is reported as not analysed, stop here
            elif call.parent is not None:
                self.sim.events[call.parent].unfollowed = True
                self.blind = True  # (a recursion not followed: it may set anything)
                self.note_writes(all_=True)
        return None

    def _enter(self, call: Call) -> tuple[Frame, Iterator[Call | BodyError]] | BodyError | None:
        """A frame for ``call`` and its effects; None for recursion or at a limit; the
        error of its body when that does not parse."""
        fn = call.fn
        if fn.qualname in self.active:
            return None
        if call.depth > MAX_DEPTH:
            self._stop(f"the __init__ chain is deeper than {MAX_DEPTH} calls")
            return None
        if self.frames >= MAX_FRAMES:
            self._stop(f"constructing it makes more than {MAX_FRAMES} calls")
            return None
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        self.frames += 1
        frame = Frame(self.frames, call, body)
        if call.depth == 0:
            self.sim.top_frame = frame.id
        self.active.add(fn.qualname)
        return frame, self._effects(frame)

    def _stop(self, why: str) -> None:
        self.sim.incomplete = True
        self.sim.stopped = f"analysis stopped: {why}; the class was not fully checked"

    def _effects(self, frame: Frame) -> Iterator[Call | BodyError]:
        for i, eff in enumerate(frame.body.effects):
            if frame.dead:
                return  # a read of an unset attribute raised: the rest does not run
            call = self._effect(frame, i, eff)
            if call is not None:
                yield call

    def _effect(self, frame: Frame, i: int, eff: Effect) -> Call | BodyError | None:
        """Apply one effect; a call or super().__init__() comes back as the call to run,
        a body that does not parse (met in pricing, or a callee's) as its error."""
        ctx = self._effect_context(frame, i, eff)
        if ctx is None:
            return None
        handler = _Run._EFFECT_HANDLERS.get(eff.kind)
        return None if handler is None else handler(self, frame, ctx)

    def _effect_context(self, frame: Frame, i: int, eff: Effect) -> EffectContext | None:
        """Decide the guards of one effect and note them on the frame and the run; None
        when the effect does not run at all (a dead block, or a guard that is false)."""
        status = frame.call.status
        flags = frame.call.flags
        shadow = frame.call.shadow
        assume = frame.call.assume
        literals = frame.call.literals
        unkeyed = frame.call.unkeyed
        if frame.dead_blocks and self.in_dead_block(frame, eff):
            return None
        maybe: list[Cond] = []
        for cond in eff.guard:
            r, v = self.eval_cond(frame, cond)
            if r == FALSE:
                if v.origin is None:
                    return None
                shadow = (*shadow, v.origin)
            elif r == MAYBE:
                status = MAYBE
                maybe.append(cond)
                assume = (*assume, *self.assumptions(frame, cond, True))
                literal = self.literal(frame, cond)
                if literal is not None:
                    literals = (*literals, literal)
                else:
                    unkeyed = True
            flag = self.flag_of(frame, cond)
            if flag is not None:
                flags = (*flags, flag)
        frame.current, frame.maybe, frame.shadowed = eff, tuple(maybe), bool(shadow)
        if self.after_raise:
            assume = (*assume, *(a for a in self.after_raise if a not in assume))
        if self.after_raise_literals:
            literals = (*literals, *(x for x in self.after_raise_literals if x not in literals))
        self.assume = assume  # for the events this effect emits
        self.literals = literals
        self.unkeyed = unkeyed
        return EffectContext(i, eff, status, flags, shadow, assume, literals)

    def _note_rebinding(self, frame: Frame, ctx: EffectContext) -> None:
        """A change in place, or a name bound before rebound (a first binding is how the
        frame computes a value, as a call's argument text is)."""
        eff = ctx.effect
        frame.written[eff.name.partition(".")[0]] = (len(self.sim.events), ctx.status)

    def _on_local(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``name = value``: what the local costs, reads and holds."""
        if ctx.shadow:
            return None  # the branch does not run: its bindings do not happen
        eff, status = ctx.effect, ctx.status
        if eff.name in frame.call.env:
            self._note_rebinding(frame, ctx)
        local_cost = self.value_cost(frame, eff.value)
        if isinstance(local_cost, BodyError):
            return local_cost
        reads = self.self_reads(frame, eff.value)
        if ctx.effect_index in frame.fed:
            reads |= self.fed_reads(frame, ctx.effect_index)
        frame.local_values[eff.name] = eff.value if status == TRUE else None
        if status == TRUE:
            frame.changed.discard(eff.name)  # a new object (``changed`` holds few names)
        if reads or status == TRUE:
            if status != TRUE:
                reads |= frame.local_reads.get(eff.name, frozenset())
            frame.local_reads[eff.name] = reads
        if local_cost:
            if status != TRUE:  # the branch may not run: the name may hold either
                local_cost = max(local_cost, frame.local_cost.get(eff.name, NONE))
            frame.local_cost[eff.name] = local_cost
        elif status == TRUE:
            frame.local_cost.pop(eff.name, None)
        if status != TRUE:
            frame.call.env[eff.name] = UNKNOWN  # the branch may or may not run
        elif eff.value is not None and eff.value.kind in ("const", "name", "attr"):
            frame.call.env[eff.name] = self.eval_arg(frame, eff.value, None)
        elif _display(eff.value):
            # ``offsets = [0, shard]``: a pack of its items, as ``*offsets`` passes them
            # (the cost model reads the length of a tensor made from it)
            assert eff.value is not None  # (_display)
            items = tuple(self.eval_arg(frame, c, None) for c in eff.value.children)
            frame.call.env[eff.name] = Val("args", items=items)
        else:
            frame.call.env[eff.name] = UNKNOWN
        return None

    def _on_pop(self, frame: Frame, ctx: EffectContext) -> None:
        """``kwargs.pop(name)``: the keyword pack loses the key (maybe)."""
        if ctx.shadow:
            return  # the branch does not run: its bindings do not happen
        eff = ctx.effect
        kwarg = kwarg_name(frame.body.params)
        frame.changed.add(kwarg)
        pack = frame.call.env.get(kwarg)
        if pack is not None and pack.kind == "kwargs":
            if ctx.status == TRUE:
                frame.call.env[kwarg] = pack.kw_without(eff.name)
            elif pack.kw_get(eff.name) is not None:  # maybe popped: value unknown
                keys = (*pack.kw_without(eff.name).keys, (eff.name, UNKNOWN))
                frame.call.env[kwarg] = Val("kwargs", keys=keys, open=pack.open)

    def _on_return(self, frame: Frame, ctx: EffectContext) -> None:
        """``return value``: the self attributes the value reads, for the calling event."""
        eff = ctx.effect
        if not ctx.shadow and frame.call.parent is not None and eff.value is not None:
            got = self.self_reads(frame, eff.value)
            for c in frame.stmt_calls.get(eff.stmt_span, ()) if frame.stmt_calls else ():
                got |= self.return_reads.get(c, frozenset())
            if got:
                parent = frame.call.parent
                self.return_reads[parent] = self.return_reads.get(parent, frozenset()) | got

    def _on_objattr(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``obj.field = v`` or ``obj.append(x)``: an object a name holds changed in place."""
        if ctx.shadow:
            return None  # the branch does not run: its bindings do not happen
        eff = ctx.effect
        if eff.value is not None and "." not in eff.name:  # a local container filled
            filled = self.value_cost(frame, eff.value)
            if isinstance(filled, BodyError):
                return filled
            if filled:
                frame.local_cost[eff.name] = max(frame.local_cost.get(eff.name, NONE), filled)
        self._note_rebinding(frame, ctx)
        self.note_writes(all_=True)  # (the object may be one a self attribute holds)
        head, _, rest = eff.name.partition(".")
        frame.changed.add(head)
        in_place = frame.call.env.get(head)
        if in_place is not None and in_place.sym:  # a spec changed in place (specs.py)
            self.spec_writes[f"{in_place.sym}.{rest}" if rest else in_place.sym] = len(
                self.sim.events
            )
        held = frame.call.env.get(eff.name)
        if held is not None and held.kind in ("args", "const"):
            frame.call.env[eff.name] = UNKNOWN  # ``offsets.append(n)``, ``n += 1``
        self._set_field(frame, eff, ctx.status)
        return None

    def _on_touch(self, frame: Frame, ctx: EffectContext) -> None:
        """Self attributes read and written; reading one that is surely unset raises."""
        eff = ctx.effect
        unset = ""
        facts = frame.call.fn.facts
        if eff.strict and not ctx.shadow and not facts.is_static and not facts.is_classmethod:
            # (a static or class method's first parameter is not the object)
            unset = next((n for n in sorted(eff.strict) if self.surely_unset(n)), "")
        self.emit(frame, ctx.effect_index, eff, "touch", "", ctx.status, ctx.flags, ctx.shadow)
        if unset:
            self.raise_attribute_error(frame, eff, unset)

    def _on_delete(self, frame: Frame, ctx: EffectContext) -> None:
        """``del self.x``: the attribute, its value and its cost are gone."""
        eff, status = ctx.effect, ctx.status
        if not ctx.shadow:
            self.emit(
                frame, ctx.effect_index, eff, "delete", eff.name, status, ctx.flags, ctx.shadow
            )
            if status == TRUE:
                self.self_attrs.pop(eff.name, None)
                self.attr_cost.pop(eff.name, None)
                self.last_assign.pop(eff.name, None)

    def _on_nested(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.attn.qkv = v``: a part of a self attribute replaced."""
        if ctx.shadow:
            return None
        return self._nested(frame, ctx.effect_index, ctx.effect, ctx.status, ctx.flags)

    def _on_stored_value(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """A value stored on self: ``self.x = v`` (assign), ``register_buffer("x", v)``
        (buffer), or a self attribute changed in place (mutate): price it, then record it."""
        stored = self.price_stored_value(frame, ctx)
        if isinstance(stored, BodyError):
            return stored
        self._record_stored_value(frame, ctx, stored)
        return None

    def _record_stored_value(self, frame: Frame, ctx: EffectContext, stored: StoredValue) -> None:
        """The stored value's event, and what the attribute now holds and cost."""
        eff, kind, shadow = ctx.effect, ctx.effect.kind, ctx.shadow
        value_const = eff.value is not None and eff.value.kind == "const"
        if kind == "assign" and not shadow:
            if eff.value is not None and eff.value.kind in ("const", "name", "attr"):
                v = self.eval_arg(frame, eff.value, None)
                self.self_attrs[eff.name] = v if stored.status == TRUE else UNKNOWN
            else:
                self.self_attrs[eff.name] = UNKNOWN
        ev = self.emit(
            frame,
            ctx.effect_index,
            eff,
            kind,
            eff.name,
            stored.status,
            ctx.flags,
            shadow,
            cost=stored.cost,
            value_const=value_const,
        )
        ev.reads = self.self_reads(frame, eff.value)
        if ctx.effect_index in frame.fed:
            ev.reads |= self.fed_reads(frame, ctx.effect_index)
        via = stored.via
        if via is not None and via[1].kind == "class":
            ev.constructs = via[1].name
        ev.possibly = stored.possibly
        ev.spec = stored.spec
        if stored.routes:
            ev.memo, ev.memo_changed = stored.bindings, stored.changed
        if kind != "mutate" and eff.name in ev.reads:
            ev.derived = True
        if kind == "mutate":
            self._fill(ev)
        elif not shadow:
            self.attr_cost[eff.name] = stored.cost
            if kind == "assign":
                self.last_assign[eff.name] = ev

    def _on_call(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """``self.method(...)``: its event, and the call to run when it resolves and its
        arguments bind."""
        eff, status, flags, shadow = ctx.effect, ctx.status, ctx.flags, ctx.shadow
        callee = self._resolve_call(frame, eff)
        if callee is None:
            named = eff.args[0].expr if eff.name == "__setattr__" and eff.args else None
            if named is not None and named.kind == "const" and isinstance(named.value, str):
                self.set_names.add(named.value)  # super().__setattr__("training", True)
            else:
                self.opaque = True
                self.note_writes(all_=True)
                self.note_unfollowed(eff)
            return None
        priced = self.simulator.cost.function_cost(callee, self.sim.mro)
        if isinstance(priced, BodyError):
            return priced
        callee_body = callee.facts.load()
        if isinstance(callee_body, BodyError):
            return callee_body
        key = ", ".join(a.text for a in eff.args)
        ev = self.emit(
            frame,
            ctx.effect_index,
            eff,
            "call",
            eff.name,
            status,
            flags,
            shadow,
            cost=priced,
            args_key=key,
            callee=callee,
        )
        for j in eff.feeds:
            frame.fed.setdefault(j, []).append(ev.index)
        if not eff.feeds:  # (a call in a ``return`` feeds no effect)
            frame.stmt_calls.setdefault(eff.stmt_span, []).append(ev.index)
        skip_self = not callee.facts.is_static
        env = self.bind_call(
            frame, eff.args, callee_body.params, skip_self=skip_self, module=callee.module
        )
        if env is None:
            ev.unfollowed = True
            self.opaque = self.blind = True
            self.note_writes(all_=True)
            return None
        key_args = frame, eff.args, callee_body.params, skip_self
        arg_keys = None
        if priced > NONE:  # (IL002 compares the costly calls by these)
            arg_keys = self.bind_keys(*key_args)
            ev.arg_keys = None if arg_keys is None else tuple(arg_keys.items())
        return Call(
            callee,
            env,
            frame.call.ancestor,
            ev.index,
            status,
            flags,
            frame.call.depth + 1,
            shadow,
            ctx.assume,
            ctx.literals,
            arg_keys,
            None if arg_keys is not None else key_args,
            unkeyed=self.unkeyed,
        )

    def _on_super_init(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """``super().__init__(...)``: its event, and the ancestor's ``__init__`` to run (or
        what torch's or object's does)."""
        eff, status, flags, shadow = ctx.effect, ctx.status, ctx.flags, ctx.shadow
        i = ctx.effect_index
        callee = self._resolve_super(frame, eff)
        ev = self.emit(
            frame, i, eff, "super_init", "__init__", status, flags, shadow, callee=callee
        )
        if callee is None:  # (object's, or an unknown class's: hasattr_truth checks the MRO)
            self._torch_init(frame, i, eff, status, flags, shadow, ev)
            return None
        callee_body = callee.facts.load()
        if isinstance(callee_body, BodyError):
            return callee_body
        env = self.bind_call(
            frame, eff.args, callee_body.params, skip_self=True, module=callee.module
        )
        if env is None:
            self.opaque = self.blind = True
            self.note_writes(all_=True)
            return None
        passed: KeyArgs | None = frame, eff.args, callee_body.params, True
        if self.inject is not None and frame.call.depth == 0:
            self._inject(frame, eff, callee_body.params, env, *self.inject)
            passed = None  # (the frame's keys come from its values, the injected one too)
        depth = frame.call.depth + 1
        return Call(
            callee,
            env,
            True,
            ev.index,
            status,
            flags,
            depth,
            shadow,
            ctx.assume,
            ctx.literals,
            None,
            passed,
            unkeyed=self.unkeyed,
        )

    # One handler per effect kind (``_effect``); the three kinds that store a value on self
    # share theirs.
    _EFFECT_HANDLERS: ClassVar[dict[EffectKind, _EffectHandler]] = {
        "local": _on_local,
        "pop": _on_pop,
        "return": _on_return,
        "objattr": _on_objattr,
        "touch": _on_touch,
        "delete": _on_delete,
        "nested": _on_nested,
        "buffer": _on_stored_value,
        "assign": _on_stored_value,
        "mutate": _on_stored_value,
        "call": _on_call,
        "super_init": _on_super_init,
    }

    def _nested(
        self, frame: Frame, i: int, eff: Effect, status: str, flags: tuple[FlagRef, ...]
    ) -> BodyError | None:
        """``self.attn.qkv = v``: a part of the object ``self.attn`` holds is replaced. The
        event names what that object's construction built of the part (``Event.inner``)."""
        cost = self.value_cost(frame, eff.value)
        if isinstance(cost, BodyError):
            return cost
        name = f"{eff.name}.{eff.detail}"
        holder = self.last_assign.get(eff.name)
        if eff.detail == "__init__":  # the object is constructed again: what that cost
            cost = holder.cost if holder is not None else NONE
        ev = self.emit(frame, i, eff, "nested", name, status, flags, (), cost=cost)
        ev.reads = self.self_reads(frame, eff.value)
        params = frame.body.params
        me = params[0].name if params else "self"
        ev.derived = eff.detail != "__init__" and _reads_part(eff.value, me, eff.name, eff.detail)
        if holder is None or cost == NONE or ev.derived:
            return None  # (the builds are looked for only where a finding could follow)
        ev.holder = holder
        if eff.detail == "__init__":
            ev.inner = (holder,)  # the construction redone is the holder's own build
            return None
        parts = self.simulator.parts_built(holder, eff.detail)
        if isinstance(parts, BodyError):
            return parts
        ev.inner = parts
        return None

    def _torch_init(
        self,
        frame: Frame,
        i: int,
        eff: Effect,
        status: str,
        flags: tuple[FlagRef, ...],
        shadow: tuple[Origin, ...],
        parent: Event,
    ) -> None:
        """A super call that reaches a torch.nn module's __init__ (``nn.Linear``): the
        parameters it registers are ancestor registrations, heavy ones."""
        start = self._owner_index(frame)
        if start is None or eff.detail not in ("super", "explicit"):
            return
        base = next(
            (q for q in self.sim.mro[start + 1 :] if self.simulator.index.class_info(q) is None), ""
        )
        if eff.detail == "explicit":  # nn.LayerNorm.__init__(self, ...): that class
            owner = frame.call.fn.owner
            target = self.simulator.index.resolve(owner.module, eff.target) if owner else None
            if target is None or target.name not in self.position:
                return
            base = target.name
        switched = {
            a.keyword
            for a in eff.args
            if a.keyword and self.eval_arg(frame, a.expr, a).value is False
        }
        fn = FunctionInfo(f"{base}.__init__", frame.call.fn.module, frame.call.fn.facts)
        positional: list[Arg] = []
        for a in eff.args:
            if a.star or a.keyword is not None:
                break
            positional.append(a)
        keywords = {a.keyword: a for a in eff.args if a.keyword is not None and not a.star}
        for name, offs in torch_params(base).items():
            if switched.intersection(offs):
                continue
            cost = LIGHT if torch_vector(base, name) else HEAVY  # a bias, a norm's vectors
            for pos, keyword in torch_shape(base, name):
                arg = positional[pos] if pos < len(positional) else keywords.get(keyword)
                size = None if arg is None else self.eval_arg(frame, arg.expr, arg)
                if size is not None and size.kind == "const" and _zero(size.value):
                    cost = LIGHT  # a size of 0: the tensor holds no data (a lazy placeholder)
                    break
            self.sim.events.append(
                Event(
                    index=len(self.sim.events),
                    kind="buffer",
                    name=name,
                    fn=fn,
                    effect=eff,
                    effect_index=i,
                    frame=frame.id,
                    status=status,
                    ancestor=True,
                    parent=parent.index,
                    expensive=True,
                    cost=cost,
                    flags=flags,
                    shadow=bool(shadow),
                    switched_off_by=shadow,
                    assume=self.assume,
                    literals=self.literals,
                    external=True,
                )
            )
            self.ever_set.add(name)
            self.note_writes({name})

    def _set_field(self, frame: Frame, eff: Effect, status: str) -> None:
        """``config.n_experts = None``: the object a local names now holds that field, and
        an ancestor that tests it (``if config.n_experts is not None:``) sees the value."""
        head, _, rest = eff.name.partition(".")
        env = frame.call.env
        base = env.get(head, UNKNOWN)
        if base.kind not in ("unknown", "const") or not rest:
            return
        value = UNKNOWN
        if status == TRUE and eff.value is not None and eff.value.kind == "const":
            value = self.eval_arg(frame, eff.value, None)
        kept = tuple((k, v) for k, v in base.fields if k != rest)
        env[head] = Val("unknown", sym=base.sym, fields=(*kept, (rest, value)))

    def _fill(self, ev: Event) -> None:
        """``self.layers.append(Block())``: filling a container built earlier in the same
        call makes that assignment as costly as what went in (``self.layers =
        nn.ModuleList()`` then a loop)."""
        target = self.last_assign.get(ev.name)
        if target is None or target.frame != ev.frame or ev.cost <= target.cost:
            return  # a container another method fills: that method's call holds the work
        target.cost = ev.cost
        target.expensive = True
        if not ev.shadow:
            self.attr_cost[ev.name] = max(self.attr_cost.get(ev.name, NONE), ev.cost)

    def _inject(
        self,
        frame: Frame,
        eff: Effect,
        callee_params: tuple[Param, ...],
        env: dict[str, Val],
        name: str,
        value: Const,
    ) -> None:
        origin = Origin(
            frame.id, frame.call.fn.qualname, frame.call.fn.module.path, eff.span, name, repr(value)
        )
        val = Val("const", value, origin=origin)
        params = {p.name: p for p in callee_params}
        if name in params and params[name].kind not in ("vararg", "kwarg"):
            env[name] = val
            return
        kwarg = kwarg_name(callee_params)
        if kwarg:
            pack = env.get(kwarg, Val("kwargs"))
            keys = (*pack.kw_without(name).keys, (name, val))
            env[kwarg] = Val("kwargs", keys=keys, open=pack.open)

    def _owner_index(self, frame: Frame) -> int | None:
        owner = frame.call.fn.owner
        if owner is None:
            return None
        return self.position.get(owner.qualname)

    def _resolve_call(self, frame: Frame, eff: Effect) -> FunctionInfo | None:
        mro = self.sim.mro
        if eff.detail == "explicit":  # ``Base.method(self)``: that class's own lookup
            return self.simulator.cost.callee_of(frame.call.fn.module, eff, mro)
        if eff.detail == "super":
            idx = self._owner_index(frame)
            if idx is None:
                return None
            return self.simulator.index.lookup_method(mro, eff.name, idx + 1)
        fn = self.simulator.index.lookup_method(mro, eff.name)
        if fn is None or fn.facts.is_classmethod:
            return None
        return fn

    def _resolve_super(self, frame: Frame, eff: Effect) -> FunctionInfo | None:
        mro = self.sim.mro
        if eff.detail == "super":
            idx = self._owner_index(frame)
        else:
            owner = frame.call.fn.owner
            if owner is None:
                return None
            target = self.simulator.index.resolve(owner.module, eff.target)
            if target is None or target.kind != "class" or target.name not in self.position:
                return None
            idx = self.position[target.name]
            if eff.detail == "explicit":
                idx -= 1  # Base.__init__ starts the lookup at Base itself
        if idx is None:
            return None
        return self.simulator.index.lookup_method(mro, "__init__", idx + 1)


def _only_passes_on(cls: ClassInfo, init: FunctionInfo) -> bool:
    """C defines nothing but an ``__init__`` whose whole body is ``super().__init__()``.

    C's own part of its construction is then empty: every event is its ancestors', so no
    rule can fire on C, and C passes no argument a switched-off flag could come from. Its
    simulation is skipped; a long chain of such classes stays linear instead of quadratic.
    """
    if init.owner is None or init.owner.qualname != cls.qualname or len(cls.facts.methods) != 1:
        return False
    body = init.facts.load()
    if isinstance(body, BodyError):
        return False  # simulated, and the error reported there
    effects = body.effects
    if len(effects) != 1:
        return False
    eff = effects[0]
    return eff.kind == "super_init" and eff.detail == "super" and not eff.args and not eff.guard


def _reads_part(value: Expr | None, me: str, holder: str, part: str) -> bool:
    """Whether ``value`` reads ``<me>.<holder>.<part>``, the part it replaces (a wrapper of
    it: ``self.attn.qkv = Quantized(self.attn.qkv)`` keeps the built one)."""
    stack = [value] if value is not None else []
    while stack:
        cur = stack.pop()
        recv = cur.receiver
        if (
            cur.kind == "attr"
            and cur.attr == part
            and recv is not None
            and recv.kind == "attr"
            and recv.attr == holder
            and recv.receiver is not None
            and recv.receiver.kind == "name"
            and recv.receiver.name == me
        ):
            return True
        if recv is not None:
            stack.append(recv)
        stack.extend(cur.children)
    return False


def _zero(value: Const) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _display(value: Expr | None) -> bool:
    """A list or tuple display of a few plain items (none starred)."""
    return (
        value is not None
        and value.kind == "op"
        and value.name == "tuple"
        and len(value.children) <= SMALL_NUMEL
        and not any(c.kind == "op" and c.name == "*" for c in value.children)
    )

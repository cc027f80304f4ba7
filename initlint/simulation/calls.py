"""The effect handlers that make calls: a method of the object called (``on_call``) and an
ancestor's ``__init__`` (``on_super_init``), each resolved in the MRO and its arguments
bound; a torch.nn module's ``__init__`` registers its parameters; the constant a simulation
injects goes into the constructed class's super call. ``engine.py``'s table dispatches to
them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from initlint.facts.model import (
    Arg,
    BodyError,
    Cond,
    Const,
    Effect,
    Expr,
    Param,
    handed_more_than,
    import_of,
)
from initlint.facts.passes import from_end
from initlint.index.records import FunctionInfo, Module
from initlint.simulation.arguments import kwarg_name, param_of, without_self
from initlint.simulation.choices import named
from initlint.simulation.handed import runs_when_called
from initlint.simulation.levels import HEAVY, LIGHT, NONE
from initlint.simulation.local_draws import drawn_then_filled
from initlint.simulation.part_refs import part_named
from initlint.simulation.records import ATTRIBUTE_WRITES, Event, FlagRef
from initlint.simulation.rerun_effects import RerunEffects
from initlint.simulation.run_state import Call, EffectContext, Frame, KeyArgs
from initlint.simulation.setter_calls import parts_set_at
from initlint.simulation.torch_knowledge import (
    torch_params,
    torch_shape,
    torch_vector,
    written_bound,
)
from initlint.simulation.values import TRUE, UNKNOWN, Origin, Val


class CallEffects(RerunEffects):
    """Applying the effects that call a method or an ancestor's ``__init__``."""

    def on_call(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """``self.method(...)``: its event, and the call to run when it resolves and its
        arguments bind."""
        eff, status, flags, shadow = ctx.effect, ctx.status, ctx.flags, ctx.shadow
        callee = self._resolve_call(frame, eff)
        if callee is None:
            named = eff.args[0].expr if eff.name == "__setattr__" and eff.args else None
            if named is not None and named.kind == "const" and isinstance(named.value, str):
                self.set_names.add(named.value)  # super().__setattr__("training", True)
                self.forget_numbers((named.value,))
            else:
                self.apply_pass(frame, ctx, None)
                self.opaque = True
                self.note_unfollowed_writes()
                self.note_unfollowed(eff)
            return None
        callee_body = callee.facts.load()
        if isinstance(callee_body, BodyError):
            return callee_body
        # (priced with the numbers the attributes it reads hold as it starts: a run again
        # is reported at the cost of the earlier run's work, which it throws away)
        read = {n for e in callee_body.effects for n in e.reads}
        written = written_bound(self.self_attrs, self.written_attrs & read)
        priced = self.simulator.cost.method_cost(
            frame.call.fn.module, eff, callee, self.sim.mro, tuple(sorted(written.items()))
        )
        if isinstance(priced, BodyError):
            return priced
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
            self.note_unfollowed_writes()
            return None
        key_args = frame, eff.args, callee_body.params, skip_self
        arg_keys = None
        if priced > NONE:  # (IL002 compares the costly calls by these)
            arg_keys = self.bind_keys(*key_args)
            ev.arg_keys = None if arg_keys is None else tuple(arg_keys.items())
        # (torch's ``apply`` of a pass: its fills are events; its walk is still followed,
        # for what it reads)
        self.apply_pass(frame, ctx, callee)
        given = self._given_costs(frame, eff, callee_body.params, skip_self)
        if isinstance(given, BodyError):
            return given
        parts = self._given_parts(frame, eff, callee_body.params, skip_self)
        if parts:
            self.pass_on(frame, eff, parts.values())
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
            given_cost=given,
            given_parts=parts,
        )

    def _given_costs(
        self, frame: Frame, eff: Effect, params: tuple[Param, ...], skip_self: bool
    ) -> dict[str, int] | BodyError:
        """What building each argument cost, by the parameter it binds to: a value the
        caller built and hands to a method of the object (``self.set_encoder(encoder)``)
        costs there what it cost the caller, so a store of it there is that build. A local
        the caller mentions anywhere else (stored, handed on again) is not carried: the
        object may live on there."""
        params = without_self(params, skip_self)
        args = eff.args
        given: dict[str, int] = {}
        for at, arg in enumerate(args):
            param = None if arg.star else param_of(params, args, at)
            if param is None or arg.expr.kind not in ("name", "call"):
                continue
            name = arg.expr.name
            if arg.expr.kind == "name" and handed_more_than(frame.body.effects, name, 1):
                continue  # (handed on besides this call: the object may live on there)
            cost = self.value_cost(frame, arg.expr)
            if isinstance(cost, BodyError):
                return cost
            if cost > NONE:
                given[param.name] = cost
        return given

    def _given_parts(
        self, frame: Frame, eff: Effect, params: tuple[Param, ...], skip_self: bool
    ) -> dict[str, str]:
        """The parts of the object handed to a method of it, by the parameter each binds
        to (``self._tie(self.lm_head, emb)``): there the parameter stands for that part,
        when its facts say it may (never a ``*args`` or ``**kwargs``)."""
        params = without_self(params, skip_self)
        given: dict[str, str] = {}
        for at, arg in enumerate(eff.args):
            param = None if arg.star else param_of(params, eff.args, at)
            part = part_named(arg.expr, frame.self_name, frame.parts)
            if param is not None and param.part_name and part:
                given[param.name] = part
        return given

    def on_held_call(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.held.method(...)``: work on another object. The cost model prices it as
        part of the class's construction (the statement's touch says what it reads and may
        change). When the class's own code built that object, and the object's construction
        already ran ``method`` (``self.xtts = Xtts(cfg)``, then ``self.xtts.init_models()``),
        a ``rerun`` event names the parts that run built: running it again builds them
        anew."""
        eff = ctx.effect
        if "." in eff.target:  # (``self.decoder[0].reset_parameters()``)
            return None if ctx.shadow or frame.call.ancestor else self._item_rerun(frame, ctx)
        if self.held_apply_pass(frame, ctx):
            return None  # (``self.convs.apply(init)``: a pass over that module's modules)
        if ctx.shadow or frame.call.ancestor:
            return None
        holder = self.last_assign.get(eff.target)
        if holder is None or holder.ancestor or holder.status != TRUE:
            return None
        reached = (eff.target, holder, None, TRUE)
        rebuilt = self.rebuilt_parts(frame, ctx, reached)
        if isinstance(rebuilt, BodyError):
            return rebuilt
        # (a method that only fills, ``self.fc.reset_parameters()``, fills again; one that
        # builds parts anew fills again what it fills of the others)
        return self.rerun_fills(frame, ctx, [reached], {eff.target: rebuilt})

    def _item_rerun(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """A method of one item of a held container run again (``self.decoder[-1]
        .reset_parameters()``): as over that item in a loop, when the container's items are
        known by number."""
        attr, _, at = ctx.effect.target.partition(".")
        found = self.numbered_item(attr, int(at))
        if found is None:
            return None
        holder, key, call, status = found
        return self.rerun_fills(frame, ctx, [(f"{attr}.{key}", holder, call, status)])

    def on_init(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``nn.init.xavier_uniform_(self.weight)``: an initialisation in place, an event
        when it fills a whole attribute of the object (IL005 finds one filled twice). The
        cost model prices it as the work of the function that runs it; the statement's
        touch says what it writes."""
        eff = ctx.effect
        drawn = drawn_then_filled(frame.body, ctx.effect_index) if not ctx.shadow else None
        if drawn is not None:
            return self._redrawn(frame, ctx, drawn)
        name = self.counted_from_start(eff.name) if eff.detail == "self" else None
        if name and _held_part(name):
            # (``self.conv.weight`` too: a part of a held module, for a reparametrised one,
            # and for what the module's own construction filled)
            ev = self.emit(
                frame, ctx.effect_index, eff, "init", name, ctx.status, ctx.flags, ctx.shadow
            )
            if "." in name and not ctx.shadow and not frame.call.ancestor:
                # (an ancestor's own refill of what it holds is reported on the ancestor)
                found = self.part_fills(name)
                if isinstance(found, BodyError):
                    return found
                ev.inner_fills = found
            if "." in name and not ctx.shadow:
                ev.part_cost = self.part_cost(name)
        return None

    def _redrawn(self, frame: Frame, ctx: EffectContext, bound: int) -> BodyError | None:
        """A ``redrawn`` event: the fill of ``ctx`` throws away the random draws the local
        was made with at the frame's effect number ``bound`` (the event of that binding, where
        the run made one, is its ``holder``), priced as the draws."""
        eff = ctx.effect
        binding = frame.body.effects[bound]
        cost = self.value_cost(frame, binding.value)
        if isinstance(cost, BodyError):
            return cost
        # (under the binding's own guards, a loop's too, whenever the draws are made)
        status = TRUE if eff.guard == binding.guard else ctx.status
        ev = self.emit(
            frame, ctx.effect_index, eff, "redrawn", eff.name, status, ctx.flags, (), cost=cost
        )
        ev.holder = next(
            (
                e
                for e in reversed(self.sim.events)
                if e.frame == frame.id and e.effect_index == bound and e.kind == "local"
            ),
            None,
        )
        return None

    def on_helper(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``initialize(self, ...)``: a function handed the object. The cost model prices
        what it does; the statement's touch says it may read and change anything. Handed a
        module the object holds (``init_attenuated(self.lin)``), the parts of it the function
        fills whole on every path (``kaiming_uniform_(linear.weight)``) are filled as if
        the class filled them (``self.lin.weight``); handed a tensor of one
        (``glorot_orthogonal(self.lin.weight, 2.0)``), so is that tensor where the function
        fills it whole, and a tensor of its own the object surely holds (``glorot(self.weight)``
        after ``self.weight = nn.Parameter(...)``). A fill under no test but that the tensor
        is there (``if tensor is not None:``; for a tensor of its own, also ``if
        isinstance(tensor, Tensor):``) is on every path for a tensor the object holds."""
        eff = ctx.effect
        if not eff.target or eff.name in frame.call.env:
            return None  # (nothing held handed, or a local of that name called)
        fn = self.simulator.cost.helper_of(frame.call.fn.module, eff)
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError):
            return None
        if not self.bound_once(frame.call.fn.module, eff.name) or not self.bound_once(
            fn.module, fn.facts.name
        ):
            return None  # (which function the name runs depends on what ran before)
        handed = [
            (at, path)
            for at, a in enumerate(eff.args)
            if not a.star and (path := _part_path(a.expr, frame.self_name))
            if path.partition(".")[0] == eff.target
        ]
        if len(handed) != 1:
            return None
        at, path = handed[0]
        param = param_of(body.params, eff.args, at)
        if param is None:
            return None
        tensor = "." not in path and self.holds_tensor(path)
        module = fn.module
        # (a class the function names is the module's unless the function binds that name)
        own = {p.name for p in body.params} | {e.name for e in body.effects if e.kind == "local"}
        is_tensor = partial(self.names_torch_tensor, module, frozenset(own)) if tensor else None
        if not runs_when_called(fn):
            return None  # (a generator or a coroutine: the call runs none of its body)
        for i, fill in enumerate(body.effects):
            if fill.kind != "init" or fill.name != param.name:
                continue
            if any(_ends_early(e, param) for e in body.effects[:i]):
                break  # (the function may end before it fills)
            if any(e.kind == "local" and e.name == param.name for e in body.effects[:i]):
                break  # (the name rebound: what it fills is not what it was handed)
            if not _unless_none(fill, param, is_tensor):
                continue
            if fill.target:
                name = f"{path}.{fill.target}"  # (a module handed: a tensor of it filled)
            elif fill.detail == "whole" and ("." in path or tensor):
                # (a tensor handed, ``glorot(self.lin.weight)``, ``glorot(self.weight)``:
                # filled whole)
                name = path
            else:
                continue
            given = replace(eff, kind="init", detail="self", name=name, target=name)
            found = self.on_init(frame, ctx._replace(effect=given))
            if found is not None:
                return found
        if not tensor:  # (a module handed: its parts given new values, as if written here)
            for setter in parts_set_at(fn, -1, param.name):
                if setter.every_path:
                    part, value = setter.part, setter.value
                    given = replace(eff, kind="nested", name=path, detail=part, value=value)
                    found = self.on_nested(frame, ctx._replace(effect=given))
                    if found is not None:
                        return found
        return None

    def holds_tensor(self, attr: str) -> bool:
        """Whether ``self.<attr>`` surely holds a tensor: the last write of it in the
        construction so far, on every path, registers one (a buffer or a parameter)."""
        for e in reversed(self.sim.events):
            if e.shadow or e.name.partition(".")[0] != attr or e.kind not in ATTRIBUTE_WRITES:
                continue
            value = e.effect.value
            none = value is None or (value.kind == "const" and value.value is None)
            return e.kind == "buffer" and e.name == attr and e.status == TRUE and not none
        return False

    def names_torch_tensor(self, module: Module, own: frozenset[str], text: str) -> bool:
        """Whether ``text``, a class as a function of ``module`` that binds the names ``own``
        itself writes it, is torch's ``Tensor``."""
        if text.partition(".")[0] in own:
            return False
        return self.simulator.index.public_name(module, text) == "torch.Tensor"

    def on_import(self, frame: Frame, ctx: EffectContext) -> None:
        """An import inside the function binds its name there, before the module's names
        (``from .blocks import Encoder``): calling the name builds the class or function
        the import names (``Val.ref``). Other imports leave names to the module's."""
        name = ctx.effect.name
        ref = self.simulator.index.imported_ref(frame.call.fn.module, import_of(ctx.effect))
        if frame.maybe and name in frame.call.env:
            # (under an undecided test: the name may hold what it held before, or what this
            # import names; one of the classes each import names, ``if fast: from .a import
            # M`` ``else: from .b import M``, where each is one)
            before = named(frame.call.env[name])
            either = (*before, ref) if before and ref is not None else ()
            frame.call.env[name] = Val("unknown", choices=either) if either else UNKNOWN
            return None
        if ref is not None:
            frame.call.env[name] = Val("unknown", ref=ref)
        elif name in frame.call.env:
            frame.call.env[name] = UNKNOWN  # (a module, or a name of one not followed)
        return None

    def on_super_init(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
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
        owner = callee.owner
        start = self.position.get(owner.qualname) if owner is not None else None
        if self.init_as_written(callee, self.sim.mro, start) and self.refused(
            frame, eff.args, callee_body.params, True
        ):
            self.raise_type_error(frame, callee.qualname)
            return None
        env = self.bind_call(
            frame, eff.args, callee_body.params, skip_self=True, module=callee.module
        )
        if env is None:
            self.opaque = self.blind = True
            self.note_unfollowed_writes()
            return None
        lent = self.lend_builds(frame, ctx, callee_body)
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
            lent=lent,
        )

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
        if eff.detail == "super2":  # ``super(X, self).method()``: after X in the MRO
            owner = frame.call.fn.owner
            named = self.simulator.index.resolve(owner.module, eff.target) if owner else None
            if named is None or named.kind != "class" or named.name not in self.position:
                return None
            return self.simulator.index.lookup_method(mro, eff.name, self.position[named.name] + 1)
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


def _zero(value: Const) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _held_part(name: str) -> bool:
    """Whether a filled tensor's name is an attribute, a part of a held module
    (``conv.weight``) or of a module it holds (``block.ada.weight``), or a part of an item
    of a held container (``body.0.weight``, ``body.0.ada.weight``)."""
    parts = name.split(".")
    if any(from_end(p) for p in parts):
        return False  # (an item counted from the end: which one is not said here)
    return len(parts) <= 4


def _part_path(e: Expr, self_name: str) -> str:
    """The dotted path of the part of the object ``e`` names (``self.lin.weight``,
    ``self.lin.weight.data``: ``lin.weight``, ``.data`` being the tensor itself); "" for
    anything else."""
    if e.kind == "attr" and e.attr == "data" and e.receiver is not None:
        e = e.receiver
    return part_named(e, self_name, {})


def _unless_none(fill: Effect, param: Param, tensor: Callable[[str], bool] | None) -> bool:
    """Whether the fill ``fill`` of the parameter ``param`` runs on every path on which the
    parameter holds a value: unguarded, or guarded only by ``param is not None``; handed a
    tensor, also by ``isinstance(param, Tensor)`` (``tensor`` says whether the classes, as
    written, are torch's ``Tensor``)."""
    return all(_lets_a_value_through(c, param.name, tensor) for c in fill.guard)


def _ends_early(e: Effect, param: Param) -> bool:
    """Whether ``e`` may end the function where ``param`` holds a value: a ``return`` or
    ``raise`` under any test but ``param is None`` alone."""
    if e.kind not in ("return", "raise"):
        return False
    return not (len(e.guard) == 1 and _none_test(e.guard[0], param.name) == "is")


def _none_test(c: Cond, name: str) -> str:
    """``is`` for ``name is None``, ``isnot`` for ``name is not None``; "" for any other."""
    if c.op not in ("is", "isnot") or len(c.args) != 2:
        return ""
    subject, other = c.args
    if subject.op != "name" or subject.name != name:
        return ""
    return c.op if other.op == "const" and other.value is None else ""


def _lets_a_value_through(c: Cond, name: str, tensor: Callable[[str], bool] | None) -> bool:
    if _none_test(c, name) == "isnot":
        return True
    if not c.args or c.args[0].op != "name" or c.args[0].name != name:
        return False
    return tensor is not None and c.op == "isinstance" and tensor(str(c.value))

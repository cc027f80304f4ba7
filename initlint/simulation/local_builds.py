"""Objects a construction builds into a local (``net = resnet50()``) and keeps only in part:
the frame takes some parts (``self.body = net.layer4``) and drops the rest with the local, or
replaces a part (``net.fc = nn.Linear(...)``) before using the object. The builds of the
parts it leaves, found in the object's class's own simulation, are thrown away (IL005)."""

from __future__ import annotations

from dataclasses import replace

from initlint.facts.expressions import slice_bounds
from initlint.facts.model import Body, BodyError, Effect, Expr
from initlint.facts.part_setters import PartSet
from initlint.index.records import FunctionInfo, Module, Target
from initlint.simulation.arguments import call_args, param_at, param_of, without_self
from initlint.simulation.builds import BuildPricing
from initlint.simulation.children import registered_children
from initlint.simulation.choices import named
from initlint.simulation.containers import container_items, torch_container
from initlint.simulation.copies import copying, name_mentions
from initlint.simulation.levels import HEAVY, LIGHT, NONE, UNKNOWN
from initlint.simulation.records import (
    Event,
    built_by,
    ended_paths,
    every_path,
    never_both,
    part_taken,
    unmoved,
)
from initlint.simulation.run_state import Call, EffectContext, Frame, LocalBuild
from initlint.simulation.setter_calls import parts_set_at
from initlint.simulation.torch_knowledge import (
    CONFIG_ATTRS,
    KNOWN_LIBRARIES,
    PART_TABLES,
    REPARAMETRISATIONS,
    SELF_METHODS,
    positional_values,
)
from initlint.simulation.torch_module import MODULE_NAMES
from initlint.simulation.values import FALSE, MAYBE, TRUE


class LocalEffects(BuildPricing):
    """Following the objects a frame built into locals."""

    def chosen_classes(
        self, frame: Frame, value: Expr | None
    ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The names that ``value`` calls and that hold one or several classes or builders
        (a local, ``Emb = A if warp else B``, then ``Emb(...)``; a self attribute,
        ``self.base_model = {...}[name]``, then ``self.base_model(...)``), each with the
        qualified names of the classes or factories they build by, "" for one not known here;
        a name none of
        whose choices is known is left out."""
        if value is None:
            return ()
        out: dict[str, tuple[str, ...]] = {}
        for node in value.nodes():
            if node.kind != "call" or node.name in out:
                continue
            head, _, attr = node.name.partition(".")
            if not node.name:  # (``MODELS[arch](...)``, keyed "": the one value called so)
                if node.callee is None:
                    continue
                module = frame.call.fn.module
                picks = self.simulator.cost.choices.choices(module, node.callee, frame.call.env)
            elif not attr and node.name in frame.call.env:
                # (a local alias, ``block = Block``, holds one class for sure)
                alias = frame.call.env[node.name]
                picks = named(alias) if not alias.maybe_ref else ()
            elif head == frame.self_name and "." not in attr:  # (``self.base_model(...)``)
                held = self.self_attrs.get(attr)
                picks = named(held) if held is not None else ()
            else:
                continue
            # (a choice whose class is not known stays as "": one of the classes, not
            # known to build anything; when none is known, nothing is claimed)
            found = [self.simulator.choice_made(c) for c in picks]
            if any(found):
                out[node.name] = tuple(dict.fromkeys(found))
        return tuple(out.items())

    def note_local_build(self, frame: Frame, ctx: EffectContext) -> None:
        """``net = resnet50()`` in the class's own code, where the frame mentions ``net``
        later: its ``local`` event, and a record of how the frame uses it. A build on some
        paths only (a loop's body, a branch) is followed for the parts replaced on it; the
        parts left behind are counted for a build on every path, and for builds on branches
        that never both run (``if fid: net = A() else: net = B()``), each on its own."""
        eff = ctx.effect
        value = eff.value
        if ctx.shadow or frame.call.ancestor:
            return  # (an ancestor's own waste is reported on the ancestor)
        ev = None
        used = any(e.kind == "local_use" and e.name == eff.name for e in frame.body.effects)
        # (``Attn(d).to(dtype)``: the object the call built, moved or cast in place)
        made = unmoved(value)
        if made is not None and made.kind == "call" and (made.name or made.callee) and used:
            ev = self.emit(
                frame, ctx.effect_index, eff, "local", eff.name, ctx.status, ctx.flags, ()
            )
            ev.choices = self.chosen_classes(frame, made)  # (``net = table[name](...)``)
            ev.constructs = self._given_class(frame, made)
            ev.sizes = self.sizes_read(frame, made)
            ev.moved = made is not value
        held = frame.built.pop(eff.name, None)
        if held is not None and ctx.status != TRUE:  # (rebound on some paths)
            if ev is not None and never_both(held.event, ev):
                frame.shelved.setdefault(eff.name, []).append(held)
            else:
                held.whole = True  # (the old object on some paths kept)
                frame.built[eff.name] = held
        elif held is not None:
            frame.released.append(held)  # (closed with the frame, as used until now)
        if ev is not None:
            frame.built[eff.name] = LocalBuild(ev)

    def factory_call(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """``inception = fid_inception_v3()`` in the class's own code: a function of the
        project that builds an object into a local of its own and works on it (a factory:
        ``net = Inception3(...)``, parts replaced, ``return net``) runs as a frame of the
        construction, once per statement, so what it throws away of the objects it builds
        is thrown away by the construction. Other functions are priced, as before."""
        eff = ctx.effect
        value = eff.value
        if ctx.shadow or frame.call.ancestor or eff.stmt_span in frame.factories:
            return None
        fn = self.plain_function(frame, value)
        if value is None or fn is None or fn.module.is_dependency:
            return None
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        if not _works_on_parts(body) and not self._hands_to_setters(fn, body):
            return None  # (nothing of an object of its own replaced there: nothing to add)
        args = call_args(value)
        env = None if args is None else self.bind_call(frame, args, body.params, False, fn.module)
        if env is None:
            return None
        frame.factories.add(eff.stmt_span)
        depth = frame.call.depth + 1
        return Call(
            fn,
            env,
            False,
            None,
            ctx.status,
            ctx.flags,
            depth,
            (),
            ctx.assume,
            ctx.literals,  # (the guards it runs under, as a call of a method carries them)
            unkeyed=self.unkeyed,
        )

    def plain_function(self, frame: Frame, value: Expr | None) -> FunctionInfo | None:
        """The function (not a method) a call by a plain name runs, as the frame's module
        resolves it (``build(d)``, ``default(proj, ...)``); None for any other value."""
        if value is None or value.kind != "call" or not value.name or value.receiver:
            return None
        index = self.simulator.index
        target = index.resolve(frame.call.fn.module, value.name)
        fn = index.function_info(target.name) if target and target.kind == "function" else None
        return fn if fn is not None and fn.owner is None else None

    def _given_class(self, frame: Frame, call: Expr) -> str:
        """The class a plain name called holds, as the frame was given it or imported it
        (``from transformers import GPT2Model`` inside the function): "" otherwise."""
        held = frame.call.env.get(call.name) if "." not in call.name else None
        if held is None or held.ref is None:
            return ""
        target = self.simulator.index.resolve_value(*held.ref)
        return target.name if target is not None and target.kind == "class" else ""

    def _all_built(self, frame: Frame, name: str) -> list[LocalBuild]:
        """The objects a built local may hold: its latest binding's, and those of earlier
        bindings on branches that never run with it."""
        held = frame.built.get(name)
        return [*([held] if held is not None else []), *frame.shelved.get(name, [])]

    def note_dropped_object(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``feats = make(n).features`` or ``self.body = make(n).features`` in the class's
        own code: the object the call built is dropped as soon as its part is taken, and the
        builds of its other parts with it. A ``dropped`` event names the part taken; its
        ``inner`` the builds of the parts left."""
        eff = ctx.effect
        if ctx.shadow or ctx.status == FALSE or frame.call.ancestor:
            return None
        taken = part_taken(eff.value)
        if taken is None or self._bound_method(frame, *taken):
            return None
        part = taken[1]
        ev = self.emit(frame, ctx.effect_index, eff, "dropped", part, ctx.status, ctx.flags, ())
        ev.choices = self.chosen_classes(frame, taken[0])
        parts = self.simulator.parts_built(ev, None)
        if isinstance(parts, BodyError):
            return parts
        ev.inner = tuple(p for p in parts if p.name != part and p.cost > NONE)
        ev.kept = frozenset({part})
        return None

    def _bound_method(self, frame: Frame, call: Expr, part: str) -> bool:
        """Whether the part taken may hold the object (``MAE().metric``, a method: the bound
        method holds it; ``self.run = self.fast`` in its construction, an attribute whose
        value mentions the object): it lives on with it. A static or class method holds no
        instance; an attribute set under a method's name, to a value that does not mention
        the object, is what the object gives instead (not known: claimed as kept)."""
        if not call.name:  # (``MODELS[arch]().part``: any of the classes it may build)
            made = {c for _, classes in self.chosen_classes(frame, call) for c in classes}
            return any(self._holds_object(Target("class", c), part) for c in made if c)
        target = self.simulator.index.resolve(frame.call.fn.module, call.name)
        return target is not None and self._holds_object(target, part)

    def _holds_object(self, target: Target, part: str) -> bool:
        """Whether the part ``part`` of an object of the class ``target`` holds the object
        (``_bound_method``)."""
        index = self.simulator.index
        if target.kind != "class":
            return False
        mro = index.mro(target.name)
        if not mro.ok:
            return False
        fn = index.lookup_method(mro.classes, part)
        init = index.lookup_method(mro.classes, "__init__")
        body = init.facts.load() if init is not None else None
        stores = []
        if body is not None and not isinstance(body, BodyError):
            stores = [e for e in body.effects if e.kind in ("assign", "buffer") and e.name == part]
            me = body.params[0].name if body.params else ""
            if me and any(e.value is not None and e.value.mentions(me) for e in stores):
                return True
        if fn is None:
            return False
        return bool(stores) or not (fn.facts.is_static or fn.facts.is_classmethod)

    def on_local_use(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """A mention of a built local: a part taken, a method run on it, the object handed
        on (anything the frame does with it on any path counts); handed to a function that
        only gives parts of it new values, those parts replaced there."""
        eff = ctx.effect
        head = eff.detail.partition(".")[0]
        built = self._all_built(frame, eff.name)
        open_ = any(not h.whole and not h.called for h in built)  # (else nothing to claim)
        setters = self._setters(frame.call.fn.module, eff) if eff.target == "hand" and open_ else ()
        if setters:  # (handed to a function that only sets parts of it)
            for setter in (s for s in setters if s.every_path):  # (the others: no use)
                name = f"{eff.name}.{setter.part}"
                given = replace(eff, kind="objattr", name=name, value=setter.value)
                found = self.note_part_replaced(frame, ctx._replace(effect=given))
                if found is not None:
                    return found
            return None
        for held in built:
            if eff.target == "fill":
                held.taken.add(eff.detail)  # (filled in place: still the object's)
            elif eff.target == "part":
                part = _part_used(eff.detail)
                if part is None:
                    held.whole = True
                elif part:
                    held.taken.add(part)
                    held.kept_out.add(part)
            elif eff.target == "call":
                held.called = True
                held.whole = held.whole or head not in SELF_METHODS
            elif eff.target == "hand" and (taken := self._parts_a_class_takes(frame, eff, held)):
                held.taken.update(taken)
                held.kept_out.update(taken)
            elif eff.target == "hand" and self._copying_hand(frame, ctx):
                pass  # (its deep copies are kept, not it: ``note_copied_builds``)
            elif eff.target in ("whole", "hand"):
                held.whole = True
                keyed = ctx.status == MAYBE and not self.unkeyed
                held.kept_where.append(ctx.literals if keyed else None)
            elif eff.target == "copy":
                held.copied = True
            elif eff.target == "children":
                low, _, high = eff.detail.partition(":")
                held.children.append((int(low) if low else None, int(high) if high else None))
            elif eff.target == "lend":
                held.lending = True  # (``lend_builds``, at the super call, decides)
        return None

    def _hands_to_setters(self, fn: FunctionInfo, body: Body) -> bool:
        """Whether ``body`` hands an object it built to a function that gives parts of it
        new values (``load_params(layer, weight, bias)``)."""
        return any(
            e.kind == "local_use" and e.target == "hand" and self._setters(fn.module, e)
            for e in body.effects
        )

    def _setters(self, module: Module, eff: Effect) -> tuple[PartSet, ...]:
        """For a ``hand`` use of a built local, as written in ``module``: the parts the
        project function it is handed to gives new values, doing nothing else with it
        (``load_params(layer, weight, bias)``); () for any other callee."""
        callee, _, place = eff.detail.rpartition(":")
        index = self.simulator.index
        target = index.resolve(module, callee)
        fn = index.function_info(target.name) if target and target.kind == "function" else None
        if fn is None:
            return ()
        at, keyword = (int(place), "") if place.isdigit() else (-1, place)
        return parts_set_at(fn, at, keyword)

    def _copying_hand(self, frame: Frame, ctx: EffectContext) -> bool:
        """Whether the ``hand`` use ``ctx`` gives the local, named nowhere else in its
        statement, to a call that keeps only deep copies of that argument
        (``nn.TransformerEncoder(layer, n)``): on that path the object is not kept, whatever
        another path does with it."""
        eff = ctx.effect
        callee, _, place = eff.detail.rpartition(":")
        effects = frame.body.effects
        for e in effects[ctx.effect_index :]:
            if e.stmt_span != eff.stmt_span:
                break  # (a statement's effects are together; its ``local_use`` comes first)
            value = e.value
            if value is None:
                continue
            named = name_mentions(value, eff.name)
            if named == 0:
                continue
            if named > 1:
                return False  # (``Encoder(layer, n, first=layer)``: kept by the other)
            for call in value.nodes():
                if call.kind == "call" and call.name == callee:
                    return self._copies_argument(frame, call, place, eff.name)
        return False

    def _copies_argument(self, frame: Frame, call: Expr, place: str, name: str) -> bool:
        """Whether ``call`` keeps only deep copies of its argument at ``place`` (a position or
        a keyword), the local ``name``, and reads nothing of it (a part read may be kept)."""
        args = call_args(call) or ()
        positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        if place.isdigit():
            at = positional[int(place)] if int(place) < len(positional) else -1
        else:
            at = next((i for i, a in enumerate(args) if a.keyword == place), -1)
        given = args[at].expr if at >= 0 else None
        if given is None or given.kind != "name" or given.name != name:
            return False
        index, module = self.simulator.index, frame.call.fn.module
        cls, reads = copying(index, module, call, at, self.sim.mro, frame.self_name)
        return bool(cls) and not reads

    def _parts_a_class_takes(self, frame: Frame, eff: Effect, held: LocalBuild) -> frozenset[str]:
        """The parts of the object ``held`` that a class it is handed to takes
        (``ResnetDilated(orig_resnet)``, a ``hand`` use: ``detail`` the callee and the
        argument's place or keyword), when taking parts of it, on any of its paths, is all
        its construction does with it: the object itself goes nowhere, so the parts left are
        thrown away with it. Empty when it may do more: the callee is no class read here (or
        a name the frame binds), its construction is more than its ``__init__`` chain, or
        that ``__init__`` keeps, hands on or calls the object, or takes a method of it."""
        callee, _, place = eff.detail.rpartition(":")
        if callee.partition(".")[0] in frame.call.env:
            return frozenset()  # (a parameter or local: whatever it holds, not the name's)
        index = self.simulator.index
        target = index.resolve(frame.call.fn.module, callee)
        mro = index.mro(target.name) if target is not None and target.kind == "class" else None
        if mro is None or not mro.ok or not self._plain_construction(mro.classes):
            return frozenset()
        init = index.lookup_method(mro.classes, "__init__")
        body = init.facts.load() if init is not None else None
        if body is None or isinstance(body, BodyError):
            return frozenset()
        at = int(place) if place.isdigit() else -1
        param = param_at(without_self(body.params), at, "" if place.isdigit() else place)
        uses = [e for e in body.effects if param and e.kind == "local_use" and e.name == param.name]
        if not uses or any(e.target not in _PART_USES for e in uses):
            return frozenset()
        parts = [_part_used(e.detail) for e in uses]
        call = held.event.effect.value
        if None in parts or call is None:
            return frozenset()  # (``net._modules``: all of it)
        taken = frozenset(p for p in parts if p)
        if any(h in MODULE_NAMES or self._bound_method(frame, call, h) for h in taken):
            return frozenset()  # (``net.forward``, ``net.state_dict``: the object itself)
        return taken

    def _plain_construction(self, mro: tuple[str, ...]) -> bool:
        """Whether constructing a class of ``mro`` only runs its ``__init__`` chain: none of
        its classes read here is decorated (a dataclass writes its own ``__init__``), names
        a metaclass or defines ``__new__``; torch's own and ``object`` aside, every class is
        read here."""
        index = self.simulator.index
        for qual in mro:
            if qual.startswith("torch.") or qual in ("object", "builtins.object"):
                continue
            info = index.class_info(qual)
            if info is None:
                return False
            facts = info.facts
            if facts.decorators or facts.metaclass or facts.method("__new__") is not None:
                return False
        return True

    def lend_builds(self, frame: Frame, ctx: EffectContext, callee: Body) -> dict[str, LocalBuild]:
        """``super().__init__(resnet18(), ...)``, or ``super().__init__(net)`` with ``net``
        a built local the frame mentions no more: an object built for the ancestor's
        construction alone. The ancestor follows it under its parameter's name, as a local
        of its own: the parts it takes, whether it hands the object on; the parts it leaves
        are thrown away when it returns. By parameter name; only a parameter the ancestor
        follows (``facts/local_uses.py``): a local handed on otherwise (to another, on some
        paths only, or used again after) counts as handed on whole."""
        eff = ctx.effect
        params = without_self(callee.params)
        followed = {e.name for e in callee.effects if e.kind == "local_use"}
        lent: dict[str, LocalBuild] = {}
        for at, arg in enumerate(eff.args):
            value = arg.expr
            param = None if arg.star else param_of(params, eff.args, at)
            if param is not None and param.name not in followed:
                param = None
            for other in frame.shelved.get(value.name, []) if value.kind == "name" else []:
                other.whole = True  # (handed on: one object is followed, not its alternatives)
            if value.kind == "name" and value.name in frame.built:
                held = frame.built[value.name]
                later = frame.body.effects[ctx.effect_index + 1 :]
                again = any(e.kind == "local_use" and e.name == value.name for e in later)
                if param is None or again or ctx.status != TRUE or held.whole:
                    held.whole = True
                    continue
                held.lending = False
                lent[param.name] = frame.built.pop(value.name)
            elif param is not None and value.kind == "call" and value.name:
                if ctx.shadow or ctx.status != TRUE or frame.call.ancestor:
                    continue
                given = replace(eff, value=value)
                i, flags = ctx.effect_index, ctx.flags
                ev = self.emit(frame, i, given, "local", param.name, TRUE, flags, ())
                lent[param.name] = LocalBuild(ev)
        return lent

    def note_copied_builds(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.encoder = nn.TransformerEncoder(layer, n)`` (or the layer built in the
        call): a class that keeps only deep copies of the object it is handed
        (``simulation/copies.py``), handed one the frame built for it alone. The object is
        thrown away once copied: its ``local`` event names all its construction built (its
        ``inner``), none kept, and the class (``copied_by``)."""
        eff = ctx.effect
        value = eff.value
        if ctx.shadow or frame.call.ancestor or value is None or value.kind != "call":
            return None
        args = call_args(value)
        index, module = self.simulator.index, frame.call.fn.module
        for at, arg in enumerate(args or ()):
            given = arg.expr
            local = given.kind == "name" and given.name in frame.built
            if arg.star or not (local or (given.kind == "call" and given.name)):
                continue
            cls, read = copying(index, module, value, at, self.sim.mro, frame.self_name)
            built = frame.built[given.name].event.effect.value if local else given
            if not cls or built is None or self._keeps_it(frame, built, read):
                continue
            if local and name_mentions(value, given.name) > 1:
                continue  # (``Encoder(layer, n, first=layer)``: handed on whole too)
            if local:
                held = frame.built[given.name]
                parts_read = parts_read_elsewhere(frame, ctx, given.name)
                if parts_read is None:
                    continue
                read |= parts_read
                del frame.built[given.name]  # (handed on: ``close_locals`` leaves it)
                ev = held.event
                if ctx.status != TRUE:
                    ev.status = MAYBE  # (copied, and dropped, on some paths only)
            else:
                if ctx.status != TRUE:
                    continue
                given_eff = replace(eff, value=given)
                i, flags = ctx.effect_index, ctx.flags
                ev = self.emit(frame, i, given_eff, "local", given.name, TRUE, flags, ())
            parts = self._copied_parts(frame, ev)
            if isinstance(parts, BodyError):
                return parts
            ev.inner = tuple(p for p in parts if p.cost > NONE and p.name not in read)
            ev.kept = read
            ev.copied_by = cls
        return None

    def _keeps_it(self, frame: Frame, built: Expr, read: frozenset[str]) -> bool:
        """Whether an attribute the copying class reads of the template may hold the whole
        object: a method of it (``layer.forward``: bound to it), or one of torch's or a
        private attribute (``layer._modules``)."""
        return any(
            r in MODULE_NAMES or r.startswith("_") or self._bound_method(frame, built, r)
            for r in read
        )

    def note_part_replaced(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``net.fc = v`` where ``net`` holds an object the frame built and has not used:
        an ``objattr`` event naming what ``net``'s construction built of ``fc`` (its
        ``inner``), as ``self.model.fc = v`` names it for an object on ``self``."""
        eff = ctx.effect
        head, _, part = eff.name.partition(".")
        held = frame.built.get(head)
        if held is None or not part or "." in part or ctx.shadow:
            return None
        kept = self.kept_slice(frame, eff.value, Expr("name", name=head), part)
        taken = held.taken - {part} if kept is not None else held.taken
        if held.whole or held.called or part in taken or part in held.patched:
            return None
        for other in self._all_built(frame, head):
            other.patched.add(part)  # (the other branch's part: replaced too, not left)
        status = ctx.status if held.event.status == TRUE else MAYBE
        cost = self.value_cost(frame, eff.value)
        if isinstance(cost, BodyError):
            return cost
        dropped = eff.value is not None and eff.value.kind == "const"
        ev = self.emit(
            frame,
            ctx.effect_index,
            eff,
            "objattr",
            eff.name,
            status,
            ctx.flags,
            (),
            cost=cost,
            value_const=dropped,
        )
        parts = self.simulator.parts_built(held.event, part)
        if isinstance(parts, BodyError):
            return parts
        ev.holder, ev.inner = held.event, parts
        if kept is not None:
            self.sliced_off(ev, kept)
        return None

    def class_of(self, module: Module, value: Expr | None) -> tuple[str, ...] | None:
        """The MRO of the class ``value`` (a call) constructs, itself or through a project
        function whose every ``return`` constructs it; None when not a class known here (a
        torch.nn class not read stands alone)."""
        if value is None or value.kind != "call" or not value.name:
            return None
        index = self.simulator.index
        target = index.resolve(module, value.name)
        if target is not None and target.kind == "function":
            built = self.simulator.class_built(target.name)
            target = Target("class", built) if built else None
        if target is not None and target.kind == "class":
            mro = index.mro(target.name)
            return mro.classes if mro.ok else None
        if target is not None and target.name in REPARAMETRISATIONS:
            # (``weight_norm(nn.Conv1d(...))`` returns the module it is given)
            given = positional_values(value)
            return self.class_of(module, given[0]) if given else None
        if target is not None and target.kind == "external":
            return (target.name,) if target.name.startswith("torch.nn.") else None
        return None

    def kept_slice(
        self, frame: Frame, value: Expr | None, owner: Expr, part: str
    ) -> tuple[int | None, int | None] | None:
        """A value that keeps only a slice of the items of ``<owner>.<part>``, the part it
        replaces (``nn.Sequential(*self.vgg.classifier[:-2])``, the slice itself, or any call
        given the slice alone: the items outside it are unreachable once the part is
        replaced): the slice's bounds; None for any other value."""
        if value is not None and value.kind == "call" and len(value.children) == 1:
            if value.keywords not in ((), ("*",)):
                return None
            value = value.children[0]  # (what the call makes is made of the slice alone)
        if value is None or value.kind != "subscript" or value.name != "slice":
            return None
        recv = value.receiver
        if recv is None or recv.kind != "attr" or recv.attr != part or recv.receiver is None:
            return None
        if not _same_path(recv.receiver, owner):
            return None
        return slice_bounds(value)

    def sliced_off(self, ev: Event, kept: tuple[int | None, int | None]) -> None:
        """A part replaced by a slice of its own items (``kept_slice``): the event's
        ``inner`` becomes the part's build when its items are known by number, the items the
        slice leaves out are named in ``ev.kept`` ("sliced:" and their numbers) and priced
        in ``ev.part_cost``; ``inner`` is empty when every item is kept, what is left out
        weighs nothing, or the items are not known."""
        build = ev.inner[-1] if ev.inner else None
        value = built_by(build) if build is not None and build.status == TRUE else None
        items = container_items(value) if value is not None else []
        if build is None or not items or not all(k.isdigit() for k, _ in items):
            ev.inner = ()
            return
        left = set(range(len(items))) - set(range(len(items))[slice(*kept)])
        cost = NONE
        for i in sorted(left):
            priced = self.simulator.cost.expr_cost(items[i][1], build.fn.module, self.sim.mro)
            cost = max(cost, priced if isinstance(priced, int) else UNKNOWN)
        if not left or cost <= LIGHT:
            ev.inner = ()
            return
        ev.inner = (build,)
        ev.kept = frozenset({"sliced:" + ",".join(str(i) for i in sorted(left))})
        ev.part_cost = cost

    def _factory_patched(self, frame: Frame, holder: Event) -> frozenset[str]:
        """The parts of the object a local holds that the project function which built it
        deleted before returning it (``_returned_deletions``): reported there, and not
        left behind here."""
        fn = self.plain_function(frame, holder.effect.value)
        body = fn.facts.load() if fn is not None else None
        if body is None or isinstance(body, BodyError):
            return frozenset()
        return _returned_deletions(body)

    def _copied_parts(self, frame: Frame, ev: Event) -> tuple[Event, ...] | BodyError:
        """What building the object of the ``local`` event ``ev``, which the frame only
        copies, made: its class's costly stores; for one of torch's containers built with
        the modules it holds written out (``nn.Sequential(nn.Linear(d, h), ...)``), those
        modules, under the names it holds them by and priced as the frame builds them."""
        parts = self.simulator.parts_built(ev, None)
        value = ev.effect.value
        if isinstance(parts, BodyError) or parts or value is None:
            return parts
        made = self.class_of(frame.call.fn.module, value)
        if not made or not torch_container(made[0]):
            return ()
        out = []
        for key, item in container_items(value):
            cost = self.value_cost(frame, item)
            if isinstance(cost, BodyError):
                return cost
            eff = replace(ev.effect, value=item)
            out.append(replace(ev, name=key, cost=cost, expensive=cost > NONE, effect=eff))
        return tuple(out)

    def _plain_object(self, e: Event) -> bool | None:
        """Whether the object the local ``e`` holds is of a class known not to be a torch
        module (a settings object: every class of its MRO read here, none of torch's);
        None for such an object whose class answers any attribute read through its own
        ``__getattr__`` (a read of one field may read any); False otherwise (a module, or
        a class not all known here)."""
        classes = self.class_of(e.fn.module, e.effect.value)
        index = self.simulator.index
        if not classes or any(c.startswith("torch.") for c in classes):
            return False
        if not all(c == "builtins.object" or index.class_info(c) is not None for c in classes):
            return False
        for name in ("__getattr__", "__getattribute__"):
            if index.lookup_method(classes, name) is not None:
                return None
        return True

    def _kept_on_some_paths(self, held: LocalBuild) -> bool:
        """Whether the object ``held``, built on every path, is kept (stored, handed on)
        only under guards whose conditions leave a path out (``if arch in six: self.conv6 =
        extra`` / ``elif ...`` / ``else: nin = 5``), and used in no other way."""
        if held.event.status != TRUE or not held.kept_where or None in held.kept_where:
            return False
        if held.used_otherwise():
            return False
        known = set(held.event.literals)
        arms = [set(where or ()) - known for where in held.kept_where]
        return not every_path(arms, ended_paths(self.sim, known))

    def _children_kept(self, held: LocalBuild) -> set[str] | BodyError | None:
        """The children of the object ``held`` that its slices keep (``list(net.children())
        [:-2]``), by the order its simulated construction registered them; None when that
        order is not known."""
        events = self.simulator.construction_events(held.event)
        if events is None or isinstance(events, BodyError):
            return events
        children = registered_children(events, self._stores_module)
        kept: set[str] = set()
        for bounds in held.children:
            taken = children.sliced(bounds)
            if taken is None:
                return None
            kept |= taken
        return kept

    def _stores_module(self, e: Event) -> bool | None:
        """Whether the store ``e`` puts a module on the object: a call of a module class; a
        costly call of something else that makes no tensor (a method that builds a stage,
        ``self._make_layer(...)``, a class a parameter names, ``norm_layer(d)``); None for
        a costly value of another kind (a module an argument gave, or not)."""
        value = e.effect.value
        if value is None or value.kind != "call" or not value.name:
            return None if e.expensive and (value is None or value.kind == "name") else False
        made = self.class_of(e.fn.module, value)
        if made:
            return any(c.startswith("torch.nn.") and "parameter" not in c for c in made)
        public = self.simulator.index.public_name(e.fn.module, value.name)
        if public is not None and _torch_function(public):
            return False
        return e.expensive

    def close_locals(self, frame: Frame) -> BodyError | None:
        """At the end of a frame: each built local of which the frame took parts, and which
        it never handed on, is dropped with the frame; its ``local`` event names the builds
        of the parts not taken (its ``inner``)."""
        groups = [self._all_built(frame, n) for n in dict.fromkeys([*frame.built, *frame.shelved])]
        groups += [[held] for held in frame.released]
        for group, held in ((g, h) for g in groups for h in g):
            if held.whole and self._kept_on_some_paths(held):
                plain = self._plain_object(held.event)
                if plain is None:
                    continue  # (every attribute read may read any part)
                parts = self.simulator.parts_built(held.event, None)
                if isinstance(parts, BodyError):
                    return parts
                ev, least = held.event, HEAVY if plain else LIGHT
                ev.inner, ev.kept = tuple(p for p in parts if p.cost >= least), frozenset()
                ev.status, ev.kept_on_some = MAYBE, True
                continue
            if held.children and not (held.whole or held.lending):
                kept = self._children_kept(held)
                if isinstance(kept, BodyError):
                    return kept
                if kept is None:
                    continue  # (which children the slices keep is not known)
                held.taken |= kept
            if held.whole or held.lending or not (held.taken or held.copied):
                continue
            only_copied = held.copied and not held.taken
            if held.event.status != TRUE and len(group) < 2:
                # (on some paths, and no other binding stands for the rest; but an argument
                # rebound where the caller gave none, ``if layer is None: layer = Block()``,
                # stands for it, and the object built here is dropped once copied)
                rebound = only_copied and _rebinds_argument(frame, held.event.name)
                if not (rebound or _within_its_block(frame, held.event.effect)):
                    continue
            if only_copied:
                parts = self._copied_parts(frame, held.event)
            else:
                parts = self.simulator.parts_built(held.event, None)
            if isinstance(parts, BodyError):
                return parts
            gone = held.taken | held.patched | self._factory_patched(frame, held.event)
            plain = self._plain_object(held.event)
            if plain is None:
                continue  # (every attribute read may read any part: the object was used)
            # (a plain object's fields are values, not parts of a module: only a known heavy
            # build left in one is work thrown away)
            least = HEAVY if plain else LIGHT
            held.event.inner = tuple(p for p in parts if p.name not in gone and p.cost >= least)
            held.event.kept = frozenset(held.taken)
            if only_copied:
                held.event.copied_by = "the code"  # (its deep copies are all it keeps)
        return None


def _within_its_block(frame: Frame, bound: Effect) -> bool:
    """Whether the local ``bound`` binds is a name the frame binds there alone, and mentions
    only under the guards of that binding (``else: layer = Block(c)``, then copied in that
    arm): the object is dropped wherever the block runs, nothing else standing for it."""
    guard, name = bound.guard, bound.name
    effects = frame.body.effects
    if any(e.kind == "local" and e.name == name and e is not bound for e in effects):
        return False
    if any(p.name == name for p in frame.body.params):
        return False
    return all(
        e.guard[: len(guard)] == guard for e in effects if e.kind == "local_use" and e.name == name
    )


def _rebinds_argument(frame: Frame, name: str) -> bool:
    """Whether the local ``name`` is a parameter of the frame's function, so that where the
    frame does not build into it, it holds what the caller gave."""
    return any(p.name == name for p in frame.body.params)


def _torch_function(name: str) -> bool:
    """A function of torch or numpy (a tensor made), not one of torch's module classes."""
    head, _, last = name.rpartition(".")
    return head.partition(".")[0] in KNOWN_LIBRARIES and not last[:1].isupper()


def _returned_deletions(body: Body) -> frozenset[str]:
    """The parts a factory deletes of the object it returns (``net = Net(d)``, ``del
    net.wte``, ``return net``): the object handed back no longer holds them. (A part it
    replaces, ``net.fc = nn.Linear(...)``, is held: a new build, left behind with the
    rest.) Empty when it returns anything but one local."""
    returns = [e.value for e in body.effects if e.kind == "return"]
    if len(returns) != 1 or returns[0] is None or returns[0].kind != "name":
        return frozenset()
    local = returns[0].name
    return frozenset(
        e.name.partition(".")[2]
        for e in body.effects
        if e.kind == "objattr"
        and e.target == "del"
        and e.name.partition(".")[0] == local
        and "." in e.name
    )


def _same_path(e: Expr, path: Expr) -> bool:
    """Whether ``e`` is the plain dotted path ``path`` (``self.vgg``, ``vgg``)."""
    if e.kind != path.kind:
        return False
    if e.kind == "name":
        return e.name == path.name
    if e.kind != "attr" or e.attr != path.attr or e.receiver is None or path.receiver is None:
        return False
    return _same_path(e.receiver, path.receiver)


# The mentions of a built local that use one part of it: read or taken, or filled whole in
# place (``facts/local_uses.py``).
_PART_USES = ("part", "fill")


def _works_on_parts(body: Body) -> bool:
    """Whether a function replaces or deletes a part of an object it built into a local
    (``net.fc = ...``, ``del net.fc``), or takes parts of one and may drop the rest: what a
    frame of it can find thrown away. (Other factories are priced, not run: running each
    costs the check time and finds nothing.)"""
    followed = {e.name for e in body.effects if e.kind == "local_use"}
    if any(e.kind == "objattr" and e.name.partition(".")[0] in followed for e in body.effects):
        return True
    parts = (*_PART_USES, "children", "copy")
    taken = {e.name for e in body.effects if e.kind == "local_use" and e.target in parts}
    whole = {e.name for e in body.effects if e.kind == "local_use" and e.target not in parts}
    return bool(taken - whole)


def mentioned_only_at(frame: Frame, ctx: EffectContext, name: str) -> bool:
    """Whether the frame mentions the local ``name``, while it holds what it held when
    last bound before ``ctx``, only in the statement of ``ctx`` (a later binding, that
    statement's own too, ``enc = Wrap(enc)``, holds another object)."""
    here = ctx.effect.stmt_span
    return not any(e.stmt_span != here for e in _uses_while_held(frame, ctx, name))


def parts_read_elsewhere(frame: Frame, ctx: EffectContext, name: str) -> frozenset[str] | None:
    """The parts of the object the local ``name`` holds that the frame reads outside the
    statement of ``ctx`` while it holds that object (``layer.size``, ``layer.norm``: each
    takes that part, and no other); None when it mentions the local there in any other way."""
    here = ctx.effect.stmt_span
    read: set[str] = set()
    for e in _uses_while_held(frame, ctx, name):
        if e.stmt_span == here:
            continue
        part = _part_used(e.detail) if e.target in _PART_USES else None
        if part is None:
            return None
        if part:
            read.add(part)
    return frozenset(read)


def _uses_while_held(frame: Frame, ctx: EffectContext, name: str) -> list[Effect]:
    """The mentions (``local_use`` effects) of the local ``name`` between its binding last
    before ``ctx`` and its next binding."""
    effects = frame.body.effects
    bound = [i for i, e in enumerate(effects) if e.kind == "local" and e.name == name]
    start = max((i for i in bound if i < ctx.effect_index), default=-1)
    end = min((i for i in bound if i >= ctx.effect_index), default=len(effects))
    return [e for e in effects[start + 1 : end] if e.kind == "local_use" and e.name == name]


def _part_used(detail: str) -> str | None:
    """What a use of an object's part (a ``part`` local use, ``net.layer4``) takes of it:
    that part; "" when it only reads how a part is shaped (``net.fc.in_features``); None
    when it reaches every part (``net._modules``)."""
    head, _, rest = detail.partition(".")
    if head in PART_TABLES:
        return None
    return "" if rest.rpartition(".")[2] in CONFIG_ATTRS else head

"""The effect handlers that bind names and store on ``self``: a local bound (``on_local``),
a keyword popped (``on_pop``), a value returned (``on_return``), an object a name holds
changed in place (``on_objattr``), self attributes read and written (``on_touch``), deleted
(``on_delete``), a part of one replaced (``on_nested``), and a value stored
(``on_stored_value``: assign, buffer, mutate). ``engine.py``'s table dispatches to them."""

from __future__ import annotations

from dataclasses import replace

from initlint.facts.model import BodyError, Effect, Expr
from initlint.index.records import FunctionInfo
from initlint.simulation.arguments import call_args, kwarg_name
from initlint.simulation.builds import StoredValue
from initlint.simulation.children import CHILDREN_LEFT, children_slice, registered_children
from initlint.simulation.choices import merge, named
from initlint.simulation.containers import container_items, torch_container
from initlint.simulation.copies import copied_by
from initlint.simulation.fallbacks import FallbackEffects
from initlint.simulation.handed import keeps_as_is
from initlint.simulation.levels import LIGHT, NONE
from initlint.simulation.part_refs import bound, overlaps, returned_part, sure_part
from initlint.simulation.records import Event, FlagRef, built_by, events_inside
from initlint.simulation.run_state import Call, EffectContext, Frame
from initlint.simulation.torch_knowledge import (
    FILE_WRITERS,
    MODULE_SELF_METHODS,
    REPARAMETRISATIONS,
    SMALL_NUMEL,
    Bound,
    keyword_values,
    positional_values,
    unshadowed,
    whole_value,
    written_only,
)
from initlint.simulation.values import FALSE, TRUE, UNKNOWN, Val


class StoreEffects(FallbackEffects):
    """Applying the effects that bind names and store on self."""

    def _note_rebinding(self, frame: Frame, ctx: EffectContext) -> None:
        """A change in place, or a name bound before rebound (a first binding is how the
        frame computes a value, as a call's argument text is)."""
        eff = ctx.effect
        frame.written[eff.name.partition(".")[0]] = (len(self.sim.events), ctx.status)

    def on_local(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """``name = value``: what the local costs, reads and holds; a factory the value
        calls, run (``factory_call``)."""
        if ctx.shadow:
            return None  # the branch does not run: its bindings do not happen
        eff, status = ctx.effect, ctx.status
        refused = self.refused_construction(frame, eff.value)
        if refused:  # (``net = Net()`` without its required argument: TypeError there)
            self.raise_type_error(frame, refused)
            return None
        previous = frame.parts.pop(eff.name, None)
        if previous is None and eff.name in frame.call.env:
            previous = frozenset({""})  # (it held a value that is no part)
        if eff.name in frame.call.env:
            self._note_rebinding(frame, ctx)
        local_cost = self.value_cost(frame, eff.value)
        if isinstance(local_cost, BodyError):
            return local_cost
        reads = self.self_reads(frame, eff.value)
        if ctx.effect_index in frame.fed:
            reads |= self.fed_reads(frame, ctx.effect_index)
        if status == TRUE:
            self._note_attempts(frame, ctx)
        # (``enc = MultiWrap(enc, freqs)``: the object ``enc`` held, copied, is dropped)
        copied = self.note_copied_builds(frame, ctx)
        if copied is not None:
            return copied
        self.note_local_build(frame, ctx)
        dropped = self.note_dropped_object(frame, ctx)
        if dropped is None:
            dropped = self.note_fallbacks(frame, ctx)
        if dropped is not None:
            return dropped
        frame.local_values[eff.name] = eff.value if status == TRUE else None
        self._note_part_bound(frame, ctx, previous)
        for names, holds in (
            (frame.world, self.reads_world(frame, eff.value)),
            (frame.paths, self.makes_path(frame, eff.value)),
        ):
            if holds:
                names.add(eff.name)
            elif status == TRUE:
                names.discard(eff.name)
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
        if status != TRUE:  # the branch may or may not run: what it held, or this
            frame.call.env[eff.name] = self._either(frame, eff)
        elif eff.value is not None and (
            eff.value.kind in ("const", "name", "attr") or _test(eff.value)
        ):
            frame.call.env[eff.name] = self.eval_arg(frame, eff.value, None)
        elif _small_display(eff.value):
            # ``offsets = [0, shard]``: a pack of its items, as ``*offsets`` passes them
            # (the cost model reads the length of a tensor made from it)
            assert eff.value is not None  # (_small_display)
            items = tuple(self.eval_arg(frame, c, None) for c in eff.value.children)
            frame.call.env[eff.name] = Val("args", items=items)
        else:
            # ``conv = get_conv_layer(dim)``, ``A if cond else B``: the classes it may hold
            module, cost = frame.call.fn.module, self.simulator.cost
            held = cost.choices.held(module, eff.value, frame.call.env)
            if held is None:  # (``t = torch.arange(self.max_pos)``: how many numbers)
                bound = unshadowed(eff.value, self.value_bound(frame))
                held = cost.sized_vector(eff.value, module, bound)
            frame.call.env[eff.name] = UNKNOWN if held is None else held
        return self.factory_call(frame, ctx)

    def _either(self, frame: Frame, eff: Effect) -> Val:
        """What a name bound on a path that may not run holds after it: one of the classes
        it held before and the one bound (``if se: block = SEBlock`` then ``else: block =
        Block``), where each is a class or builder given by name for sure; the class bound
        where the name held nothing before (using it on the other path raises).
        Anything else is not known."""
        env = frame.call.env
        value = eff.value
        if value is None or value.kind not in ("name", "attr"):
            return UNKNOWN
        new = self.eval_arg(frame, value, None)
        old = env.get(eff.name)
        if new.maybe_ref or not named(new) or (old is not None and old.maybe_ref):
            return UNKNOWN
        either = merge([old, new]) if old is not None else new
        return UNKNOWN if either is None else either

    def _note_attempts(self, frame: Frame, ctx: EffectContext) -> None:
        """``ok = self._load()`` where every ``return`` of ``_load`` gives a true constant
        and its body ends in one: wherever the work of that call completed, ``ok`` is true,
        so a later ``if ok: return`` keeps a retry (``if not ok: self._load()``) off every
        path on which it ran. Its events are keyed so; what a retry redoes after the first
        attempt raised is the fallback of a failed attempt, not a repeat."""
        eff = ctx.effect
        value = eff.value
        if value is None or value.kind != "call" or value.receiver is None:
            return
        if value.receiver.kind != "name" or value.receiver.name != "self":
            return
        literal = (f"{frame.id}:{eff.name}", True)
        events = self.sim.events
        call = None  # the call of this statement, run just before its result is bound
        for ev in reversed(events):
            if ev.frame != frame.id:
                continue  # (the callee's own work)
            if ev.effect.stmt_span != eff.stmt_span:
                break  # an earlier statement of this frame
            if ev.kind == "call" and ev.name == value.attr:
                call = ev
                break
        if call is not None and call.callee is not None and _returns_true(call.callee):
            for ev in events_inside(events, call):
                if literal not in ev.literals:
                    ev.literals = (*ev.literals, literal)

    def on_pop(self, frame: Frame, ctx: EffectContext) -> None:
        """``kwargs.pop(name)``: the keyword pack loses the key (maybe); ``kwargs[name] =
        v``: the pack holds ``v`` there (maybe)."""
        if ctx.shadow:
            return  # the branch does not run: its bindings do not happen
        eff = ctx.effect
        kwarg = kwarg_name(frame.body.params)
        frame.changed.add(kwarg)
        pack = frame.call.env.get(kwarg)
        if pack is not None and pack.kind == "kwargs" and eff.value is not None:
            value = self.eval_arg(frame, eff.value, None) if ctx.status == TRUE else UNKNOWN
            keys = (*pack.kw_without(eff.name).keys, (eff.name, value))
            absent = tuple(a for a in pack.absent if a != eff.name)
            frame.call.env[kwarg] = replace(pack, keys=keys, absent=absent)
        elif pack is not None and pack.kind == "kwargs":
            if ctx.status == TRUE:
                popped = pack.kw_without(eff.name)
                absent = (*popped.absent, eff.name)
                frame.call.env[kwarg] = replace(popped, absent=absent)
            elif pack.kw_get(eff.name) is not None:  # maybe popped: value unknown
                keys = (*pack.kw_without(eff.name).keys, (eff.name, UNKNOWN))
                frame.call.env[kwarg] = replace(pack, keys=keys)

    def on_return(self, frame: Frame, ctx: EffectContext) -> None:
        """``return value``: the self attributes the value reads, for the calling event."""
        eff = ctx.effect
        if not ctx.shadow and frame.call.parent is not None and eff.value is not None:
            got = self.self_reads(frame, eff.value)
            for c in frame.stmt_calls.get(eff.stmt_span, ()) if frame.stmt_calls else ():
                got |= self.return_reads.get(c, frozenset())
            if got:
                parent = frame.call.parent
                self.return_reads[parent] = self.return_reads.get(parent, frozenset()) | got

    def _note_part_bound(
        self, frame: Frame, ctx: EffectContext, previous: frozenset[str] | None
    ) -> None:
        """What the local ``ctx`` binds stands for from now on (``part_refs.py``), when the
        facts say it may stand for a part: what another such name stands for (``m =
        out``), or the part a method of the object returns on every path (``out =
        self.get_out()``). ``previous``: what it stood for before the binding (None for a
        name unbound before): under an undecided guard it may still stand for that."""
        eff, value, me = ctx.effect, ctx.effect.value, frame.self_name
        if eff.name not in eff.names:
            return
        made = frozenset({""})
        if value is not None and value.kind == "name":
            made = frame.parts.get(value.name, made)
        elif value is not None and me and value.kind == "call" and not value.children:
            receiver = value.receiver
            if receiver is not None and receiver.kind == "name" and receiver.name == me:
                made = frozenset({self._part_returned(frame, eff, value.attr)})
        now = bound(previous, made, ctx.status == TRUE)
        if now != frozenset({""}):
            frame.parts[eff.name] = now

    def _part_returned(self, frame: Frame, eff: Effect, method: str) -> str:
        """The part of the object the call of its ``method`` in the statement of ``eff``
        returned, when that method returns one part on every path ("" otherwise)."""
        for ev in self.statement_so_far(frame, eff.stmt_span):
            if ev.kind != "call" or ev.effect.name != method or ev.callee is None:
                continue
            body = ev.callee.facts.load()
            part = "" if isinstance(body, BodyError) else returned_part(body)
            if part:
                self.returned_on(ev.index, part)
            return part
        return ""

    def on_objattr(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``obj.field = v`` or ``obj.append(x)``: an object a name holds changed in place."""
        if ctx.shadow:
            return None  # the branch does not run: its bindings do not happen
        eff = ctx.effect
        through = self._through_part(frame, eff)
        if through is not None:
            self.note_writes({through.name.partition(".")[0]})
            return self.on_nested(frame, ctx._replace(effect=through))
        if eff.value is not None and "." not in eff.name:  # a local container filled
            filled = self.value_cost(frame, eff.value)
            if isinstance(filled, BodyError):
                return filled
            if filled:
                frame.local_cost[eff.name] = max(frame.local_cost.get(eff.name, NONE), filled)
        self._note_rebinding(frame, ctx)
        self.note_writes(all_=True)  # (the object may be one a self attribute holds)
        head, _, rest = eff.name.partition(".")
        held = frame.call.env.get(head)
        if held is not None and held.numel is not None:  # (``t.resize_(n)``, ``t.data = u``)
            frame.call.env[head] = UNKNOWN
        elif held is not None and held.default is not None:  # (``dim *= 4``: rebound)
            frame.call.env[head] = replace(held, default=None)
        if eff.value is not None:
            # ``wrapper.conv = conv``, ``convs.append(wrapper)``: the object the name holds
            # now holds what the value was computed from (a rebuild made of the old parts
            # is derived from them, not a new build)
            put = self.self_reads(frame, eff.value)
            if put:
                frame.local_reads[head] = frame.local_reads.get(head, frozenset()) | put
        frame.changed.add(head)
        in_place = frame.call.env.get(head)
        if in_place is not None and in_place.sym:  # a spec changed in place (specs.py)
            self.spec_writes[f"{in_place.sym}.{rest}" if rest else in_place.sym] = len(
                self.sim.events
            )
        held = frame.call.env.get(eff.name)
        if held is not None and held.kind in ("args", "const"):
            frame.call.env[eff.name] = UNKNOWN  # ``offsets.append(n)``, ``n += 1``
        elif held is not None and held.kind == "kwargs":
            # ``kwargs.update(...)``, ``kwargs.setdefault(k, v)``, ``kwargs.clear()``: keys
            # not followed, whose values are not the caller's (``Val.filled``)
            frame.call.env[eff.name] = replace(held, filled=True)
        self._set_field(frame, eff, ctx.status)
        return self.note_part_replaced(frame, ctx)

    def _through_part(self, frame: Frame, eff: Effect) -> Effect | None:
        """``out.weight = v`` where ``out`` stands for ``self.lm_head``: the store as a
        part of that part replaced; None for any other store, and for one whose value is
        made from what the name stands for (it may keep the part)."""
        head, _, rest = eff.name.partition(".")
        part = sure_part(frame.parts, head)
        if not part or not rest:
            return None
        if eff.value is not None and any(
            n.kind == "name" and any(overlaps(p, part) for p in frame.parts.get(n.name, ()))
            for n in eff.value.nodes()
        ):
            return None
        holder, _, last = f"{part}.{rest}".rpartition(".")
        return replace(eff, kind="nested", name=holder, detail=last)

    def on_touch(self, frame: Frame, ctx: EffectContext) -> None:
        """Self attributes read and written; reading one that is surely unset raises."""
        eff = ctx.effect
        unset = ""
        facts = frame.call.fn.facts
        if eff.strict and not ctx.shadow and not facts.is_static and not facts.is_classmethod:
            # (a static or class method's first parameter is not the object)
            unset = next((n for n in sorted(eff.strict) if self.surely_unset(n)), "")
        self.emit(frame, ctx.effect_index, eff, "touch", "", ctx.status, ctx.flags, ctx.shadow)
        if unset:
            self.raise_attribute_error(frame, unset)

    def on_write(self, frame: Frame, ctx: EffectContext) -> None:
        """``torch.save(obj, self.processed_paths[0])``: a file written at a path the object
        holds (``self`` standing for the object whatever the frame calls it), an event a
        later test of that file's existence is decided by (``rules/written.py``)."""
        eff = ctx.effect
        public = self.simulator.index.public_name(frame.call.fn.module, eff.name)
        where = FILE_WRITERS.get(public or "")
        if where is None or ctx.shadow or not frame.self_name:
            return
        place, keyword = where
        path = next((a for a in eff.args if a.keyword == keyword), None)
        if path is None and not any(a.star for a in eff.args[:place]):
            positional = [a for a in eff.args if a.keyword is None and not a.star]
            path = positional[place] if place < len(positional) else None
        head, dot, rest = path.text.partition(".") if path is not None else ("", "", "")
        if head == frame.self_name and dot:
            name = f"self.{rest}"
            self.emit(frame, ctx.effect_index, eff, "write", name, ctx.status, ctx.flags, ())

    def on_delete(self, frame: Frame, ctx: EffectContext) -> None:
        """``del self.x``: the attribute, its value and its cost are gone."""
        eff, status = ctx.effect, ctx.status
        if not ctx.shadow:
            self.emit(
                frame, ctx.effect_index, eff, "delete", eff.name, status, ctx.flags, ctx.shadow
            )
            self.end_parts(frame, eff.name, status)
            if status == TRUE:
                self.delete_of(frame, eff, eff.name)
                self.self_attrs.pop(eff.name, None)
                self.attr_cost.pop(eff.name, None)
                self.last_assign.pop(eff.name, None)

    def on_nested(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.attn.qkv = v``: a part of a self attribute replaced."""
        if ctx.shadow:
            return None
        return self._nested(frame, ctx.effect_index, ctx.effect, ctx.status, ctx.flags)

    def _nested(
        self,
        frame: Frame,
        i: int,
        eff: Effect,
        status: str,
        flags: tuple[FlagRef, ...],
        item: tuple[Event, str, Expr] | None = None,
    ) -> BodyError | None:
        """``self.attn.qkv = v``: a part of the object ``self.attn`` holds is replaced. The
        event names what that object's construction built of the part (``Event.inner``).
        ``item``: for ``self.head[-1].weight = v``, the container's store, the item's key
        and the call that built it; a value made from the container may keep the part."""
        cost = self.value_cost(frame, eff.value)
        if isinstance(cost, BodyError):
            return cost
        self.end_parts(frame, f"{eff.name}.{eff.detail}", status)
        deeper: Event | None = None  # (``self.a.b.c = v``: the store of ``b`` in a's build)
        if item is None:
            head, _, path = eff.name.partition(".")
            name, holder, call = f"{eff.name}.{eff.detail}", self._built_holder(head), None
            if path and holder is not None:
                found = self._held_under(holder, path)
                if isinstance(found, BodyError):
                    return found
                deeper = found
        else:
            holder, key, call = item
            name = f"{holder.name}.{key}.{eff.detail}"
        if eff.detail == "__init__":  # the object is constructed again: what that cost
            cost = holder.cost if holder is not None else NONE
        dropped = eff.value is not None and eff.value.kind == "const"  # ``= None``
        ev = self.emit(
            frame, i, eff, "nested", name, status, flags, (), cost=cost, value_const=dropped
        )
        ev.reads = self.self_reads(frame, eff.value)
        me = frame.self_name
        kept = None
        if item is not None:
            ev.derived = eff.name.partition(".")[0] in ev.reads or "*" in ev.reads
        elif "." in eff.name:
            # (made from anything the held object holds: it may keep the part)
            ev.derived = "*" in ev.reads or _mentions_held(frame, eff.value, eff.name)
        else:
            ev.derived = eff.detail != "__init__" and _reads_part(
                eff.value, me, eff.name, eff.detail
            )
            owner = Expr("attr", attr=eff.name, receiver=Expr("name", name=me))
            kept = self.kept_slice(frame, eff.value, owner, eff.detail) if ev.derived else None
            ev.derived = ev.derived and kept is None
        if "." in eff.name and item is None and deeper is None:
            return None  # (what holds the part is not a build the simulation followed)
        by_other = holder is not None and holder.ancestor and holder.frame != ev.frame
        if holder is None or ev.derived or (cost == NONE and not dropped and by_other):
            # (the builds are looked for only where a finding could follow: an ancestor's
            # part rebuilt or dropped, any part of the object of the code that built it
            # replaced, by a tied weight too, ``self.head.weight = self.embed.weight``)
            return None
        ev.holder = holder
        if eff.detail == "__init__":
            ev.inner = (holder,)  # the construction redone is the holder's own build
            return None
        if call is not None:
            made = self.class_of(holder.fn.module, call)
            ev.constructs = made[0] if made else ""  # (the item's class, as messages name it)
        if deeper is not None:
            made = self.class_of(deeper.fn.module, built_by(deeper))
            ev.constructs = made[0] if made else ""  # (the class that holds the part)
        elif call is None and (value := built_by(holder)) is not None and value.kind == "call":
            factory = self.simulator.class_factory(holder.fn.module, value.name)
            if factory is not None:  # (``Tower.from_config(cfg)``: a Tower)
                ev.constructs = factory.name
        parts = self.simulator.parts_built(deeper or holder, eff.detail, call)
        if isinstance(parts, BodyError):
            return parts
        ev.inner = parts
        if kept is not None:
            self.sliced_off(ev, kept)
        return None

    def on_stored_value(self, frame: Frame, ctx: EffectContext) -> Call | BodyError | None:
        """A value stored on self: ``self.x = v`` (assign), ``register_buffer("x", v)``
        (buffer), or a self attribute changed in place (mutate): price it, then record it;
        a factory the stored value calls, run (``factory_call``). A construction Python
        refuses raises TypeError there: nothing is stored."""
        if ctx.effect.kind == "assign" and not ctx.shadow:
            refused = self.refused_construction(frame, ctx.effect.value)
            if refused:
                self.raise_type_error(frame, refused)
                return None
        stored = self.price_stored_value(frame, ctx)
        if isinstance(stored, BodyError):
            return stored
        if ctx.effect.kind == "assign":
            sliced = self.note_children_left(frame, ctx)  # (before the new object is held)
            if sliced is not None:
                return sliced
        if ctx.effect.kind != "mutate" and not ctx.shadow:
            self.end_parts(frame, ctx.effect.name, ctx.status)  # (names for the old one)
        self._record_stored_value(frame, ctx, stored)
        fallback = self.note_fallbacks(frame, ctx)
        if fallback is not None:
            return fallback
        if ctx.effect.kind == "assign":
            copied = self.note_copied_builds(frame, ctx)
            dropped = copied if copied is not None else self.note_dropped_object(frame, ctx)
            return dropped if dropped is not None else self.factory_call(frame, ctx)
        return None

    def _record_stored_value(self, frame: Frame, ctx: EffectContext, stored: StoredValue) -> None:
        """The stored value's event, and what the attribute now holds and cost."""
        eff, kind, shadow = ctx.effect, ctx.effect.kind, ctx.shadow
        value_const = eff.value is not None and eff.value.kind == "const"
        # (``self.out = in_ch * 2 if sigma else in_ch``: a size from numbers the frame
        # holds, at most the larger arm's; guards do not read it)
        computed = None
        if not shadow and kind == "assign" and eff.value is not None and eff.value.kind == "op":
            computed = _size_at_most(eff.value, written_only(self.value_bound(frame)))
        if not shadow:
            number = value_const and eff.value is not None and _size_number(eff.value.value)
            if eff.value is not None and eff.value.kind == "name":
                # (``self.hidden = hidden``: the class's own argument, at its default)
                number = frame.call.env.get(eff.value.name, UNKNOWN).default is not None
            number = number or computed is not None
            if kind == "assign" and number and stored.status == TRUE and self.plain_slot(eff.name):
                self.written_attrs.add(eff.name)
            else:
                self.written_attrs.discard(eff.name)
        if kind == "assign" and not shadow:
            if eff.value is not None and eff.value.kind in ("const", "name", "attr"):
                v = self.eval_arg(frame, eff.value, None)
                self.self_attrs[eff.name] = v if stored.status == TRUE else UNKNOWN
            elif computed is not None:
                at_most = Val("unknown", default=computed)
                self.self_attrs[eff.name] = at_most if stored.status == TRUE else UNKNOWN
            else:
                # (``self.base_model = {"a": net_a, "b": net_b}[name]``: what it may hold)
                choices = self.simulator.cost.choices
                held = choices.held(frame.call.fn.module, eff.value, frame.call.env)
                sure = held if stored.status == TRUE else None
                self.self_attrs[eff.name] = sure if sure is not None else UNKNOWN
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
        ev.heavy_when = stored.heavy_when
        if ctx.effect_index in frame.fed:
            ev.reads |= self.fed_reads(frame, ctx.effect_index)
        via = stored.via
        if via is not None and via[1].kind == "class":
            ev.constructs = via[1].name
        elif via is not None and via[1].kind == "external" and via[0].ref is not None:
            # (torch's class handed by value, ``conv_cls=nn.Conv2d``: its source, where read)
            index, (written_in, dotted) = self.simulator.index, via[0].ref
            held_in = index.module(written_in) if index.has_module(written_in) else None
            made = index.resolve(held_in, dotted) if held_in is not None else None
            ev.constructs = made.name if made is not None and made.kind == "class" else ""
        ev.choices = self.chosen_classes(frame, eff.value)
        if kind == "assign" and not shadow:
            ev.sizes = self.sizes_read(frame, eff.value)
            ev.built_from = self._stored_build(frame, eff.value)
            if ev.built_from is not None:
                ev.constructs = ev.constructs or ev.built_from.constructs
                ev.choices = ev.choices or ev.built_from.choices
        ev.possibly = stored.possibly
        ev.spec = stored.spec
        if stored.routes:
            ev.memo, ev.memo_changed = stored.bindings, stored.changed
        if kind == "assign" and not shadow:
            ev.recomputed = self._reparametrised(frame, eff.value)
            ev.wraps, ev.holds = self._container_items(frame, eff.value)
            ev.handed = self._handed_as_is(frame, eff.value)
            ev.same_object, ev.moved = self._kept_object(frame, eff.value, eff.name)
        elif kind == "mutate" and not shadow and not eff.detail:
            # (``self.ups.append(weight_norm(...))``: one more wrapped item, any number)
            wrap = self._reparametrised(frame, eff.value)
            ev.wraps = () if wrap is None else (("*", *wrap),)
        if kind != "mutate" and eff.name in ev.reads:
            copied = ""
            if kind == "assign":
                index, module = self.simulator.index, frame.call.fn.module
                copied = copied_by(index, module, eff.value, eff.name, frame.self_name)
            ev.derived = not copied
            ev.copied_by = copied
        elif kind == "assign" and eff.name in self.field_reads(eff.value):
            # ``self.spec = Spec(self.spec.channels, ...)``: a plain value is what its fields
            # hold, and reading them uses what built it; a module's fields are how it was
            # configured (``self.drop.p``, ``self.fc.in_features``), which uses nothing its
            # construction made: that stays a rebuild
            ev.derived = self._plain_value(eff.name)
        if kind == "mutate":
            self._fill(ev)
        elif not shadow:
            self.attr_cost[eff.name] = stored.cost
            if kind == "assign":
                self.last_assign[eff.name] = ev

    def _reparametrised(self, frame: Frame, value: Expr | None) -> tuple[str, str] | None:
        """``weight_norm(nn.Conv1d(...))``, or a call of a project function whose every
        ``return`` is one (``WNConv1d(...)``): torch's wrapper and the part it recomputes."""
        if value is None or value.kind != "call" or not value.name:
            return None
        index, module = self.simulator.index, frame.call.fn.module
        target = index.resolve(module, value.name)
        if target is None:
            return None
        wrapper = REPARAMETRISATIONS.get(target.name)
        if wrapper is not None:
            return _recomputed_part(wrapper, value)
        fn = index.function_info(target.name) if target.kind == "function" else None
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError):
            return None
        returns = [e.value for e in body.effects if e.kind == "return"]
        found = {
            _recomputed_part(REPARAMETRISATIONS[t.name], r)
            for r in returns
            if r is not None
            and r.kind == "call"
            and r.name
            and (t := index.resolve(fn.module, r.name)) is not None
            and t.name in REPARAMETRISATIONS
        }
        return found.pop() if returns and len(found) == 1 and len(returns) == 1 else None

    def _container_items(
        self, frame: Frame, value: Expr | None
    ) -> tuple[tuple[tuple[str, str, str], ...], frozenset[str]]:
        """Of the items of a torch container ``value`` builds: those each wrapped in a
        reparametrisation, (key, wrapper, part it computes anew), ``nn.ModuleList(
        [weight_norm(nn.Conv1d(...)) for ...])``; and the attributes of the object among
        them, as they are, ``nn.Sequential(self.conv1, nn.ReLU())``: ``conv1``."""
        made = self.class_of(frame.call.fn.module, value)
        if value is None or not made or not torch_container(made[0]):
            return (), frozenset()
        wraps = []
        for key, item in container_items(value):
            wrap = self._reparametrised(frame, item)
            if wrap is not None:
                wraps.append((key, *wrap))
        held = frozenset(
            i.attr
            for i in value.children
            if i.kind == "attr" and i.receiver is not None and i.receiver.name == frame.self_name
        )
        return tuple(wraps), frozenset() if value.keywords else held

    def _stored_build(self, frame: Frame, value: Expr | None) -> Event | None:
        """For ``self.x = lm``: the ``local`` event of the object ``lm`` holds, when the
        frame built it on every path and did nothing else with it (no part taken or
        replaced, no method run, not copied or lent; its parts filled in place, it is still
        the object built)."""
        if value is None or value.kind != "name":
            return None
        held = frame.built.get(value.name)
        if held is None or held.event.status != TRUE or built_by(held.event) is None:
            return None
        return held.event if held.stored_as_built() else None

    def _handed_as_is(self, frame: Frame, value: Expr | None) -> frozenset[str]:
        """The attributes of the object that ``value``, a constructor's call, mentions only
        down to a part given whole as an argument that the constructor keeps as it is
        (``Head(cfg, self.bert.embeddings.word.weight)``, whose ``__init__`` only ties the
        weight in and reads its shape: ``simulation/handed.py``). Their numbers are not
        read."""
        if value is None or value.kind != "call" or not value.name:
            return frozenset()
        args = call_args(value)
        if args is None or any(a.star for a in args):
            return frozenset()
        index, module = self.simulator.index, frame.call.fn.module
        handed: dict[str, int] = {}
        for at, arg in enumerate(args):
            root = _self_root(arg.expr, frame.self_name)
            held = self._built_holder(root) if root else None
            if held is None or not held.expensive:
                continue  # (a part of a costly build: ``self.config.dim`` is none)
            where = (-1, arg.keyword) if arg.keyword is not None else (at, "")
            if keeps_as_is(index, module, value.name, *where):
                handed[root] = handed.get(root, 0) + 1
        mentions = [n for n in value.nodes() if n.kind == "attr"]
        return frozenset(
            root
            for root, given in handed.items()
            if sum(n.is_attr_of(frame.self_name, root) for n in mentions) == given
        )

    def _kept_object(self, frame: Frame, value: Expr | None, name: str) -> tuple[bool, bool]:
        """Whether a stored value is ``self.<name>`` (the object already there), or a
        module's constructor call, changed in place and returned by torch's own methods
        that return the module (``.half()``, ``.to(device).eval()``): (the same object,
        a constructor's object moved). A method the object's class defines itself may do
        anything, and keeps both false."""
        node, methods = value, []
        while node is not None and node.kind == "call" and node.attr in MODULE_SELF_METHODS:
            methods.append(node.attr)
            node = node.receiver
        if not methods or node is None:
            return False, False
        if node.is_attr_of(frame.self_name, name):
            held = self._built_holder(name)
            classes = self.class_of(held.fn.module, built_by(held)) if held else None
            return classes is not None and self._torch_methods(classes, methods), False
        if node.kind == "call" and node.name:
            classes = self.class_of(frame.call.fn.module, node)
            return False, classes is not None and self._torch_methods(classes, methods)
        return False, False

    def _held_under(self, holder: Event, path: str) -> Event | BodyError | None:
        """For ``self.a.b.c = v``: the store of ``b`` (``path``) that the construction of
        the object ``holder`` stored in ``self.a`` made, its last one on every path, through
        as many objects as the path names; None where one of them stores nothing there
        that the simulation followed."""
        for part in path.split("."):
            parts = self.simulator.parts_built(holder, part)
            if isinstance(parts, BodyError):
                return parts
            if not parts:
                return None
            holder = parts[-1]
        return holder

    def note_children_left(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.net = nn.Sequential(*list(self.net.children())[:-1])``: the object
        ``self.net`` held is replaced by a slice of its own children, in the order its
        simulated construction registered them; each costly child the slice leaves out is
        thrown away with it, a ``nested`` event naming that child's builds (its ``kept``
        marks it ``CHILDREN_LEFT``)."""
        eff = ctx.effect
        if ctx.shadow or ctx.status == FALSE or frame.call.ancestor or eff.value is None:
            return None
        bounds = children_slice(eff.value, frame.self_name, eff.name)
        holder = self._built_holder(eff.name) if bounds is not None else None
        if bounds is None or holder is None or holder.status != TRUE:
            return None
        events = self.simulator.construction_events(holder)
        if events is None or isinstance(events, BodyError):
            return events
        children = registered_children(events, self._stores_module)
        kept = children.sliced(bounds)
        if kept is None:
            return None  # (which children the slice keeps is not known)
        for child in (n for n in children.names if n not in kept):
            parts = self.simulator.parts_built(holder, child)
            if isinstance(parts, BodyError):
                return parts
            if not any(p.cost > LIGHT for p in parts):
                continue  # (a parameterless child left out: nothing of weight lost)
            name = f"{eff.name}.{child}"
            ev = self.emit(frame, ctx.effect_index, eff, "nested", name, ctx.status, ctx.flags, ())
            ev.holder, ev.inner, ev.kept = holder, parts, frozenset({CHILDREN_LEFT})
        return None

    def _built_holder(self, name: str) -> Event | None:
        """The latest store of ``self.<name>`` that put an object there, past the stores
        of that object moved or cast in place (``self.fc = self.fc.half()``)."""
        holder = self.last_assign.get(name)
        while holder is not None and holder.same_object:
            holder = next(
                (
                    e
                    for e in reversed(self.sim.events[: holder.index])
                    if e.kind == "assign" and e.name == name and not e.shadow
                ),
                None,
            )
        return holder

    def _torch_methods(self, classes: tuple[str, ...], methods: list[str]) -> bool:
        """Whether each method, looked up on the class, is torch's own (or not read)."""
        if not any(c.startswith("torch.nn") for c in classes):
            return False  # (not a module: ``.to()`` of another object may copy it)
        for method in methods:
            fn = self.simulator.index.lookup_method(classes, method)
            if fn is not None and not fn.qualname.startswith("torch."):
                return False
        return True

    def _plain_value(self, name: str) -> bool:
        """Whether ``self.<name>`` holds, as far as its latest store says, a light value
        that is no torch module: an object of a project class outside ``nn.Module``."""
        last = self.last_assign.get(name)
        if last is None or last.cost > LIGHT or last.effect.value is None:
            return False
        classes = self.class_of(last.fn.module, last.effect.value)
        return classes is not None and not any(c.startswith("torch.") for c in classes)

    def _set_field(self, frame: Frame, eff: Effect, status: str) -> None:
        """``config.n_experts = None``: the object a local names now holds that field, and
        an ancestor that tests it (``if config.n_experts is not None:``) sees the value."""
        head, _, rest = eff.name.partition(".")
        env = frame.call.env
        base = env.get(head, UNKNOWN)
        if base.kind not in ("unknown", "const") or not rest:
            return
        value = UNKNOWN
        deleted = eff.target == "del"  # (then a read finds a class attribute, or raises)
        if status == TRUE and eff.value is not None and eff.value.kind == "const" and not deleted:
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


def _recomputed_part(wrapper: str, call: Expr) -> tuple[str, str] | None:
    """The part ``call`` of ``wrapper`` recomputes: ``name=`` when given as a string
    (the second positional argument or the keyword), else ``weight``; None when not known."""
    if any(k == "" or k.startswith("*") for k in call.keywords):
        return None  # (``**kw`` or ``*args`` may pass it)
    positional = positional_values(call)
    given = keyword_values(call).get("name", positional[1] if len(positional) > 1 else None)
    if given is None:
        return wrapper, "weight"
    if given.kind == "const" and isinstance(given.value, str) and not given.name:
        return wrapper, given.value
    return None


def _small_display(value: Expr | None) -> bool:
    """A list or tuple display of a few plain items (none starred)."""
    return (
        value is not None
        and value.kind == "op"
        and value.name == "tuple"
        and len(value.children) <= SMALL_NUMEL
        and not any(c.kind == "op" and c.name == "*" for c in value.children)
    )


def _mentions_held(frame: Frame, value: Expr | None, path: str) -> bool:
    """Whether ``value`` mentions the object ``self.<head of path>`` holds, directly or
    through a local bound to an expression that does (``emb = self.a.b.emb``)."""
    head = path.partition(".")[0]
    todo = [value] if value is not None else []
    seen: set[str] = set()
    while todo:
        for x in todo.pop().nodes():
            if x.is_attr_of(frame.self_name, head):
                return True
            if x.kind == "name" and x.name not in seen:
                seen.add(x.name)
                bound = frame.local_values.get(x.name)
                if bound is not None:
                    todo.append(bound)
                elif x.name in frame.local_values:
                    return True  # (bound on some paths: what it holds is not known)
    return False


def _reads_part(value: Expr | None, me: str, holder: str, part: str) -> bool:
    """Whether ``value`` reads ``<me>.<holder>.<part>``, the part it replaces (a wrapper of
    it: ``self.attn.qkv = Quantized(self.attn.qkv)`` keeps the built one)."""
    return value is not None and any(
        x.kind == "attr"
        and x.attr == part
        and x.receiver is not None
        and x.receiver.is_attr_of(me, holder)
        for x in value.nodes()
    )


def _returns_true(fn: FunctionInfo) -> bool:
    """Every ``return`` of ``fn`` gives a true constant, and its last statement is one (no
    path falls off its end with None)."""
    body = fn.facts.load()
    if isinstance(body, BodyError) or not body.effects:
        return False
    returns = [e for e in body.effects if e.kind == "return"]
    last = body.effects[-1]
    if not returns or last.kind != "return" or last.guard:
        return False
    return all(
        e.value is not None and e.value.kind == "const" and bool(e.value.value) for e in returns
    )


def _self_root(e: Expr, me: str) -> str:
    """``x`` for an attribute chain ``<me>.x.a.b`` of two links or more (a part of what
    ``self.x`` holds), "" for anything else."""
    links = 0
    while e.kind == "attr" and e.receiver is not None and e.receiver.kind == "attr":
        e, links = e.receiver, links + 1
    return e.attr if links and e.is_attr_of(me, e.attr) else ""


def _size_at_most(value: Expr, bound: Bound) -> int | None:
    """The whole number ``value`` computes from the numbers ``bound`` holds (``int_value``),
    or of ``a if test else b`` the larger of its arms' (the test not read); None when not
    known."""
    if value.kind == "op" and value.name == "if" and len(value.children) == 3:
        arms = [_size_at_most(c, bound) for c in value.children[1:]]
        return None if None in arms else max(a for a in arms if a is not None)
    return whole_value(value, bound)


def _size_number(value: object) -> bool:
    """Whether a constant is a number a size can be (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _test(value: Expr) -> bool:
    """Whether ``value`` is a test (``transform is not None``, ``a or b``): a local bound to
    one holds its truth where its operands are known (``has_transform = ...``, then ``if
    has_transform:``)."""
    return value.kind == "op" and (value.name == "test" or value.attr in ("and", "or"))

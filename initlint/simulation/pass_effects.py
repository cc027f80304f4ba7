"""Applying initialisation passes over the object: a loop's (``for p in self.parameters():
...``) and ``self.apply(fn)`` with a function that only initialises what it is handed. Each
becomes a ``pass`` event holding the tensors it fills for sure (``coverage.py``), which
IL005 sets against the named fills before and after it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from initlint.facts.model import BodyError, Cond, Effect, Expr
from initlint.facts.passes import TENSOR_WALKS, VISIT, from_end, is_visit, nested_visit
from initlint.index.records import FunctionInfo, Module
from initlint.simulation.containers import container_items, torch_container
from initlint.simulation.coverage import ITEMS, LOAD, Tensor, covered, held_tensors, module_params
from initlint.simulation.factory_fills import returned_fills
from initlint.simulation.factory_items import factory_items
from initlint.simulation.levels import HEAVY, LIGHT, UNKNOWN, Priced
from initlint.simulation.records import (
    READ_ON_SOME,
    SHARED_KEY,
    Event,
    Simulation,
    after_read,
    built_by,
    choices_of,
    ended_paths,
    every_path,
    item_holder,
    item_key,
    walk_machinery,
)
from initlint.simulation.run_state import EffectContext, Frame
from initlint.simulation.stores import StoreEffects
from initlint.simulation.torch_knowledge import (
    TENSOR_LISTS,
    TORCH_PARAMS,
    light_by_kind,
    torch_module_cost,
)
from initlint.simulation.values import FALSE, MAYBE, TRUE, Val


class PassEffects(StoreEffects):
    """Initialisation passes: their events and what they cover."""

    def on_pass(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """A fill of a loop over the object's tensors or modules. A function's ``visit``
        fills are what ``apply`` runs it for (``apply_pass``), not work of its own."""
        if is_visit(ctx.effect.detail):
            return None
        if ctx.effect.name == LOAD and self._load_overridden():
            return None  # (a project's own loading may leave any tensor as it was)
        return self._pass_event(frame, ctx, ctx.effect, ctx.effect.name, frame.call.fn.module)

    def _load_overridden(self) -> bool:
        """Whether the object's class, or the class of a module it holds, defines its own
        ``load_state_dict`` or ``_load_from_state_dict`` in the project's code."""
        index = self.simulator.index
        held = [self.sim.mro]
        events = self.sim.events
        for e in events:
            if e.kind == "assign" and not e.shadow:
                held.append(self._built_class(e))
                chosen = list(choices_of(e))  # (and what a local alias it calls may be)
                for _, c, _ in self.items(e, events):
                    held.append(self.class_of(e.fn.module, c) or ())
                    chosen += self._item_choices(e, c, events)
                held += [self._choice_mro(c) for c in chosen]
        for classes in held:
            for name in ("load_state_dict", "_load_from_state_dict"):
                fn = index.lookup_method(classes, name) if classes else None
                if fn is not None and not fn.module.is_dependency:
                    return True
        return False

    def apply_pass(self, frame: Frame, ctx: EffectContext, callee: FunctionInfo | None) -> bool:
        """``self.apply(fn)``, torch's (``callee``, None when torch is not read), where
        ``fn`` (a method, or a function named in the module) does nothing but fill parts of
        the module it is handed: one ``pass`` event per fill. False for any other call."""
        eff = ctx.effect
        if eff.name != "apply" or eff.detail != "self" or len(eff.args) != 1:
            return False
        if callee is not None and callee.qualname != _TORCH_APPLY:
            return False
        if callee is None and not any(c.startswith("torch.nn") for c in self.sim.mro):
            return False  # (no torch module among the classes: not torch's ``apply``)
        return self._visit_passes(frame, ctx, "")

    def held_apply_pass(self, frame: Frame, ctx: EffectContext) -> bool:
        """``self.convs.apply(fn)`` on a torch module the object holds: what ``apply_pass``
        says of ``self.apply(fn)``, over that module's modules alone."""
        eff = ctx.effect
        if eff.name != "apply" or len(eff.args) != 1 or "." in eff.target:
            return False
        holder = self.last_assign.get(eff.target)
        classes = self.class_of(holder.fn.module, built_by(holder)) if holder is not None else ()
        if not any(c.startswith("torch.nn") for c in classes or ()):
            return False  # (not known to be a module: not torch's ``apply``)
        fn = self.simulator.index.lookup_method(classes or (), "apply")
        if fn is not None and fn.qualname != _TORCH_APPLY:
            return False
        return self._visit_passes(frame, ctx, eff.target)

    def _visit_passes(self, frame: Frame, ctx: EffectContext, scope: str) -> bool:
        """The ``pass`` events of ``apply``'s one argument, a visitor that only fills parts
        of what it is handed, over the object (``scope`` "") or the module it holds under
        ``scope``."""
        arg = ctx.effect.args[0]
        if arg.keyword is not None or arg.star:
            return False
        given, index = arg.expr, self.simulator.index
        given = index.unwrap_partial(frame.call.fn.module, given)
        fn = None
        if given.kind == "attr" and given.receiver is not None and given.receiver.kind == "name":
            if given.receiver.name == frame.self_name:
                fn = index.lookup_method(self.sim.mro, given.attr)
        elif given.kind == "name" and (nested := self._nested_visits(frame, given.name)):
            # (a function the frame's own defines: its fills are read with the frame's)
            return self._visits_applied(frame, ctx, nested, scope, frame.call.fn.module)
        elif given.kind == "name":
            target = index.resolve(frame.call.fn.module, given.name)
            if target is not None and target.kind == "function":
                fn = index.function_info(target.name)
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError):
            return False
        visits = [e for e in body.effects if e.kind == "pass" and e.detail == VISIT]
        return self._visits_applied(frame, ctx, visits, scope, fn.module)

    @staticmethod
    def _nested_visits(frame: Frame, name: str) -> list[Effect]:
        """The fills of the function the frame's own defines under ``name``, where it is a
        visitor (``FunctionReader._nested_visits``)."""
        detail = nested_visit(name)
        return [e for e in frame.body.effects if e.kind == "pass" and e.detail == detail]

    def _visits_applied(
        self, frame: Frame, ctx: EffectContext, visits: list[Effect], scope: str, module: Module
    ) -> bool:
        """One ``pass`` event per visitor fill, over the object or the module under ``scope``."""
        for visit in visits:
            fill = replace(visit, detail=scope or VISIT)
            self._pass_event(frame, ctx, fill, "apply", module)
        return bool(visits)

    def _pass_event(
        self, frame: Frame, ctx: EffectContext, fill: Effect, walk: str, module: Module
    ) -> BodyError | None:
        stores = _stores(self.sim)
        tensors = self.object_tensors(self.sim, stores, fill.target)

        def is_a(classes: tuple[str, ...], name: str) -> bool | None:
            return self.is_a_class(classes, module, name)

        covers = covered(fill, walk, tensors, is_a)
        tied = [t for t in tensors if t.tie >= 0]
        ties = {(t.store, t.name): t.tie for t in tied}
        through = covered(fill, walk, tied, is_a) if walk not in TENSOR_WALKS else frozenset()
        found = self._inner_fills(fill, walk, stores, is_a, ctx.literals)
        if isinstance(found, BodyError):
            return found
        deep, inner = found
        inner += self._covered_factory_fills(covers)
        ev = self.emit(
            frame, ctx.effect_index, ctx.effect, "pass", walk, ctx.status, ctx.flags, ctx.shadow
        )
        # (a held project module's tensor is priced from its own construction, not as a part
        # of unknown kind: one entry per tensor)
        known = {(store, name) for store, name, _ in deep}
        ev.covers = frozenset(c for c in covers if (c[0], c[1]) not in known) | deep
        ev.fill = fill
        ev.tied = frozenset((name, ties[store, name]) for store, name, _ in through)
        ev.inner_fills = inner
        return None

    def _inner_fills(
        self,
        fill: Effect,
        walk: str,
        stores: list[Event],
        is_a: Callable[[tuple[str, ...], str], bool | None],
        literals: tuple[tuple[str, bool], ...],
    ) -> (
        tuple[frozenset[tuple[int, str, int]], tuple[tuple[int, str, int, Event], ...]] | BodyError
    ):
        """The tensors of project modules the object holds that the pass fills for sure,
        as ``covered`` gives them (named from the object, ``attn.q.weight``); and among
        them those that the modules' own constructions filled, on every path, and did not
        read since (``self.attn = Attention(d)``, whose ``__init__`` ran ``self.apply(init)``
        over its projections): (the store, the tensor's name, what filling it costs, the
        module's fill). A walk over one held module, or over children only, reaches
        there what ``covered`` says it does (``for block in self.blocks:
        init(block.mlp.proj.weight)``: ``blocks.*.mlp.proj.weight``)."""
        deep: set[tuple[int, str, int]] = set()
        out: list[tuple[int, str, int, Event]] = []
        # (a module held on some paths only, a branch's, is covered on those paths: its
        # store's guard makes what a later pass does to it "possibly")
        held = self._held_simulations(stores, self.sim.events, branches=True)
        if isinstance(held, BodyError):
            return held
        for e, prefix, inners in held:
            # (a module of one of several classes: what the pass covers and refills in
            # every one of them)
            each: list[dict[tuple[int, str, int], Event | None]] = []
            for inner in inners:
                found = self._module_refills(e, prefix, inner, fill, walk, is_a, literals)
                if isinstance(found, BodyError):
                    return found
                each.append(found)
            for hit in sorted(set.intersection(*(set(f) for f in each)) if each else ()):
                deep.add(hit)
                firsts = [f[hit] for f in each]
                first = firsts[0]
                if first is not None and all(f is not None for f in firsts):
                    out.append((e.index, hit[1], hit[2], first))
        return frozenset(deep), tuple(out)

    def _module_refills(
        self,
        e: Event,
        prefix: str,
        inner: Simulation,
        fill: Effect,
        walk: str,
        is_a: Callable[[tuple[str, ...], str], bool | None],
        literals: tuple[tuple[str, bool], ...],
    ) -> dict[tuple[int, str, int], Event | None] | BodyError:
        """The tensors of the module the store ``e`` holds under ``prefix`` (its simulated
        construction ``inner``) that the pass fills for sure, each with the fill of that
        module's own construction it repeats (None where there is none)."""
        out: dict[tuple[int, str, int], Event | None] = {}
        target = self._numbered_in(fill.target, inner)
        if target is None:
            return out  # (an item by number this module's items do not say)
        tensors = self.module_tensors(inner, target, DEPTH)
        if isinstance(tensors, BodyError):
            return tensors
        filled = self._construction_fills(inner, DEPTH)
        if isinstance(filled, BodyError):
            return filled
        deeper = [_under(prefix, e, t) for t in tensors]
        here = _renumbered(fill, target) if target != fill.target else fill
        for hit in covered(here, walk, deeper, is_a):
            first = filled.get(hit[1].removeprefix(prefix + "."))
            if first is not None and first.status != TRUE and first.possibly != READ_ON_SOME:
                # (a fill under shared tests: thrown away where this pass runs under them)
                first = (
                    replace(first, status=TRUE) if set(first.literals) <= set(literals) else None
                )
            out[hit] = first
        return out

    def counted_from_start(self, name: str) -> str | None:
        """A filled tensor's name with an item counted from the end named as it was keyed
        (``head.-1.weight``: ``head.2.weight`` where ``self.head`` holds three items known
        by number; ``final.ada.-1.weight``: by the construction of what ``self.final``
        holds); ``name`` itself when it counts none so; None where that is not known."""
        parts = name.split(".")
        at = [i for i, p in enumerate(parts) if from_end(p)]
        if not at:
            return name
        if at == [1]:  # (an item of a container the class's own code stored)
            found = self.numbered_item(parts[0], int(parts[1]))
            return None if found is None else ".".join((parts[0], found[1], *parts[2:]))
        store = self.last_assign.get(parts[0])
        if at != [2] or store is None:
            return None
        held = self._held_simulations([store], self.sim.events)
        if isinstance(held, BodyError) or len(held) != 1 or held[0][1] != parts[0]:
            return None
        if len(held[0][2]) != 1:
            return None  # (one of several classes: how each keys its items is its own)
        rest = self._numbered_in(".".join(parts[1:]), held[0][2][0])
        return None if rest is None else f"{parts[0]}.{rest}"

    def _numbered_in(self, target: str, sim: Simulation) -> str | None:
        """``target`` (a part of each module a pass reaches) with an item taken from the end
        by number named as the module's construction ``sim`` keyed it: ``adaLN_modulation.-1
        .weight`` is ``adaLN_modulation.1.weight`` where that attribute holds, on every path,
        a container of two items known by number. None where that is not known; ``target``
        itself when it takes no item from the end."""
        parts = target.split(".")
        if not any(from_end(p) for p in parts):
            return target
        if len(parts) < 3 or not from_end(parts[1]):
            return None  # (only an item of one of the module's own attributes)
        if any(p.lstrip("-").isdigit() for p in parts[2:]):
            return None
        stores = [e for e in sim.events if e.kind == "assign" and e.name == parts[0]]
        holder = stores[-1] if stores else None
        if holder is None or holder.shadow or holder.status != TRUE:
            return None
        items = self.items(holder, sim.events)
        item = _by_number(items, int(parts[1]))
        if item is None or any(status != TRUE for _, _, status in items):
            return None
        return ".".join((parts[0], item[0], *parts[2:]))

    def _construction_fills(self, sim: Simulation, depth: int) -> dict[str, Event] | BodyError:
        """The tensors a construction's own code filled whole on every path, last, and did
        not read after (``last_fills``); and, ``depth`` levels down, those the project
        modules it holds on every path filled in their own constructions (``layers.*.
        attn.q.weight``), where nothing after the module's store mentions it."""
        fills = last_fills(sim, shared=True)
        if depth == 0:
            return fills
        held = self._held_simulations(_stores(sim), sim.events)
        if isinstance(held, BodyError):
            return held
        for e, prefix, inners in held:
            if _mentioned_after(sim, e):
                continue
            each: list[dict[str, Event]] = []
            for inner in inners:
                deeper = self._construction_fills(inner, depth - 1)
                if isinstance(deeper, BodyError):
                    return deeper
                each.append(deeper)
            # (a module of one of several classes: the fills every one of them made)
            for name, fill in each[0].items():
                if all(name in other for other in each[1:]):
                    fills.setdefault(f"{prefix}.{name}", fill)
        return fills

    def part_fills(self, name: str) -> tuple[tuple[int, str, int, Event], ...] | BodyError:
        """``nn.init.zeros_(self.proj.weight)``: when the module ``self.proj`` holds (a
        project module, the one its latest store made on every path) filled that tensor in
        its own construction, by its own code, last and on every path (``self.proj =
        Proj(d)``, whose ``__init__`` ran ``trunc_normal_(self.weight)``): (the store, the
        tensor's name, what filling it costs, that fill), as a pass's ``inner_fills``.
        A library's default initialisation (``nn.Linear``'s) is no such fill."""
        holder, _, part = name.partition(".")
        store = self.last_assign.get(holder)
        if store is None:
            return ()
        made = self._factory_fills(store)  # (the last fills: the factory's run after)
        if part in made:
            return ((store.index, name, self.part_cost(name), made[part]),)
        held = self._held_simulations([store], self.sim.events)
        if isinstance(held, BodyError):
            return held
        for e, prefix, inners in held:
            owns = [last_fills(inner).get(part) for inner in inners] if prefix == holder else []
            own = owns[0] if owns and all(o is not None for o in owns) else None
            if own is None:
                continue
            costs = []
            for inner in inners:  # (one of several classes: the cheapest)
                tensors = self.module_tensors(inner, part, 0)
                if isinstance(tensors, BodyError):
                    return tensors
                costs.append(max((t.cost for t in tensors if t.name == part), default=None))
            if all(c is not None for c in costs):
                return ((e.index, name, min(c for c in costs if c is not None), own),)
        return ()

    def part_cost(self, name: str) -> int:
        """What filling ``name``, a part of a held module (``fc.weight``), costs: the
        tensor as the attribute's latest store made it; unknown when that is not known."""
        store = self.last_assign.get(name.split(".")[0])
        if store is None:
            return UNKNOWN
        value = store.effect.value
        if value is not None and value.kind == "name":  # (``self.fc = fc``: what built ``fc``)
            bound = _binding(store, value.name)
            if bound is not None:
                store = replace(store, effect=replace(store.effect, value=bound))
        tensors = self.object_tensors(self.sim, [store], name.partition(".")[2])
        return max((t.cost for t in tensors if t.name == name), default=UNKNOWN)

    def _factory_fills(self, store: Event) -> dict[str, Event]:
        """What the project function that built the object ``store`` holds on every path
        filled of it (``returned_fills``)."""
        if store.kind != "assign" or store.shadow or store.status != TRUE:
            return {}
        return returned_fills(self.simulator.index, store)

    def _covered_factory_fills(
        self, covers: Iterable[tuple[int, str, int]]
    ) -> tuple[tuple[int, str, int, Event], ...]:
        """Among the tensors a pass covers, those of objects a project function built and
        filled (``returned_fills``), as ``inner_fills`` name a held module's own fills."""
        out: list[tuple[int, str, int, Event]] = []
        made: dict[int, dict[str, Event]] = {}
        for index, name, cost in sorted(covers):
            store = self.sim.events[index]
            if index not in made:
                made[index] = self._factory_fills(store)
            part = name.removeprefix(store.name + ".")
            if part != name and part in made[index]:
                out.append((index, name, cost, made[index][part]))
        return tuple(out)

    def _held_simulations(
        self, stores: list[Event], events: list[Event], branches: bool = False
    ) -> list[tuple[Event, str, tuple[Simulation, ...]]] | BodyError:
        """The project modules the stores (among ``events``) hold on every path
        (``_held_modules``), or, with ``branches``, on the paths a guard not known to be
        false leads to, each with its store, the name it is reached by, and its complete
        simulated construction: one per class, for a module that is one of several (a
        name bound to ``SEBlock`` on one branch and ``Block`` on the other), all complete."""
        out: list[tuple[Event, str, tuple[Simulation, ...]]] = []
        for e in stores:
            if e.kind != "assign" or e.shadow or (e.status != TRUE and not branches):
                continue
            for prefix, item, classes in self._held_modules(e, events):
                inners = []
                for choice in classes or ("",):
                    inner = self.simulator.object_simulation(e, item, choice)
                    if isinstance(inner, BodyError):
                        return inner
                    if inner is None or inner.incomplete:
                        break
                    inners.append(inner)
                else:
                    out.append((e, prefix, tuple(inners)))
        return out

    def module_tensors(self, sim: Simulation, part: str, depth: int) -> list[Tensor] | BodyError:
        """The tensors a held module's construction ``sim`` made, named from it: its own
        and its torch modules' (``object_tensors``), and, ``depth`` levels down, those of
        the project modules it holds (``attn.q.weight``), which its passes may fill too."""
        # (a held module's tensors made on some paths only are not claimed: which paths its
        # construction took is not known from the object)
        held = [e for e in _stores(sim) if e.kind == "nested" or e.status == TRUE]
        out = self.object_tensors(sim, held, part)
        if depth == 0:
            return out
        inside = self._held_simulations(held, sim.events)
        if isinstance(inside, BodyError):
            return inside
        for e, prefix, inners in inside:
            each: list[list[Tensor]] = []
            for inner in inners:
                tensors = self.module_tensors(inner, part, depth - 1)
                if isinstance(tensors, BodyError):
                    return tensors
                each.append(tensors)
            # (a module of one of several classes: the tensors every one of them made)
            common = set.intersection(*({t.name for t in ts} for ts in each))
            out.extend(_under(prefix, e, t) for t in each[0] if t.name in common)
        return out

    def object_tensors(self, sim: Simulation, stores: list[Event], part: str) -> list[Tensor]:
        """The tensors the stores of the construction ``sim`` made (``held_tensors``), and
        those of the torch modules the torch containers among them hold, their containers'
        too (``mlp.0.weight``, ``blocks.*.0.weight``)."""
        out = held_tensors(stores, sim.mro, self._built_class, part)
        for e in stores:
            if e.kind == "assign" and not e.shadow and e.status == TRUE:
                for key, call in self.sure_items(e, sim.events):
                    out += self._item_tensors(f"{e.name}.{key}", e, call, DEPTH)
        return out

    def _item_tensors(self, prefix: str, e: Event, call: Expr, depth: int) -> list[Tensor]:
        """The tensors of the torch module the call ``call`` builds, held in a container
        the store ``e`` made under ``prefix``: its parameters, or, for a torch container,
        those of the torch modules it holds, ``depth`` containers down."""
        made = self.class_of(e.fn.module, call)
        if made and torch_container(made[0]):
            inner = container_items(call) if depth > 0 else []
            return [
                t for k, c in inner for t in self._item_tensors(f"{prefix}.{k}", e, c, depth - 1)
            ]
        # (a part costs no more than its whole, nor than its own build; the items of a
        # container, any number of them, cost what the container does)
        cost = e.cost
        if made and made[0].startswith("torch.") and ITEMS not in prefix.split("."):
            sizes = {n: Val("unknown", default=v) for n, v in e.sizes}  # (``written_only``)
            cost = min(cost, torch_module_cost(made[0].rpartition(".")[2], call, sizes))
        return [_under(prefix, e, t) for t in module_params(made, cost, call)]

    def _held_modules(
        self, e: Event, events: list[Event]
    ) -> list[tuple[str, Expr | None, tuple[str, ...]]]:
        """The project modules the store ``e`` put on the object, with the names a pass
        reaches them by: the module it built (``attn``, the value itself: None), or each
        item a torch container it built holds for sure (``sure_items``: ``nn.ModuleList([Block(d)
        for _ in range(n)])``: ``blocks.*``, the comprehension's call; ``nn.Sequential(A(),
        B())``: ``body.0``, ``body.1``); and the classes it may be when its call names a
        local that holds one or several (() where the call names the class). A library's
        module is left out: its own fills are its defaults."""
        value = built_by(e)
        made = self.class_of(e.fn.module, value)
        returned = factory_items(self.simulator.index, e.fn.module, value, _own(e))
        if (made and torch_container(made[0])) or returned:
            return self._contained_modules(e, e.name, self.sure_items(e, events), DEPTH, events)
        if self._project_module(self._built_class(e)):
            return [(e.name, None, ())]
        classes = choices_of(e)
        return [(e.name, None, classes)] if self._project_classes(classes) else []

    def _project_classes(self, choices: tuple[str, ...]) -> bool:
        """Whether ``choices`` (of a call) all build project module classes."""
        return bool(choices) and all(self._project_module(self._choice_mro(c)) for c in choices)

    def _choice_mro(self, choice: str) -> tuple[str, ...]:
        """The MRO of the class a choice builds (a class, or a factory of one); ()."""
        if choice and self.simulator.index.function_info(choice) is not None:
            choice = self.simulator.class_built(choice)
        mro = self.simulator.index.mro(choice) if choice else None
        return mro.classes if mro is not None and mro.ok else ()

    def _item_choices(self, holder: Event, item: Expr, events: list[Event]) -> tuple[str, ...]:
        """The classes an item of the container ``holder`` stored may be, when its call
        names a local holding one or several: as the store saw it, or the ``append`` that
        put the item there."""
        found = choices_of(holder, item)
        for e in events[holder.index + 1 :]:
            if found:
                break
            if e.kind == "mutate" and e.name == holder.name and e.effect.value is item:
                found = choices_of(e, item)
        return found

    def _contained_modules(
        self,
        e: Event,
        prefix: str,
        items: list[tuple[str, Expr]],
        depth: int,
        events: list[Event],
    ) -> list[tuple[str, Expr | None, tuple[str, ...]]]:
        """The project modules among a container's ``items`` held under ``prefix``, and
        those of the torch containers among them, ``depth`` containers down
        (``nn.ModuleDict({"h": nn.ModuleList([Block(d) for ...])})``: ``transformer.h.*``)."""
        out: list[tuple[str, Expr | None, tuple[str, ...]]] = []
        for key, item in items:
            made = self.class_of(e.fn.module, item) or ()
            if made and torch_container(made[0]) and depth > 0:
                inner = container_items(item)
                out += self._contained_modules(e, f"{prefix}.{key}", inner, depth - 1, events)
            elif self._project_module(made):
                out.append((f"{prefix}.{key}", item, ()))
            elif not made and self._project_classes(got := self._item_choices(e, item, events)):
                out.append((f"{prefix}.{key}", item, got))
        return out

    def sure_items(self, holder: Event, events: list[Event]) -> list[tuple[str, Expr]]:
        """The items of ``items`` put in the container on every path that reaches its store
        (a loop's appends: ``*``, any number)."""
        return [(key, call) for key, call, status in self.items(holder, events) if status == TRUE]

    def on_nested(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """``self.attn.qkv = v``, or ``self.head[-1].weight = v``: a part of one item of a
        held container, by number, replaced; the event names what that item's construction
        built of the part, when the container's items are known by number."""
        eff = ctx.effect
        attr, _, at = eff.name.partition(".")
        if item_key(eff.name):
            found = None if ctx.shadow else self.keyed_item(frame, attr, at)
        elif not item_holder(eff.name):  # (``self.a.b = v``, ``self.a.b.c = v``: a path)
            return super().on_nested(frame, ctx)
        else:
            found = None if ctx.shadow else self.numbered_item(attr, int(at))
        if found is None:
            return None
        holder, key, call, status = found
        status = ctx.status if status == TRUE else MAYBE
        i, flags = ctx.effect_index, ctx.flags
        return self._nested(frame, i, eff, status, flags, (holder, key, call))

    def keyed_item(self, frame: Frame, attr: str, key: str) -> tuple[Event, str, Expr, str] | None:
        """The item this frame last stored at ``key`` of the container the class's own code
        stored in ``self.<attr>`` (``self.embs[name] = nn.Embedding(v, d)``): the container's
        store, the key, the call that built the item and the status of the item's store.
        None when no such store is known or it was no call."""
        holder = self.last_assign.get(attr)
        if holder is None or holder.ancestor:
            return None
        for e in reversed(self.sim.events[holder.index + 1 :]):
            if e.kind != "mutate" or e.name != attr or e.shadow or e.frame != frame.id:
                continue
            if e.effect.detail != "item" or e.effect.target != key:
                continue
            value = e.effect.value
            if value is None or value.kind != "call" or not value.name:
                return None
            return holder, key, value, e.status
        return None

    def numbered_item(self, attr: str, index: int) -> tuple[Event, str, Expr, str] | None:
        """Item ``index`` (``-1`` the last) of the container the class's own code stored in
        ``self.<attr>`` on every path: the store, the item's key, the call that built it and
        the status of the statement that put it there. None when the items are not known by
        number (``*``: how many, or which is which) or there is no such item."""
        holder = self.last_assign.get(attr)
        if holder is None or holder.ancestor or holder.status != TRUE:
            return None
        item = _by_number(self.items(holder, self.sim.events), index)
        if item is None:
            return None
        key, call, status = item
        return holder, key, call, status

    def items(self, holder: Event, events: list[Event]) -> list[tuple[str, Expr, str]]:
        """The calls whose modules a container the store ``holder`` built holds: those in
        its construction (``nn.ModuleList([Block(d) for _ in range(n)])``) and those
        appended to it since (``self.layers.append(Block(d))``: ``*``, any number), among
        ``events``, the construction's that stored it; each with the status of the
        statement that put it there."""
        value = built_by(holder)
        made = self.class_of(holder.fn.module, value)
        empty = value is not None and value.kind == "op" and value.name == "tuple"
        empty = empty and value is not None and not value.children  # (``[]``)
        # (``_get_clones(Layer, n)``: a project function's container of what it is handed)
        returned = factory_items(self.simulator.index, holder.fn.module, value, _own(holder))
        if value is None or not (empty or returned or (made and torch_container(made[0]))):
            return []
        built = [] if empty else returned or container_items(value)
        built = built or listed_items(holder, value) or named_items(holder, value)
        items = [(key, call, holder.status) for key, call in built]
        for e in events[holder.index + 1 :]:
            if e.kind == "mutate" and e.name == holder.name and not e.shadow:
                got = e.effect.value
                if got is not None and got.kind == "name":  # (``self.layers.append(layer)``)
                    got = _bound_local(e, got.name)
                if not e.effect.detail and got is not None and got.kind == "call" and got.name:
                    items.append(("*", got, TRUE if _looped(holder, e) else e.status))
        return items

    def _project_module(self, classes: tuple[str, ...]) -> bool:
        """Whether ``classes`` is the MRO of a project's (not a library's) module class."""
        info = self.simulator.index.class_info(classes[0]) if classes else None
        if info is None or info.module.is_dependency:
            return False
        return any(c.startswith("torch.nn") for c in classes)  # (else walks miss it)

    def _built_class(self, e: Event) -> tuple[str, ...]:
        """The MRO of the class whose call the store stored (``nn.Linear(...)``), () when it
        stored anything else or the class is not known (a torch.nn class read from torch's
        tables stands alone)."""
        classes = self.class_of(e.fn.module, built_by(e)) or ()
        if len(classes) == 1 and self.simulator.index.class_info(classes[0]) is None:
            return classes if _torch_nn_class(classes[0]) else ()  # (read from the tables)
        return classes

    def built_price(self, holder: Event, item: Expr | None, prefix: str) -> int:
        """What building the torch module the store ``holder`` holds (or ``item``, a call in
        its value: an item of a container it stored, reached as ``prefix``) was priced at
        where it was built, by its sizes as written there (``nn.Linear(2, 2)``: light):
        none of its tensors costs more to fill again than building it did. A module light
        for its kind, whatever its sizes (a norm layer, ``nn.Linear(width, 1)``), holds
        vectors of a length not known here: unknown. HEAVY (no bound) for any other
        object, and for an item a comprehension repeats (``blocks.*``: as many as it
        makes)."""
        value = built_by(holder) if item is None else item
        if value is None or "*" in prefix:
            return HEAVY
        classes = self.class_of(holder.fn.module, value)
        if not classes or not _torch_nn_class(classes[0]) or choices_of(holder, item):
            return HEAVY
        if item is None:
            price: Priced = holder.cost
        else:
            price = self.simulator.cost.expr_cost(item, holder.fn.module, self.sim.mro)
        if not isinstance(price, int) or not LIGHT <= price < HEAVY:
            return HEAVY
        return UNKNOWN if light_by_kind(classes[0].rpartition(".")[2], value) else price

    def is_a_class(self, classes: tuple[str, ...], module: Module, name: str) -> bool | None:
        """Whether a module of MRO ``classes`` is an instance of the class ``name`` names in
        ``module``; None when that cannot be told (a class outside what is read, whose own
        ancestors are not known)."""
        target = self.simulator.index.resolve(module, name)
        if target is None:
            return None
        wanted = target.name
        torch_wanted = _torch_nn_class(wanted)
        for c in classes:
            if c == wanted or (torch_wanted and _torch_nn_class(c) and _is_torch_kind(c, wanted)):
                return True
        index = self.simulator.index
        wanted_read = index.class_info(wanted) is not None
        # (a class is not one of those named when every ancestor is read, or is a root, or
        # is a torch.nn class and the one named is another, or the project's own)
        known = all(
            index.class_info(c) is not None
            or c in _ROOTS
            or (_torch_nn_class(c) and (_torch_nn_class(wanted) or wanted_read))
            for c in classes
        )
        return False if known else None


_TORCH_APPLY = "torch.nn.modules.module.Module.apply"
# Classes every module derives from, and no test of a subclass names.
_ROOTS = frozenset(
    {"object", "builtins.object", "torch.nn.Module", "torch.nn.modules.module.Module"}
)


def _torch_nn_class(name: str) -> bool:
    """One of torch.nn's module classes torch's tables describe (``torch.nn.Linear``), or a
    list of tensors (``torch.nn.ParameterList``)."""
    head, _, last = name.rpartition(".")
    return head.startswith("torch.nn") and (last in TORCH_PARAMS or last in TENSOR_LISTS)


def _is_torch_kind(held: str, wanted: str) -> bool:
    """Whether a torch.nn class is the one named, by their names in torch (``LazyLinear``
    derives from ``Linear``; not the other way round)."""
    last, named = held.rpartition(".")[2], wanted.rpartition(".")[2]
    return last == named or last == "Lazy" + named


# How many levels of held project modules below one a pass reaches are followed.
DEPTH = 4


def _own(e: Event) -> frozenset[str]:
    """The names the function of ``e`` binds itself: its parameters and locals."""
    body = e.fn.facts.load()
    if body is None or isinstance(body, BodyError):
        return frozenset()
    return frozenset(p.name for p in body.params) | {
        x.name for x in body.effects if x.kind == "local"
    }


def _under(prefix: str, store: Event, t: Tensor) -> Tensor:
    """A held module's tensor, named from the object holding it under ``prefix``; one of
    the items of a container (``blocks.*``), any number of them, filled in each: priced as
    what the container's store built, when that is more."""
    holder = f"{prefix}.{t.holder}" if t.holder else prefix
    cost = t.cost
    if ITEMS in prefix.split(".") and t.dims != 1:
        cost = max(cost, store.cost)
    return replace(t, name=f"{prefix}.{t.name}", holder=holder, store=store.index, cost=cost)


def _mentioned_after(sim: Simulation, store: Event) -> bool:
    """Whether any work after ``store`` may read or fill what it put on the object: an
    event that names or reads its attribute, a pass or a run of methods that covers its
    tensors, or a call not followed."""
    for e in sim.events[store.index + 1 :]:
        if e.shadow:
            continue
        if e.kind == "call" and e.unfollowed:
            return True
        if e.kind in ("pass", "rerun"):
            names = [n for _, n, _ in e.covers] + [n for _, n, _, _ in e.inner_fills]
            if any(n.split(".")[0] == store.name for n in names):
                return True
        if e.name.split(".")[0] == store.name:
            return True
        if store.name in e.effect.reads or "*" in e.effect.reads:
            return True
    return False


def _stores(sim: Simulation) -> list[Event]:
    """The events that put tensors or modules on the object, or replace a part of one; not
    those a guard decided false (with a left-out argument's default)."""
    kinds = ("buffer", "assign", "nested")
    return [e for e in sim.events if e.kind in kinds and e.status != FALSE]


def _binding(e: Event, name: str) -> Expr | None:
    """The call the local ``name`` was last bound to before ``e``, in its function, on every
    path that reaches ``e``; None otherwise."""
    body = e.fn.facts.load()
    if body is None or isinstance(body, BodyError):
        return None
    for eff in reversed(body.effects[: e.effect_index]):
        if eff.kind == "local" and eff.name == name:
            ok = e.effect.guard[: len(eff.guard)] == eff.guard
            return eff.value if ok and eff.value is not None and eff.value.kind == "call" else None
    return None


def _bound_local(e: Event, name: str) -> Expr | None:
    """The call the local ``name`` was built by just before ``e`` appended it (``layer =
    Block(d)``, then ``self.layers.append(layer)``), under the same guard, when nothing
    else in the function mentions that object: not between the two, not after (until the
    name is bound anew). None otherwise, or when the body is not at hand."""
    body = e.fn.facts.load()
    if body is None or isinstance(body, BodyError):
        return None
    here = e.effect
    found: Expr | None = None
    branches: list[Expr | None] = []  # (bound in branches within the append's guard)
    for eff in reversed(body.effects[: e.effect_index]):
        if eff.stmt_span == here.stmt_span:
            continue  # (the append's own statement)
        if eff.kind == "local" and eff.name == name:
            if eff.guard == here.guard:
                found = eff.value
                break
            if eff.guard[: len(here.guard)] != here.guard:
                return None
            branches.append(eff.value)
            continue
        if _mentioned(eff, name):
            return None
    if found is None and branches:
        # (``if i == 0: layer = Block(a)`` ``else: layer = Block(b)``: one class either way)
        found = branches[0]
    if found is None or found.kind != "call" or not _same_callee(found, branches):
        return None
    for eff in body.effects[e.effect_index + 1 :]:
        if eff.stmt_span == here.stmt_span:
            continue
        if eff.kind == "local" and eff.name == name and not _mentions(eff.value, name):
            break  # (bound anew: later mentions are of another object)
        if _mentioned(eff, name):
            return None
    return found


def _same_callee(found: Expr, branches: list[Expr | None]) -> bool:
    """Whether every binding in ``branches`` calls what ``found`` calls."""
    return all(b is not None and b.kind == "call" and b.name == found.name for b in branches)


def _looped(holder: Event, e: Event) -> bool:
    """Whether ``e`` runs wherever the store ``holder`` did, or in loops there: in the same
    run of the same function, under its guard and loops only (an append in a loop puts
    any number of items, ``*``, in the container)."""
    if e.frame != holder.frame or holder.status != TRUE or e.shadow:
        return False
    return _loops_beyond(e.effect.guard, holder.effect.guard) is not None


def _loops_beyond(guard: tuple[Cond, ...], base: tuple[Cond, ...]) -> bool | None:
    """Whether ``guard`` is ``base`` and loops within it (a statement that runs wherever
    ``base`` holds, any number of times): True with loops, False without; None otherwise."""
    extra = guard[len(base) :]
    if guard[: len(base)] != base or any(c.op != "unknown" or c.name != "loop" for c in extra):
        return None
    return bool(extra)


def named_items(holder: Event, value: Expr) -> list[tuple[str, Expr]]:
    """The calls a container holds when built of locals bound to them (``fc1 = nn.Conv2d(...)``,
    then ``nn.Sequential(fc1, act, fc2)``), each bound wherever the store ``holder`` runs;
    calls among the items count as they are. [] when any item is anything else."""
    given = value.children
    if value.kind != "call" or value.keywords or value.value is not None or not given:
        return []
    if len(given) == 1 and given[0].kind == "op" and given[0].name == "tuple":
        given = given[0].children
    out: list[tuple[str, Expr]] = []
    for i, g in enumerate(given):
        if g.kind == "name":
            g = _binding(holder, g.name) or g
        if g.kind != "call" or not g.name:
            return []
        out.append((str(i), g))
    return out


def listed_items(holder: Event, value: Expr) -> list[tuple[str, Expr]]:
    """The calls a container holds when built from a local list, ``nn.Sequential(*blocks)``
    or ``nn.ModuleList(blocks)``, that the function bound to ``[]`` before the store ``holder``
    and gave calls by ``blocks.append(Block(d))`` only, under the binding's guard (or loops
    within it); each with the name it is held under: numbered, or ``*`` (any number) when
    an append is in a loop. [] when the list is mentioned in any other way, before the
    store or after, or an append is under another guard."""
    given, kind = value.children, value.name.rpartition(".")[2]
    starred = {"Sequential": ("*",), "ModuleList": ()}.get(kind)
    if starred is None or value.keywords != starred or len(given) != 1:
        return []
    name = given[0].name if given[0].kind == "name" else ""
    body = holder.fn.facts.load()
    if not name or body is None or isinstance(body, BodyError):
        return []
    here = holder.effect
    effects = body.effects
    start = next(
        (
            i
            for i in range(holder.effect_index - 1, -1, -1)
            if effects[i].kind == "local" and effects[i].name == name
        ),
        None,
    )
    bound = effects[start].value if start is not None else None
    if start is None or bound is None or bound.kind != "op" or bound.name != "tuple":
        return []
    guard = effects[start].guard
    if bound.children or guard != here.guard:
        return []
    calls: list[Expr] = []
    looped = False
    for i, eff in enumerate(effects[start + 1 :], start + 1):
        if eff.stmt_span == here.stmt_span or not _mentioned(eff, name):
            continue
        if i > holder.effect_index:
            if eff.kind == "local" and eff.name == name and not _mentions(eff.value, name):
                break  # (bound anew: later mentions are of another list)
            return []
        call, loops = _appended(eff, name), _loops_beyond(eff.guard, guard)
        if call is None or loops is None:
            return []
        looped = looped or loops
        calls.append(call)
    return [("*" if looped else str(i), c) for i, c in enumerate(calls)]


def _appended(eff: Effect, name: str) -> Expr | None:
    """The call ``name.append(Block(d))`` appends, as an effect of the function."""
    value = eff.value
    if eff.kind != "objattr" or eff.name != name or value is None or value.kind != "call":
        return None
    if value.name != f"{name}.append" or value.keywords or len(value.children) != 1:
        return None
    item = value.children[0]
    return item if item.kind == "call" and item.name else None


def _mentioned(eff: Effect, name: str) -> bool:
    """Whether an effect names the local ``name`` or reads it in its value or arguments."""
    if eff.name == name or _mentions(eff.value, name):
        return True
    return any(_mentions(a.expr, name) for a in eff.args)


def _mentions(value: Expr | None, name: str) -> bool:
    """Whether ``value`` reads the local ``name``: as a value, or as what it calls
    (``layer(x)``, ``layer.forward(x)``)."""
    if value is None:
        return False
    calls = (n.name for n in value.nodes() if n.kind == "call")
    return value.mentions(name) or any(c == name or c.startswith(name + ".") for c in calls)


def last_fills(sim: Simulation, own_only: bool = True, shared: bool = False) -> dict[str, Event]:
    """The tensors a construction's own code (not a library's, unless not ``own_only``)
    filled whole on every path, last (an ``init``, a pass, a method run again over held
    modules), and did not read after: each with that fill. With ``shared``, also those
    filled under undecided tests that every frame of the construction answers alike
    (``if _init_weights:``, a module-level flag), the fill keeping its status: a pass of
    the construction holding this one that runs under the same tests finds them filled."""
    fills: dict[str, Event] = {}
    filling = {(e.frame, e.effect.stmt_span) for e in sim.events if e.kind in ("init", "pass")}
    walking = walk_machinery(sim.events)
    joint = _joint_fills(sim)
    for e in sim.events:
        if e.shadow or e.index in walking:
            continue
        own = not (own_only and e.fn.module.is_dependency)  # (a library's: its defaults)
        runs = e.status == TRUE or (shared and shared_tests(e))
        if e.kind == "init" and e.name and (runs or e.index in joint):
            fills.pop(e.name, None)
            if own:  # (the last of a joint group stands for its arms: a fill on every path)
                fills[e.name] = e if runs else replace(e, status=TRUE)
        elif e.kind in ("pass", "rerun") and runs:
            # (and the tensors of its project modules it filled again: ``inner_fills``)
            names = [n for _, n, _ in sorted(e.covers)] + [n for _, n, _, _ in e.inner_fills]
            for name in names:
                fills.pop(name, None)
                if own:
                    fills[name] = e
        elif e.kind == "touch" and (e.frame, e.effect.stmt_span) not in filling:
            read = e.effect.reads - e.effect.sized  # (a shape read reads no number)
            _read(fills, [n for n in fills if "*" in read or n.split(".")[0] in read], e)
        elif e.kind in ("assign", "buffer", "delete", "nested"):
            for name in [n for n in fills if n.split(".")[0] == e.name.split(".")[0]]:
                del fills[name]
        elif e.kind == "call" and (e.unfollowed or e.callee is None):
            _read(fills, list(fills), e)
    return fills


def _read(fills: dict[str, Event], names: list[str], e: Event) -> None:
    """The fills of ``names`` read by ``e`` (``after_read``): gone, or left standing for
    the paths without the read."""
    for name in names:
        after = after_read(fills[name], e)
        if after is None:
            del fills[name]
        else:
            fills[name] = after


def shared_tests(e: Event) -> bool:
    """Whether ``e`` runs under undecided tests only, each one that every frame of one
    construction answers alike (a state key of a call or a module-level name)."""
    return (
        e.status == MAYBE
        and not e.unkeyed
        and bool(e.literals)
        and all(k.startswith(SHARED_KEY) for k, _ in e.literals)
    )


def _joint_fills(sim: Simulation) -> frozenset[int]:
    """The last of each group of fills of one tensor, in one frame, under undecided guards,
    that together run on every path a ``raise`` does not end (``if mode == "a": fill_a()
    elif mode == "b": fill_b() else: raise``): after it the tensor is filled on every path."""
    groups: dict[tuple[int, str], list[Event]] = {}
    for e in sim.events:
        if e.kind == "init" and e.name and e.status == MAYBE and not e.shadow:
            groups.setdefault((e.frame, e.name), []).append(e)
    out: set[int] = set()
    for fills in groups.values():
        if len(fills) < 2 or any(e.unkeyed for e in fills):
            continue
        arms = [set(e.literals) for e in fills]
        shared = set.intersection(*arms)
        if every_path([a - shared for a in arms], ended_paths(sim, shared)):
            out.add(fills[-1].index)
    return frozenset(out)


def _by_number(items: list[tuple[str, Expr, str]], index: int) -> tuple[str, Expr, str] | None:
    """Item ``index`` (``-1`` the last) of a container's ``items`` (``PassEffects.items``);
    None when they are not known by number (``*``: how many, or which is which) or there is
    no such item."""
    if not items or not all(k.isdigit() for k, _, _ in items):
        return None
    return items[index] if -len(items) <= index < len(items) else None


def _renumbered(fill: Effect, target: str) -> Effect:
    """``fill`` at ``target``, its part's items counted from the start: its tests of the
    module holding the tensor (``ItemTest.part``) name that module so too."""
    old, new = fill.target.rpartition(".")[0], target.rpartition(".")[0]
    tests = tuple(replace(t, part=new) if t.part == old else t for t in fill.tests)
    return replace(fill, target=target, tests=tests)

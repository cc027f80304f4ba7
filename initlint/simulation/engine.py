"""The simulator: simulate ``C.__init__`` and produce the ordered effect events of
constructing C (docs/design.md, "The init simulation").

``Simulator`` is the entry point, one per project, memoising a simulation per class. Each
simulation is one ``_Run``: an abstract interpreter that runs the ``__init__`` chain's effects
in order on an explicit stack of frames, decides each effect's guards, and hands the effect
to the handler of its kind (``_EFFECT_HANDLERS``). The run's parts each live in a module of
their own, one over the other: ``run_state`` (what a run knows), ``expressions``,
``arguments`` (binding), ``events`` (recording, and what may be set), ``guards``, ``raises``,
``builds`` (pricing stored values: builders, specs, memoised factories), ``stores`` and
``calls`` (the effect handlers)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import ClassVar

from initlint.facts.function_reader import LoopBinding, loop_bindings, loop_entries
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
from initlint.facts.reads import may_write
from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo, FunctionInfo, Module, Target
from initlint.simulation.arguments import kwarg_name, size_default
from initlint.simulation.assumptions import exclusive
from initlint.simulation.binding import bind_args
from initlint.simulation.calls import CallEffects
from initlint.simulation.cost import CostModel
from initlint.simulation.guards import cond_inputs
from initlint.simulation.levels import HEAVY, LIGHT, Priced
from initlint.simulation.records import (
    SOME_CHOICES,
    Builder,
    Event,
    FlagRef,
    RaiseStatement,
    Simulation,
    SimulationLimit,
    built_by,
    changed_since,
    choices_of,
    events_inside,
)
from initlint.simulation.run_state import Call, EffectContext, Frame
from initlint.simulation.specs import builder_shape
from initlint.simulation.stores import StoreEffects
from initlint.simulation.torch_knowledge import torch_params, whole_value
from initlint.simulation.torch_module import MODULE_CLASSES
from initlint.simulation.values import FALSE, MAYBE, TRUE, Origin, Val, const, forgotten

# Limits of one simulation. Calls run on an explicit stack, so neither is bound by Python's
# recursion limit. The super chain of a class moves forward in its MRO at each step, so its
# depth is at most the MRO's length: MAX_DEPTH sits far beyond real hierarchies (and one
# simulation costs up to MAX_DEPTH frames). MAX_FRAMES bounds the work of one class
# (methods that each call another several times multiply the frames: 2**depth).
# A simulation that reaches either stops, and the class is reported as IL902.
MAX_DEPTH = 1024
MAX_FRAMES = 100_000
# How many factory calls deep a stored object's class is looked for (``parts_built``).
FACTORY_DEPTH = 3


class Simulator:
    """Simulates constructing the project's classes (``simulate``), sharing what the runs
    and the rules ask of other classes' constructions: the builds of a part, what a
    construction costs, whether a function is a builder."""

    def __init__(self, index: ProjectIndex, cost: CostModel) -> None:
        self.index = index
        self.cost = cost
        # One simulation per (class, bound constant): the checker and the fixer share them.
        self._memo: dict[tuple[str, str], Simulation | None] = {}
        self._defaults_size: dict[str, bool] = {}
        self._building: set[str] = set()  # classes whose simulation is running (parts_built)
        self._built_cost: dict[tuple[str, str], int] = {}  # construction_cost's results
        self._builders: dict[tuple[str, str], Builder | None] = {}  # builder_of's results
        # The guards' state keys (``GuardEval``): each guard's reading, by identity (guard,
        # text, attributes, getters called).
        self.state_tests: dict[
            int, tuple[Cond, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
        ] = {}
        self.getters: dict[tuple[str, str], str] = {}  # ``EventLog.getter_of``'s resolutions
        self._setters: dict[str, frozenset[str]] = {}  # setter_names' results, by class

    def setter_names(self, mro: tuple[str, ...]) -> frozenset[str]:
        """The names the project classes of ``mro`` define a property setter for (a method
        decorated ``@<name>.setter``): read once per class, not per assignment."""
        key = mro[0] if mro else ""
        known = self._setters.get(key)
        if known is None:
            known = self._setters[key] = frozenset(
                m.name
                for q in mro
                if (info := self.index.class_info(q)) is not None
                for m in info.facts.methods
                if f"{m.name}.setter" in m.decorators
            )
        return known

    def simulate(
        self,
        cls: ClassInfo,
        inject: tuple[str, Const] | None = None,
        left_out: frozenset[str] = frozenset(),
        held: bool = False,
        given: tuple[tuple[str, int], ...] = (),
    ) -> Simulation | BodyError | None:
        """Simulate constructing ``cls``. ``inject`` adds ``name=value`` to C's super call;
        the parameters of C's ``__init__`` in ``left_out`` take their defaults (a caller
        initlint sees did not pass them), the others stay unknown. Unless ``held`` (an
        object another construction builds, with arguments of its own), a parameter whose
        default is a number sizes what it sizes at that default (``bind_top``); a held
        object's parameters in ``given`` size what they size at the number its call gives
        them (``self.head = Head(hidden, 8)``, ``hidden`` read at the builder's default).
        Guards read neither: they stay unknown to them.

        Memoised: the result is shared and must not be changed by its readers. Raises
        SimulationLimit (every time) when the simulation stopped at a limit. A body the
        simulation (or its pricing) had to read and that does not parse ends it: its
        ``BodyError`` comes back up through every call as a value and is the result, not
        memoised (the body stays unread, so a later simulation meets it again; the cost
        model's memo tables keep nothing of it). Nothing else is known of such a class."""
        key = (cls.qualname, "" if inject is None else f"{inject[0]}={inject[1]!r}")
        if left_out:
            key = (key[0], f"{key[1]};defaults {','.join(sorted(left_out))}")
        if held and self._sized_by_defaults(cls):
            key = (key[0], f"{key[1]};held")
        if given:
            key = (key[0], f"{key[1]};given {','.join(f'{n}={v}' for n, v in given)}")
        if key in self._memo:
            result = self._memo[key]
        else:
            simulated = self._simulate(cls, inject, left_out, held, given)
            if isinstance(simulated, BodyError):
                return simulated
            result = self._memo[key] = simulated
        if result is not None and result.incomplete:
            raise SimulationLimit(result.stopped)
        return result

    def _sized_by_defaults(self, cls: ClassInfo) -> bool:
        """Whether a parameter of the ``__init__`` ``cls`` runs has a number for its default
        (its simulation as the class a report is about differs from a held object's)."""
        known = self._defaults_size.get(cls.qualname)
        if known is None:
            init = self.index.constructor(cls.qualname)
            body = init.facts.load() if init is not None else None
            known = self._defaults_size[cls.qualname] = (
                body is not None
                and not isinstance(body, BodyError)
                and any(size_default(p) is not None for p in body.params)
            )
        return known

    def _simulate(
        self,
        cls: ClassInfo,
        inject: tuple[str, Const] | None,
        left_out: frozenset[str],
        held: bool,
        given: tuple[tuple[str, int], ...] = (),
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
        env = run.bind_top(body.params, init.module, at_defaults=not held)
        for name, number in given:
            if name in env and env[name].kind == "unknown":
                env[name] = replace(env[name], default=number)
        run.bind_defaults(env, body.params, left_out, init.module)
        error = run.execute(init, env, ancestor=False, parent=None, status=TRUE, flags=(), depth=0)
        return sim if error is None else error

    def construction_events(self, holder: Event) -> tuple[Event, ...] | BodyError | None:
        """The events of the simulated construction of the object ``holder`` stored or
        built into a local, of one class (not one of several); None when not at hand."""
        choices = choices_of(holder)
        if len(choices) > 1:
            return None
        inner = self._object_simulation(holder, None, choices[0] if choices else "")
        return inner if inner is None or isinstance(inner, BodyError) else tuple(inner.events)

    def parts_built(
        self, holder: Event, part: str | None, item: Expr | None = None
    ) -> tuple[Event, ...] | BodyError:
        """The builds of ``part`` that constructing the object ``holder`` stored made: for
        ``self.attn = Attention(d)``, Attention's simulation's costly stores of ``part``
        (``self.qkv = Linear(...)``), in order; of every part for None (the builds on
        every path of those stored under a plain name). () when the value is not a call of
        a project or dependency class, or its simulation is not at hand (a cycle, a limit). The
        holder's construction reading a body that does not parse: that error (so does
        this one's construction). ``item``: the call that built one item of the container
        ``holder`` stored, whose parts are asked for instead."""
        choices = choices_of(holder, item)
        picked = not choices and bool(choices := self._factory_picks(holder, item))
        if not choices:
            return self._parts_built(holder, part, "", item)
        # (an object of one of several classes: what those that build the part build, the
        # cheapest; on some paths only, when one of them builds none)
        each = []
        for choice in choices:
            built = self._parts_built(holder, part, choice, item, picked) if choice else ()
            if isinstance(built, BodyError):
                return built
            each.append(built)
        found = [b for b in each if b]
        if not found:
            return ()
        cheapest = min(found, key=lambda built: max(p.cost for p in built))
        if len(found) < len(each):
            return tuple(replace(p, status=MAYBE, possibly=SOME_CHOICES) for p in cheapest)
        return cheapest

    def _factory_picks(self, holder: Event, item: Expr | None) -> tuple[str, ...]:
        """For an object a project function built (``get_backbone(name)``) whose every
        return constructs one of several classes or builders (``models[name](**kwargs)``):
        what each is, as ``Event.choices`` names them; () for any other object. Asked only
        where a part of the object is replaced: few are."""
        value = built_by(holder) if item is None else item
        if value is None or value.kind != "call" or not value.name or holder.constructs:
            return ()
        target = self.index.resolve(holder.fn.module, value.name)
        fn = self.index.function_info(target.name) if target and target.kind == "function" else None
        picks = self.cost.choices.constructed(fn) if fn is not None and fn.owner is None else ()
        if len(picks) < 2:
            return ()  # (one: followed as that class's factory)
        made = [self.choice_made(c) for c in picks]
        return tuple(dict.fromkeys(made)) if any(made) else ()

    def choice_made(self, choice: tuple[str, str]) -> str:
        """What a choice builds when called: the class itself, or a function whose every
        return constructs one class (the function); "" otherwise."""
        target = self.index.resolve_value(*choice)
        if target is not None and target.kind == "function":
            return target.name if self.class_built(target.name) else ""
        return target.name if target is not None and target.kind == "class" else ""

    def _parts_built(
        self, holder: Event, part: str | None, choice: str, item: Expr | None, picked: bool = False
    ) -> tuple[Event, ...] | BodyError:
        inner = self._object_simulation(holder, item, choice, picked)
        if inner is None or isinstance(inner, BodyError):
            return () if inner is None else inner
        return tuple(
            e
            for e in inner.events
            if (e.name == part if part is not None else "." not in e.name and e.status == TRUE)
            and _costly_store(e)
        )

    def rerun_builds(
        self, holder: Event, method: str, item: Expr | None = None
    ) -> tuple[Event, ...] | BodyError:
        """The parts that the call of ``method`` in the construction of the object
        ``holder`` stored (or of ``item``, a call in its value: an item of a container it
        stored) built there, on every path (``self.init_models()`` in ``Xtts``): what
        running it again on the object builds anew. () when that construction calls no
        such method on every path, or is not at hand. An object of one of several classes
        (``Event.choices``): what each one's construction builds so, the cheapest."""
        choices = choices_of(holder, item)
        if not choices:
            return self._rerun_builds(holder, item, method, "")
        each = []
        for choice in choices:
            built = self._rerun_builds(holder, item, method, choice) if choice else ()
            if isinstance(built, BodyError) or not built:
                return built
            each.append(built)
        return min(each, key=lambda built: max(p.cost for p in built))

    def _rerun_builds(
        self, holder: Event, item: Expr | None, method: str, choice: str
    ) -> tuple[Event, ...] | BodyError:
        inner = self._object_simulation(holder, item, choice)
        if inner is None or isinstance(inner, BodyError):
            return () if inner is None else inner
        call = next(
            (
                e
                for e in inner.events
                if e.kind == "call" and e.name == method and e.status == TRUE and not e.shadow
            ),
            None,
        )
        if call is None or call.callee is None or changed_since(inner.events, call):
            return ()
        inside = list(events_inside(inner.events, call))
        after = inner.events[inside[-1].index + 1 :] if inside else []
        return tuple(
            e
            for e in inside
            if "." not in e.name
            and e.status == TRUE
            and _costly_store(e)
            and not any(_state_test(c) for c in e.effect.guard)
            and not _read_or_kept(e, inside, after)
        )

    def object_simulation(
        self, holder: Event, value: Expr | None = None, choice: str = ""
    ) -> Simulation | BodyError | None:
        """The simulated construction of the object ``holder`` stored (``_object_simulation``)."""
        return self._object_simulation(holder, value, choice)

    def _object_simulation(
        self, holder: Event, item: Expr | None = None, choice: str = "", picked: bool = False
    ) -> Simulation | BodyError | None:
        """The simulated construction of the object ``holder`` stored or dropped (its value
        a call of a class, or of a factory whose every return constructs one), or of
        ``item``, a call in its value (an item of a container it stored), with the
        parameters the call leaves out at their defaults; None when there is none.
        ``choice``: the class, one of ``holder.choices``, to construct (or the factory
        that constructs it, called with the call's arguments); ``picked``: a choice a
        factory's table gave (``_factory_picks``), whose arguments are the factory's own, none
        known here."""
        value = built_by(holder) if item is None else item
        if value is None or value.kind != "call" or not (value.name or choice):
            return None
        if choice:  # ``self.emb = Emb(...)``, ``Emb = A if warp else B``
            builder = self.index.function_info(choice) is not None
            target: Target | None = Target("function" if builder else "class", choice)
        elif holder.constructs and item is None:  # ``self.attn = attn_cls(...)``
            target = Target("class", holder.constructs)
        else:
            target = self.index.resolve(holder.fn.module, value.name)
        direct = target is not None and target.kind == "class"
        factory = target.name if target is not None and target.kind == "function" else ""
        if factory:
            target = self._returned_class(factory, FACTORY_DEPTH)
        elif target is not None and target.kind == "attribute" and not choice:
            target = self.class_factory(holder.fn.module, value.name)  # (no arguments known)
        if target is None or target.kind != "class":
            return None
        info = self.index.class_info(target.name)
        if info is None or info.qualname in self._building:
            return None
        left_out: frozenset[str]
        if picked:
            left_out = frozenset()
        elif direct:
            left_out = self._left_out(info, value)
        else:  # (a factory's arguments are its own; its call of the class says what it passes)
            left_out = self._factory_left_out(info, factory, value) if factory else frozenset()
        # (torch's own modules are priced by what the cost model knows of them)
        own = not info.qualname.startswith("torch.")
        given = self._sizes_given(info, value, holder) if direct and own and not picked else ()
        self._building.add(info.qualname)
        try:
            return self.simulate(info, left_out=left_out, held=True, given=given)
        except SimulationLimit:
            return None
        finally:
            self._building.discard(info.qualname)

    def _factory_left_out(
        self, info: ClassInfo, factory: str, outer: Expr, depth: int = FACTORY_DEPTH
    ) -> frozenset[str]:
        """The parameters of ``info``'s ``__init__`` that a factory called as ``outer``
        leaves at their defaults: those its construction of the class does not pass
        (``model = ResNet(Bottleneck, **kwargs)`` ... ``return model``), where the packs
        it passes on (``*args``, ``**kwargs``, or another factory's, ``depth`` calls deep)
        carry only what ``outer`` gave them. Every construction returned must leave a
        parameter out; none known when a call passes another pack, the factory changes or
        hands on a pack of its own, or a return gives anything else."""
        fn = self.index.function_info(factory)
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError) or depth <= 0:
            return frozenset()
        given = _plain_arguments(outer)
        if given is None:
            return frozenset()
        named_params = [p for p in body.params if p.kind in ("posonly", "pos")]
        varpack = next((p.name for p in body.params if p.kind == "vararg"), "")
        pack = kwarg_name(body.params)
        if len(given[0]) > len(named_params):
            return frozenset()  # (positional arguments carried by ``*args``: not followed)
        if not all(p.spread_only for p in body.params if p.kind in ("vararg", "kwarg")):
            return frozenset()  # (a pack changed or handed on: it may carry anything)
        bound: dict[str, Expr | None] = {}
        found: frozenset[str] | None = None
        for eff in body.effects:
            if eff.kind == "local":
                bound[eff.name] = eff.value if _same_call(bound, eff) else None
                continue
            if eff.kind != "return":
                continue
            call = eff.value
            if call is not None and call.kind == "name":
                call = bound.get(call.name)
            passed = _passed_on(call, varpack, pack, given[1]) if call is not None else None
            target = self.index.resolve(fn.module, call.name) if call and call.name else None
            if passed is None or call is None or target is None:
                return frozenset()
            if target.kind == "function":  # (another factory: its call of the class)
                inner = replace(call, children=(*passed[0], *passed[1].values()))
                inner = replace(inner, value=len(passed[0]), keywords=tuple(passed[1]))
                out = self._factory_left_out(info, target.name, inner, depth - 1)
            elif target.name == info.qualname:
                out = self._defaulted(info, passed[0], passed[1])
            else:
                return frozenset()
            found = out if found is None else found & out
        return found or frozenset()

    def _left_out(self, info: ClassInfo, call: Expr) -> frozenset[str]:
        """The parameters of ``info``'s ``__init__`` that ``call`` does not pass: they hold
        their defaults in the object it builds. None known when ``*``/``**`` is passed."""
        given = _plain_arguments(call)
        return frozenset() if given is None else self._defaulted(info, *given)

    def _sizes_given(
        self, info: ClassInfo, call: Expr, holder: Event
    ) -> tuple[tuple[str, int], ...]:
        """The parameters of ``info``'s ``__init__`` that ``call`` gives a whole number, by
        a number written or through names that held one where it ran (``Event.sizes``),
        with those numbers."""
        passed = _plain_arguments(call)
        init = self.index.constructor(info.qualname)
        body = init.facts.load() if init is not None else None
        if passed is None or body is None or isinstance(body, BodyError):
            return ()
        source = holder
        while source.built_from is not None:
            source = source.built_from
        bound = {name: const(n) for name, n in source.sizes}
        positional: list[Expr | None] = list(passed[0])
        keywords: dict[str, Expr | None] = dict(passed[1])
        values = bind_args(positional, keywords, body.params[1:], _not_passed, None)[0]
        out = [
            (name, n)
            for name, e in values.items()
            if e is not None and (n := whole_value(e, bound)) is not None
        ]
        return tuple(sorted(out))

    def _defaulted(
        self, info: ClassInfo, given: list[Expr], named: dict[str, Expr]
    ) -> frozenset[str]:
        """The parameters of ``info``'s ``__init__`` left at their defaults by a call that
        passes ``given`` by position and ``named`` by keyword."""
        init = self.index.constructor(info.qualname)
        body = init.facts.load() if init is not None else None
        if body is None or isinstance(body, BodyError):
            return frozenset()
        positional = len(given)
        out: set[str] = set()
        for p in body.params[1:]:
            if p.kind in ("pos", "posonly") and positional > 0:
                positional -= 1
                if _as_default(p, given[len(given) - positional - 1]):
                    out.add(p.name)
            elif p.kind not in ("vararg", "kwarg") and _as_default(p, named.get(p.name)):
                out.add(p.name)
        return frozenset(out)

    def class_built(self, function: str) -> str:
        """The class a factory's every ``return`` constructs (``_returned_class``); ""."""
        target = self._returned_class(function, FACTORY_DEPTH)
        return target.name if target is not None and target.kind == "class" else ""

    def class_factory(self, module: Module, dotted: str) -> Target | None:
        """``Tower.from_config(cfg)``: the class a classmethod reached through a class
        constructs, where its every ``return`` is ``cls(...)`` (or a local bound to one):
        the class it was called through, as Python binds ``cls``; None otherwise."""
        head, _, attr = dotted.rpartition(".")
        owner = self.index.resolve(module, head) if head else None
        if owner is None or owner.kind != "class":
            return None
        mro = self.index.mro(owner.name)
        fn = self.index.lookup_method(mro.classes, attr) if mro.ok else None
        body = fn.facts.load() if fn is not None and fn.facts.is_classmethod else None
        if body is None or isinstance(body, BodyError) or not body.params:
            return None
        me = body.params[0].name
        calls = _returned_calls(body)
        if not calls or any(c.name != me for c in calls):
            return None
        return Target("class", owner.name)

    def _returned_class(self, function: str, depth: int) -> Target | None:
        """The class a factory's every ``return`` constructs (``return ResNet(...)``, a local
        it built, ``model = ResNet(...)`` ... ``return model``, or another such factory's
        result, ``depth`` calls deep); None when a return gives anything else or they
        disagree."""
        fn = self.index.function_info(function)
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError) or depth <= 0:
            return None
        found: set[str] = set()
        for value in _returned_calls(body) or ():
            target = self.index.resolve(fn.module, value.name)
            if target is not None and target.kind == "function":
                target = self._returned_class(target.name, depth - 1)
            if target is None or target.kind != "class":
                return None
            found.add(target.name)
        return Target("class", found.pop()) if len(found) == 1 else None

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
        away, IL005, whether or not the environment holds torch); or C's own ``__init__``
        calls none and C is a torch module (its own builds, IL005, are all there is).
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
            # No ancestor __init__ runs from C's, so only C's own builds can be thrown away
            # (IL005); a module whose base runs torch's Module.__init__ for it (a metaclass
            # hook) still builds parts that way, and so may any other class whose
            # ``__init__`` stores an attribute twice, once from a call (its subclasses'
            # simulations leave their ancestors' own replacements to the ancestor's).
            return (
                init.owner is not None
                and init.owner.qualname == cls.qualname
                and (
                    any(q in MODULE_CLASSES for q in mro_res.classes[1:]) or _restores_a_call(init)
                )
            )
        return any(
            ((info := self.index.class_info(q)) is not None and info.facts.method("__init__"))
            or (info is None and (bool(torch_params(q)) or q in MODULE_CLASSES))
            for q in mro_res.classes[1:]
        ) and not _only_passes_on(cls, init)


# A handler of one effect kind (``_Run._EFFECT_HANDLERS``): what ``_Run._effect`` returns,
# the call to run or the error of a body that does not parse.
_EffectHandler = Callable[["_Run", Frame, EffectContext], "Call | BodyError | None"]


class _Run(CallEffects):
    """One simulation: the ``__init__`` chain's effects run in order, each decided by its
    guards and applied by the handler of its kind."""

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
                self.note_unfollowed_writes()
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
        if call.lent:
            frame.built.update(call.lent)
        if call.given_cost:
            frame.local_cost.update(call.given_cost)
        if call.given_parts:
            frame.parts.update((k, frozenset({v})) for k, v in call.given_parts.items())
        if call.depth == 0:
            self.sim.top_frame = frame.id
        self.active.add(fn.qualname)
        return frame, self._effects(frame)

    def _stop(self, why: str) -> None:
        self.sim.incomplete = True
        self.sim.stopped = f"analysis stopped: {why}; the class was not fully checked"

    def _effects(self, frame: Frame) -> Iterator[Call | BodyError]:
        loops = loop_bindings(frame.body.effects)
        cut = False  # (it returned, or a read of an unset attribute raised, before its end)
        for i, eff in enumerate(frame.body.effects):
            if frame.dead:
                cut = True
                break
            if loops and eff.loops:
                self._enter_loops(frame, eff, loops)
            call = self._effect(frame, i, eff)
            if call is not None:
                yield call
        if not frame.ran and frame.body.effects and frame.call.parent is not None:
            self.sim.events[frame.call.parent].idle = True
        if cut:
            return
        if frame.built or frame.shelved or frame.released:
            error = self.close_locals(frame)
            if error is not None:
                yield error

    def _enter_loops(self, frame: Frame, eff: Effect, loops: dict[int, list[LoopBinding]]) -> None:
        """At the first effect of a loop that may run: a pass may follow another, so a
        name the loop binds holds, on entry, the value from before or one a pass gave it;
        no value known here (one it only changes in place: no constant). A binding under a
        test that is false here, of names the loop leaves alone, never happens."""
        for loop, outer in loop_entries(eff):
            if self.written_attrs:  # (a later pass reads what an earlier one wrote)
                self.forget_numbers(_written_in(frame.body.effects, loop))
            binds = loops.pop(loop, None)
            if not binds or any(self.eval_cond(frame, c)[0] == FALSE for c in outer):
                continue
            names = {b.name for b in binds}
            env = frame.call.env
            for b in binds:
                if not self._never_inside(frame, b.guard[len(outer) + 1 :], names):
                    env[b.name] = forgotten(env.get(b.name), b.rebinds)
                    frame.loop_bound.add(b.name)

    def _never_inside(self, frame: Frame, guard: tuple[Cond, ...], bound: set[str]) -> bool:
        for c in guard:
            names: set[str] = set()
            attrs: set[str] = set()
            cond_inputs(c, names, attrs)
            if names and not attrs and not names & bound and self.eval_cond(frame, c)[0] == FALSE:
                return True
        return False

    def _effect(self, frame: Frame, i: int, eff: Effect) -> Call | BodyError | None:
        """Apply one effect; a call or super().__init__() comes back as the call to run,
        a body that does not parse (met in pricing, or a callee's) as its error."""
        if eff.kind == "raise":
            self._raise_statement(frame, i, eff)
            return None
        ctx = self._effect_context(frame, i, eff)
        if ctx is None:
            return None
        if eff.kind not in ("touch", "local_use") and not _bare_return(eff):
            frame.ran = True  # (a mention, or a ``return`` of nothing, does no work)
        if eff.kind == "assign" and eff.value is not None and self._setter(eff.name):
            # ``self.x = v`` on a property runs its setter: the call ``setter(self, v)``
            arg = Arg(eff.value, eff.name)
            setter = replace(eff, kind="call", detail="self", args=(arg,), value=None)
            return CallEffects.on_call(self, frame, ctx._replace(effect=setter))
        if frame.parts and not ctx.shadow:
            self.read_through_parts(frame, ctx)
        handler = _Run._EFFECT_HANDLERS.get(eff.kind)
        if eff.kind == "return":
            done = handler(self, frame, ctx) if handler is not None else None
            self.return_from(frame, eff)
            return done
        return None if handler is None else handler(self, frame, ctx)

    def _raise_statement(self, frame: Frame, i: int, eff: Effect) -> None:
        """A ``raise`` under undecided guards ends the paths they take (noted for the rules
        that ask whether work runs on every path). One that may be caught, or whose guards
        are not all keyed, ends none that can be named; one that runs on every path is left
        to pricing (``cost.py``)."""
        if eff.protected:
            return
        ctx = self._effect_context(frame, i, eff)
        if ctx is None or ctx.status != MAYBE or ctx.shadow or self.unkeyed:
            return
        self.sim.raise_statements.append(RaiseStatement(frame.id, ctx.literals))

    def _setter(self, name: str) -> bool:
        """Whether ``name`` is a property with a setter on the object under construction (the
        MRO's last definition of ``name`` is decorated ``@<name>.setter``)."""
        if name not in self.simulator.setter_names(self.sim.mro):
            return False
        fn = self.simulator.index.lookup_method(self.sim.mro, name)
        return fn is not None and f"{name}.setter" in fn.facts.decorators

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
        if frame.returned:  # a return under an undecided guard may have ended the frame
            status = MAYBE
            assume = (*assume, *(a for a in frame.after_return if a not in assume))
            if frame.after_return_literals:
                literals = (*literals, *frame.after_return_literals)
            else:
                unkeyed = True
        if self.after_raise and exclusive(assume[len(frame.call.assume) :], self.after_raise):
            return None  # its guards need a path that raised before reaching it
        frame.current, frame.maybe, frame.shadowed = eff, tuple(maybe), bool(shadow)
        if self.after_raise:
            assume = (*assume, *(a for a in self.after_raise if a not in assume))
        if self.after_raise_literals:
            literals = (*literals, *(x for x in self.after_raise_literals if x not in literals))
        self.assume = assume  # for the events this effect emits
        self.literals = literals
        self.unkeyed = unkeyed
        return EffectContext(i, eff, status, flags, shadow, assume, literals)

    # One handler per effect kind (``_effect``): ``stores.py`` and ``calls.py``; the three
    # kinds that store a value on self share theirs.
    _EFFECT_HANDLERS: ClassVar[dict[EffectKind, _EffectHandler]] = {
        "local": StoreEffects.on_local,
        "pop": StoreEffects.on_pop,
        "return": StoreEffects.on_return,
        "objattr": StoreEffects.on_objattr,
        "touch": StoreEffects.on_touch,
        "delete": StoreEffects.on_delete,
        "nested": CallEffects.on_nested,
        "buffer": StoreEffects.on_stored_value,
        "assign": StoreEffects.on_stored_value,
        "mutate": StoreEffects.on_stored_value,
        "call": CallEffects.on_call,
        "super_init": CallEffects.on_super_init,
        "held_call": CallEffects.on_held_call,
        "import": CallEffects.on_import,
        "init": CallEffects.on_init,
        "pass": CallEffects.on_pass,
        "rerun_each": CallEffects.on_rerun_each,
        "helper": CallEffects.on_helper,
        "local_use": CallEffects.on_local_use,
        "write": StoreEffects.on_write,
    }


def _returned_calls(body: Body) -> list[Expr] | None:
    """The call each ``return`` of ``body`` gives, directly or through a local bound to one
    call (``model = ResNet(...)`` ... ``return model``); None when a return gives anything
    else."""
    bound: dict[str, Expr | None] = {}
    calls: list[Expr] = []
    for eff in body.effects:
        if eff.kind == "local":  # (bound twice: one class only if both calls name it)
            bound[eff.name] = eff.value if _same_call(bound, eff) else None
        elif eff.kind == "return":
            value = eff.value
            if value is not None and value.kind == "name":
                value = bound.get(value.name)
            if value is None or value.kind != "call" or not value.name:
                return None
            calls.append(value)
    return calls


def _same_call(bound: dict[str, Expr | None], eff: Effect) -> bool:
    """Whether binding ``eff``'s local keeps it one call's result: its first binding, or
    another call of the same name (``model = Net(1001)`` on one path, ``Net(n)`` on the
    other: a ``Net`` either way)."""
    if eff.name not in bound:
        return True
    old, new = bound[eff.name], eff.value
    return (
        old is not None
        and new is not None
        and old.kind == new.kind == "call"
        and bool(new.name)
        and old.name == new.name
    )


def _restores_a_call(init: FunctionInfo) -> bool:
    """Whether ``init`` itself stores some attribute, or an item of one at a key, more than
    once, one of the values a call's (``self.data = torch.load(f)`` ... ``self.data =
    self.build()``)."""
    body = init.facts.load()
    if isinstance(body, BodyError):
        return False
    stored: dict[str, bool] = {}
    for e in body.effects:
        if e.kind == "assign":
            name = e.name
        elif e.kind == "mutate" and e.detail == "item" and e.target:
            name = f"{e.name}[{e.target}]"  # (``self.models[i] = ...``: an item at a key)
        else:
            continue
        call = e.value is not None and e.value.kind == "call"
        if name in stored and (call or stored[name]):
            return True
        stored[name] = stored.get(name, False) or call
    return False


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


def _bare_return(eff: Effect) -> bool:
    """Whether ``eff`` is a ``return`` that makes nothing: of nothing (``if self.built:
    return``), a constant or a value already held (``return self.cache``)."""
    if eff.kind != "return":
        return False
    return eff.value is None or eff.value.kind in ("const", "name", "attr")


def _state_test(cond: Cond) -> bool:
    """Whether the test ``cond`` reads the object's own state (``if self.proj is None:``,
    ``hasattr(self, "proj")``): a run of the method on an object that has it may take the
    other branch, so what the first run built there is not surely built again."""
    return cond.op in ("selfattr", "hasattr") or any(_state_test(a) for a in cond.args)


def _read_or_kept(part: Event, inside: list[Event], after: list[Event]) -> bool:
    """Whether the method reads the part before it builds it anew (``old = self.proj``,
    the new one made from it), or the construction, after the method, stores the part again,
    deletes it, or keeps it under another name (``self.out = self.proj``): what a second
    run throws away is then not what the first run built."""
    if any(
        part.name in e.reads or part.name in e.effect.reads for e in inside if e.index < part.index
    ):
        return True
    return any(
        e.name == part.name or part.name in e.reads
        for e in after
        if e.kind in ("assign", "buffer", "delete", "nested", "mutate") and not e.shadow
    )


def _costly_store(e: Event) -> bool:
    """A store of a part that builds something: an assignment of a costly value, or a
    buffer or parameter registered with one (not a constant)."""
    return not e.shadow and (
        (e.kind == "assign" and e.expensive) or (e.kind == "buffer" and not e.value_const)
    )


def _as_default(param: Param, given: Expr | None) -> bool:
    """Whether a call leaves ``param`` at its default: it passes nothing for it, or the
    constant the default is (``drop_rate=0.0`` for ``drop_rate=0.0``)."""
    if given is None:
        return True
    default = param.default
    if not param.has_default or default is None or given.kind != "const":
        return False
    return (
        default.kind == "const"
        and type(default.value) is type(given.value)
        and default.value == given.value
        and default.name == given.name
    )


def _not_passed(_: None, p: Param) -> Expr | None:
    """What a call that leaves ``p`` out gives it, as far as sizes go: nothing."""
    return None


def _plain_arguments(call: Expr) -> tuple[list[Expr], dict[str, Expr]] | None:
    """A call's positional and keyword arguments, None when it passes a pack."""
    if any(k == "" or k.startswith("*") for k in call.keywords):
        return None
    pos = len(call.children) if call.value is None else int(call.value)
    return list(call.children[:pos]), dict(zip(call.keywords, call.children[pos:], strict=False))


def _passed_on(
    call: Expr, varpack: str, pack: str, forwarded: dict[str, Expr]
) -> tuple[list[Expr], dict[str, Expr]] | None:
    """What ``call`` in a factory passes, with the factory's own packs spread as what its
    caller gave them: ``*varpack`` nothing (its caller gave no extra positional argument),
    ``**pack`` the keywords ``forwarded``; None for any other pack, or no call."""
    if call.kind != "call":
        return None
    starred = call.keywords[:1] == ("*",)
    keywords = call.keywords[1:] if starred else call.keywords
    pos = len(call.children) if call.value is None else int(call.value)
    positional = list(call.children[:pos])
    if starred:  # (only ``f(*args)`` of the factory's own ``*args``, which holds nothing)
        plain = [c for c in positional if not (c.kind == "name" and c.name == varpack)]
        if not varpack or len(plain) != len(positional) - 1:
            return None
        positional = plain
    named: dict[str, Expr] = {}
    for k, v in zip(keywords, call.children[pos:], strict=False):
        if k == "":
            if not pack or v.kind != "name" or v.name != pack:
                return None
            named.update(forwarded)
        else:
            named[k] = v
    return positional, named


def _written_in(effects: tuple[Effect, ...], loop: int) -> set[str]:
    """The ``self`` attributes the statements of ``loop`` may write (``EVERYTHING`` where
    one hands ``self`` on or runs a method of the object, which may write any)."""
    return {n for e in effects if loop in e.loops for n in may_write(e)}

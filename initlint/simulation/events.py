"""The run's events as they are recorded (``emit``), and what they say of the object's
attributes at each point: which ones work so far may have set (``note_writes``, and the
counts the guards' state keys read), whether ``hasattr(self, name)`` holds
(``hasattr_truth``), and whether a read of one surely finds it unset (``surely_unset``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from initlint.facts.model import (
    Body,
    BodyError,
    Effect,
    EffectKind,
    Expr,
    FunctionFacts,
    Span,
)
from initlint.facts.reads import EVERYTHING
from initlint.index.records import FunctionInfo
from initlint.simulation.arguments import ArgumentBinding
from initlint.simulation.levels import NONE
from initlint.simulation.part_refs import bound, ended, heads, sure_part
from initlint.simulation.records import Event, FlagRef
from initlint.simulation.run_state import EffectContext, Frame
from initlint.simulation.torch_module import MODULE_CLASSES, MODULE_NAMES, PLAIN_BASES
from initlint.simulation.values import FALSE, MAYBE, TRUE, Origin, Val, const

# The events that may set the attribute they name (``EventLog._may_set``).
_SETTERS = frozenset({"assign", "buffer", "delete", "mutate", "nested"})


class EventLog(ArgumentBinding):
    """The events of the run, and what they may have set on the object so far."""

    def emit(
        self,
        frame: Frame,
        i: int,
        eff: Effect,
        kind: EffectKind,
        name: str,
        status: str,
        flags: tuple[FlagRef, ...],
        shadow: tuple[Origin, ...],
        *,
        cost: int = NONE,
        args_key: str = "",
        callee: FunctionInfo | None = None,
        value_const: bool = False,
    ) -> Event:
        """Record an event of effect ``i`` of ``frame``, under what the effect being applied
        assumes, and note what it may have set."""
        ev = Event(
            index=len(self.sim.events),
            kind=kind,
            name=name,
            fn=frame.call.fn,
            effect=eff,
            effect_index=i,
            frame=frame.id,
            status=status,
            ancestor=frame.call.ancestor,
            parent=frame.call.parent,
            expensive=cost > NONE,
            cost=cost,
            args_key=args_key,
            callee=callee,
            flags=flags,
            value_const=value_const,
            shadow=bool(shadow),
            switched_off_by=shadow,
            assume=self.assume,
            literals=self.literals,
            unkeyed=self.unkeyed,
        )
        self.sim.events.append(ev)
        self._may_set(frame, kind, name, eff)
        return ev

    def _may_set(self, frame: Frame, kind: EffectKind, name: str, eff: Effect) -> None:
        """Note what an event may have set (``surely_unset``, the guards' state keys)."""
        if kind == "touch":
            writes = eff.writes
            if not writes:
                return
            self.ever_set.update(writes)
            counts = self.attr_writes
            for n in writes:
                counts[n] = counts.get(n, 0) + 1
            if EVERYTHING in writes or "__dict__" in writes:
                self.wild = True
                self.epoch += 1
            # (``self.n *= 128``; ``self`` handed on or its ``__dict__`` written: any)
            self.forget_numbers(writes)
        elif kind in _SETTERS:
            root = name.partition(".")[0]
            if kind == "delete":
                self.forget_numbers((root,))
            self.ever_set.add(root)
            count = self.attr_writes.get(root, 0)
            if kind == "assign" and root == name:
                # ``self.pp_group = get_parallel().pp_group`` or ``self.config = config``
                # again, after the ancestor stored the same: the same object (the guards'
                # state keys assume so), so no write. The count may have moved only by this
                # statement's own touch.
                same = self._same_object(frame, eff.value)
                before = self.same_stores.get(root)
                if (
                    same
                    and before is not None
                    and before[0] == same
                    and count - before[1] in (0, 1)
                ):
                    self.attr_writes[root] = before[1]
                    return
                if same:
                    self.same_stores[root] = (same, count + 1)
                else:
                    self.same_stores.pop(root, None)
            self.attr_writes[root] = count + 1

    def _same_object(self, frame: Frame, value: Expr | None) -> str:
        """What names the object ``value`` stores, where storing it again stores the same
        object: an argument-free getter's result (its text, the function it resolves to,
        the attributes read from it) or an unchanged argument of the constructed class
        (its ``sym``); "" for anything else."""
        chain = _getter_chain(value)
        if chain is not None:
            getter = self.getter_of(frame, chain[0])
            return f"call:{chain[0]}={getter}{chain[1]}" if getter else ""
        sym = _argument_sym(frame, value)
        return f"arg:{sym}" if sym else ""

    def pass_on(self, frame: Frame, eff: Effect, parts: Iterable[str]) -> None:
        """The statement of ``eff`` hands the object's ``parts`` to a method that names each
        by a parameter standing for it: its touches' reads that only hand them on are no
        use (``Effect.handed``)."""
        tops = {p.partition(".")[0] for p in parts}
        for ev in self.statement_so_far(frame, eff.stmt_span):
            if ev.kind == "touch":
                ev.passed_on |= ev.effect.handed & tops

    def statement_so_far(self, frame: Frame, span: Span | None) -> Iterator[Event]:
        """The events ``frame``'s statement at ``span`` has made so far, latest first (not
        those of the calls it made, which run in frames of their own)."""
        for ev in reversed(self.sim.events):
            if ev.frame != frame.id:
                continue
            if ev.effect.stmt_span != span:
                return
            yield ev

    def end_parts(self, frame: Frame, replaced: str, status: str) -> None:
        """The object's ``replaced`` gets another value (on every path when ``status`` is
        TRUE): the names that stood for it, or for a part below it, in ``frame`` and the
        frames that called it, hold the old object (or may)."""
        at: Frame | None = frame
        while at is not None:
            for name, paths in list(at.parts.items()):
                now = bound(paths, ended(paths, replaced), status == TRUE)
                if now == frozenset({""}):
                    del at.parts[name]
                else:
                    at.parts[name] = now
            at = at.caller

    def returned_on(self, call: int, part: str) -> None:
        """The method the call event ``call`` ran returned the object's ``part`` to a name
        that stands for it: its ``return`` only handed the part on."""
        head = part.partition(".")[0]
        for ev in self.sim.events[call + 1 :]:
            if ev.parent == call and ev.kind == "touch" and head in ev.effect.handed:
                ev.passed_on = frozenset({head})

    def read_through_parts(self, frame: Frame, ctx: EffectContext) -> None:
        """A touch of the parts that the names a statement uses stand for (its touch's
        ``names``, ``part_refs.py``), as a touch records a read of ``self.x``: what is done
        through such a name is done to the part. A name it hands once, whole, to a method
        of the object goes there as that method's parameter (``pass_on`` decides)."""
        eff, parts = ctx.effect, frame.parts
        if eff.kind != "touch" or not eff.names:
            return
        reads = heads(parts, eff.names)
        if not reads:
            return
        passes = frozenset(n for n in eff.passes if sure_part(parts, n))
        read = replace(
            eff,
            reads=reads,
            writes=frozenset(),
            strict=frozenset(),
            tested=frozenset(),
            sized=frozenset(),
            changed=frozenset(),
            handed=heads(parts, passes) - heads(parts, eff.names - passes),
            names=frozenset(),
            passes=frozenset(),
        )
        self.emit(frame, ctx.effect_index, read, "touch", "", ctx.status, ctx.flags, ())

    def note_writes(
        self, names: set[str] | frozenset[str] = frozenset(), *, all_: bool = False
    ) -> None:
        """Count writes of ``self`` attributes (``all_``: of any, by work not followed)."""
        for n in names:
            self.attr_writes[n] = self.attr_writes.get(n, 0) + 1
        if all_:
            self.epoch += 1

    def plain_slot(self, name: str) -> bool:
        """Whether ``self.<name> = v`` surely leaves ``v`` there for a later read: no class
        of the MRO binds the name other than to a constant (a method, a property, another
        descriptor), or writes attributes its own way (``__setattr__``; torch's Module's
        stores a number as it is), every class of the MRO is known, and ``self`` was never
        handed on (what holds it may write)."""
        if self.wild:
            return False
        for qual in self.sim.mro:
            info = self.simulator.index.class_info(qual)
            if info is None:
                if qual in MODULE_CLASSES or qual in PLAIN_BASES:
                    continue
                return False
            facts = info.facts
            own = ("__setattr__", "__getattribute__") if qual not in MODULE_CLASSES else ()
            if facts.dynamic_bases or any(facts.method(m) for m in (name, *own)):
                return False
            if name in facts.attrs and name not in dict(facts.consts):
                return False
        return True

    def note_unfollowed_writes(self) -> None:
        """Work the simulation did not follow ran: it may have written any attribute, the
        numbers written before too."""
        self.note_writes(all_=True)
        self.forget_numbers()

    def forget_numbers(self, names: Iterable[str] = (EVERYTHING,)) -> None:
        """The attributes ``names`` may no longer hold the number written in the code they
        were last set to (``written_attrs``): something else may have written them
        (``EVERYTHING`` or ``__dict__`` among them: any attribute)."""
        if EVERYTHING in names or "__dict__" in names:
            self.written_attrs.clear()
        else:
            self.written_attrs.difference_update(names)

    def getter_of(self, frame: Frame, dotted: str) -> str:
        """The function an argument-free call ``dotted()`` in ``frame`` names: a project
        function or an external name (not a class, which builds a new object each time, nor
        a local or parameter of the frame); "" when it resolves to no such thing."""
        head = dotted.partition(".")[0]
        if head in ("self", "cls", "super") or head in frame.call.env:
            return ""
        key = (frame.call.fn.module.name, dotted)
        found = self.simulator.getters.get(key)
        if found is None:
            # (a torch name stays external: built-in knowledge judges it)
            target = self.simulator.index.resolve_value(*key)
            ok = target is not None and target.kind in ("function", "external")
            found = self.simulator.getters[key] = target.name if target is not None and ok else ""
        return found

    def hasattr_truth(self, name: str) -> str:
        """``hasattr(self, name)`` at this point of the construction: true once the
        construction has set it, false while nothing has set it and nothing could have
        (every class of the MRO known, none binding the name, nothing unfollowed run; for a
        private name, torch's ``Module`` read from its sources)."""
        seen = False
        held = False
        for ev in self.sim.events:
            if ev.name != name or ev.shadow:
                continue
            if ev.kind in ("assign", "buffer"):
                held = held or ev.status == TRUE
                seen = True
            elif ev.kind == "delete":  # ``del self.x``: gone again (a class attribute may stay)
                held = False
                seen = True
        if held:
            return TRUE
        if seen or self.opaque or name in self.set_names:
            return MAYBE
        if name.startswith("_") and not self._private_known(name):
            return MAYBE
        return MAYBE if self._class_may_bind(name) else FALSE

    def _private_known(self, name: str) -> bool:
        """Whether a private name is decided as a public one is: not a dunder (``object``
        and ``type`` give those: ``__dict__``, ``__class__``), every torch ``Module`` class
        of the MRO read from its sources (its ``__init__`` then runs, and the private state
        it sets is in ``set_names``), and no project class of the MRO decorated or made by
        a metaclass of its own (a registry's decorator may stamp a private name on it)."""
        if name.startswith("__") and name.endswith("__"):
            return False
        index = self.simulator.index
        for qual in self.sim.mro:
            info = index.class_info(qual)
            if info is None:
                if qual in MODULE_CLASSES:
                    return False
                continue
            facts = info.facts
            if facts.decorators or facts.metaclass not in ("", "ABCMeta", "abc.ABCMeta"):
                return False
        return True

    def _class_may_bind(self, name: str) -> bool:
        """Whether reading ``self.<name>`` may find something without the construction
        setting it: a class of the MRO binds it (a method, property, class attribute, or
        its ``__new__`` sets it on the instance before ``__init__`` runs), may bind
        anything (unknown, dynamic bases, ``__init_subclass__``), or answers any
        name (``__getattr__``/``__getattribute__``; torch's Module's serves only what was
        registered, which the construction's events show)."""
        known = self.bound_in_class.get(name)
        if known is not None:
            return known
        found = False
        for qual in self.sim.mro:
            info = self.simulator.index.class_info(qual)
            if info is None and qual in MODULE_CLASSES:  # torch not installed
                if name in MODULE_NAMES:
                    found = True
                    break
                continue
            if info is None and qual in PLAIN_BASES:  # (``abc.ABC``, ``typing.Generic``)
                if name in PLAIN_BASES[qual]:
                    found = True
                    break
                continue
            if info is None or info.facts.dynamic_bases:
                found = True
                break
            facts = info.facts
            if facts.method(name) is not None or name in facts.attrs:
                found = True
                break
            if _new_may_set(facts.method("__new__"), name):
                found = True
                break
            hooks: tuple[str, ...] = ("__init_subclass__",)
            if qual not in MODULE_CLASSES:
                hooks += ("__getattr__", "__getattribute__")
            if any(facts.method(h) is not None or h in facts.attrs for h in hooks):
                found = True
                break
        self.bound_in_class[name] = found
        return found

    def class_constant(self, frame: Frame, name: str) -> Val | None:
        """What ``self.<name>`` gives at this point when nothing may have set it on the
        instance: the constant the first class of the MRO that binds the name gives it in
        its body (``call_super_init = False`` on torch's ``Module``, ``build = False``), as
        Python's lookup finds it. None when something may have set it (the construction so
        far, the running function anywhere in its body, a ``__new__``, code not followed),
        when that binding is not a plain constant or is a method, when a class of the MRO is
        not known, is decorated, has a metaclass of its own or a hook that could bind names
        (``__init_subclass__``, ``__getattribute__``), and for a private name (Python
        mangles it per class), or a name the module of a class of the MRO stores on something
        other than ``self`` (``type(self).x = ...``, ``Model.x = ...``, ``setattr``). A
        class attribute changed from another module is not seen."""
        if name.startswith("__") and not name.endswith("__"):
            return None
        if name in self.ever_set or name in self.set_names or self.wild or self.blind:
            return None
        found = self._class_binding(name)
        if found is None or self.opaque:
            return None
        if any(ev.name == name and not ev.shadow for ev in self.sim.events):
            return None
        if any(e.name == name and e.kind in _STORES for e in frame.body.effects):
            return None  # (set later in the body: a loop's next pass reads that)
        return found

    def _class_binding(self, name: str) -> Val | None:
        """The constant the first class of the MRO binding ``name`` gives it, when every
        class of the MRO is one whose body says what it binds (``class_constant``)."""
        found: Val | None = None
        bound = False
        for qual in self.sim.mro:
            info = self.simulator.index.class_info(qual)
            if info is None:
                if qual in PLAIN_BASES and name not in PLAIN_BASES[qual]:
                    continue
                return None
            facts = info.facts
            if facts.dynamic_bases or facts.decorators:
                return None
            if facts.metaclass not in ("", "ABCMeta", "abc.ABCMeta"):
                return None
            if name in info.module.facts.foreign_stores:
                return None  # (``Model.build = True`` somewhere in its module)
            hooks = ("__init_subclass__", "__getattribute__")
            if any(facts.method(h) is not None for h in hooks):
                return None
            if _new_may_set(facts.method("__new__"), name):
                return None
            if bound:
                continue
            if facts.method(name) is not None:
                return None
            if name in facts.attrs:
                bound = True
                consts = dict(facts.consts)
                found = const(consts[name]) if name in consts else None
        return found

    def surely_unset(self, name: str) -> bool:
        """``self.<name>`` is definitely unset at this point: nothing so far may have set it
        and no class of the MRO provides it (``_class_may_bind``)."""
        if name in self.ever_set or self.wild or self.blind or name in self.set_names:
            return False
        return not name.startswith("_") and not self._class_may_bind(name)

    def note_unfollowed(self, eff: Effect) -> None:
        """A ``self.<m>()`` the simulation does not run (a classmethod, or nothing found):
        a classmethod can set only class attributes, ``cls.x = v``; when its body shows
        them all (it calls no other method of its class), they are what it may have set.
        Anything else may have set any attribute."""
        fn = (
            self.simulator.index.lookup_method(self.sim.mro, eff.name)
            if eff.detail == "self"
            else None
        )
        body = fn.facts.load() if fn is not None and fn.facts.is_classmethod else None
        # (a body that does not parse: what it sets is not known, as before it was read)
        names = _class_writes(body.effects) if isinstance(body, Body) else None
        if names is None:
            self.blind = True
            self.note_writes(all_=True)
        else:
            self.ever_set.update(names)


def writes_any(events: list[Event], since: int, names: frozenset[str]) -> bool:
    """Whether the events after ``since`` may change one of the ``self`` attributes
    ``names``. Assigning an attribute the expression its latest assignment up to ``since``
    had (``self.hidden = cfg.hidden`` in the subclass as in the base) is no change, by the
    same measure of equal arguments as equal text."""
    before: dict[str, Expr | None] = {}
    for e in events[: since + 1]:
        if e.kind == "assign" and e.name in names and not e.shadow:
            before[e.name] = e.effect.value
    same: set[tuple[int, Span | None, str]] = set()
    for e in events[since + 1 :]:
        if e.kind == "assign" and not e.shadow and e.name in before:
            value = e.effect.value
            if value is not None and value.kind in ("attr", "name", "const"):
                if value == before[e.name]:
                    same.add((e.frame, e.effect.stmt_span, e.name))
    for e in events[since + 1 :]:
        if e.shadow:
            continue
        if e.kind == "touch":
            written = e.effect.writes & names
            if EVERYTHING in e.effect.writes:
                return True
            if any((e.frame, e.effect.stmt_span, n) not in same for n in written):
                return True
        elif e.kind == "buffer" and e.name in names or e.unfollowed:
            return True
        elif e.kind == "assign" and e.name in names:
            if (e.frame, e.effect.stmt_span, e.name) not in same:
                return True
    return False


def _class_writes(effects: tuple[Effect, ...]) -> set[str] | None:
    """The attributes a classmethod's body may set on its class; None when it calls another
    method of it or passes the class on (what that sets is not read here)."""
    names: set[str] = set()
    for e in effects:
        if e.kind in ("call", "super_init"):
            return None
        if e.kind == "touch":
            if EVERYTHING in e.writes or "__dict__" in e.writes:
                return None
            names.update(e.writes)
        elif e.kind in ("assign", "buffer", "mutate", "delete", "nested"):
            names.add(e.name)
    return names


def _argument_sym(frame: Frame, value: Expr | None) -> str:
    """The argument of the constructed class a plain name holds, unchanged (its ``sym``),
    or "" for anything else."""
    if value is None or value.kind != "name":
        return ""
    held = frame.call.env.get(value.name)
    if held is None or held.kind != "unknown" or held.fields or held.open:
        return ""
    return held.sym


def _getter_chain(value: Expr | None) -> tuple[str, str] | None:
    """``get_parallel().pp_group``: the dotted name called without arguments, and the
    attributes read from its result (``".pp_group"``); None for any other value."""
    attrs: list[str] = []
    while value is not None and value.kind == "attr" and value.attr:
        attrs.append(value.attr)
        value = value.receiver
    if value is None or value.kind != "call" or value.children or value.keywords:
        return None
    if not value.name or not all(part.isidentifier() for part in value.name.split(".")):
        return None
    return value.name, "".join(f".{a}" for a in reversed(attrs))


_STORES = ("assign", "buffer", "delete", "mutate")


def _new_may_set(new: FunctionFacts | None, name: str) -> bool:
    """Whether a class's ``__new__`` may set ``name`` on the instance it makes: it stores it
    on a local (``self = super().__new__(cls)``, ``self.<name> = ...``), reaches its
    ``__dict__``, runs a method of it or hands it to other code, which may set anything."""
    if new is None:
        return False
    body = new.load()
    if isinstance(body, BodyError):
        return True
    returned = {e.stmt for e in body.effects if e.kind == "return"}
    for e in body.effects:
        if e.kind == "objattr" and e.name.partition(".")[2] in (name, "__dict__"):
            return True
        if e.kind != "local_use" or e.stmt in returned:
            continue
        if e.target not in ("part", "fill") or e.detail.startswith("__dict__"):
            return True  # (a method run on it, the object handed on, its ``__dict__``)
    return False

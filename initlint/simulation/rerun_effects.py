"""A method of held modules run again over them (``for layer in self.layers:
layer.reset_parameters()``), when each module's own construction ran it already and changed
nothing it read since: every tensor that first run filled, on every path, and the
construction did not read or fill after, is filled anew. A ``rerun`` event per module built
by one expression, its ``inner_fills`` those tensors, named from the object
(``layers.*.fc.weight``); whether the class used the module in between is the rule's
question (``rules/refills.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from initlint.facts.model import BodyError, Effect, Expr, ItemTest
from initlint.facts.passes import is_visit
from initlint.index.records import Module
from initlint.simulation.coverage import CLASS_TESTS, ITEMS, covered, drawn_tensor, tested_classes
from initlint.simulation.levels import UNKNOWN
from initlint.simulation.pass_effects import DEPTH, PassEffects, last_fills
from initlint.simulation.records import (
    Event,
    Simulation,
    built_by,
    changed_since,
    choices_of,
    events_inside,
)
from initlint.simulation.run_state import EffectContext, Frame
from initlint.simulation.torch_knowledge import drawn_value, tensor_list
from initlint.simulation.values import TRUE

# (the name a module is reached by from the object, the store holding it, the call that
# built it when it is an item of a container, None for the stored value itself, and the
# status of the statement that put it there: an item appended under an undecided guard
# may not be there)
Walked = tuple[str, Event, Expr | None, str]


class RerunEffects(PassEffects):
    """Methods run again over the modules a loop walks."""

    def on_rerun_each(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        if ctx.shadow or frame.call.ancestor:
            return None
        walked = self._walked(ctx.effect, frame.call.fn.module)
        rebuilt: dict[str, frozenset[str]] = {}
        for reached in walked:
            if reached[2] is None:
                continue  # (a held module reached by a walk: its fills only)
            parts = self.rebuilt_parts(frame, ctx, reached)
            if isinstance(parts, BodyError):
                return parts
            rebuilt[reached[0]] = parts
        return self.rerun_fills(frame, ctx, walked, rebuilt)

    def rebuilt_parts(
        self, frame: Frame, ctx: EffectContext, reached: Walked
    ) -> BodyError | frozenset[str]:
        """The parts the method run again on the module reached (``self.block.reset()``, or
        an item of a container in ``for layer in self.layers: layer.reset()``) builds anew
        that the module's own construction built by running it: a ``rerun`` event naming
        those builds; their names."""
        prefix, holder, item, status = reached
        eff = ctx.effect
        rebuilt = self.simulator.rerun_builds(holder, eff.name, item)
        if isinstance(rebuilt, BodyError) or not rebuilt:
            return rebuilt if isinstance(rebuilt, BodyError) else frozenset()
        cost = max(p.cost for p in rebuilt)
        status = ctx.status if status == TRUE else status
        name = f"{prefix}.{eff.name}"
        ev = self.emit(
            frame, ctx.effect_index, eff, "rerun", name, status, ctx.flags, (), cost=cost
        )
        ev.holder, ev.inner = holder, rebuilt
        if item is not None:  # (the class of a container's items, as messages name them)
            made = self._reached_class(holder, item)
            ev.constructs = made[0] if made else ""
        return frozenset(p.name for p in rebuilt)

    def rerun_fills(
        self,
        frame: Frame,
        ctx: EffectContext,
        walked: list[Walked],
        rebuilt: Mapping[str, frozenset[str]] | None = None,
    ) -> BodyError | None:
        """A ``rerun`` event for each module reached whose construction's own run of the
        method called (``ctx.effect.name``) filled tensors still unread; not those of the
        parts it builds anew (``rebuilt``, by the name each module is reached by): a new
        part's tensors are new."""
        eff = ctx.effect
        for prefix, holder, item, status in walked:
            refills = self._refills(holder, item, eff.name, prefix)
            if isinstance(refills, BodyError):
                return refills
            anew = rebuilt.get(prefix, frozenset()) if rebuilt else frozenset()
            refills = tuple(r for r in refills if not _within(r[1], prefix, anew))
            if not refills:
                continue
            name = f"{prefix}.{eff.name}"
            cost = max(c for _, _, c, _ in refills)
            status = ctx.status if status == TRUE else status
            ev = self.emit(
                frame, ctx.effect_index, eff, "rerun", name, status, ctx.flags, (), cost=cost
            )
            ev.holder, ev.inner_fills = holder, refills
            made = self._reached_class(holder, item)
            ev.constructs = made[0] if made else ""  # (the class of the modules run again)
        return None

    def _walked(self, eff: Effect, module: Module) -> list[Walked]:
        """The modules the loop reaches, each passing the loop's tests: the items of the
        container walked (``iter``), or the modules the object holds (``children``; and
        the items of its containers for ``modules``)."""
        out: list[Walked] = []
        if eff.target == "iter":
            holder = self.last_assign.get(eff.detail)
            if holder is not None and holder.status == TRUE and not holder.shadow:
                items = self.items(holder, self.sim.events)
                out = [(f"{holder.name}.{k}", holder, i, st) for k, i, st in items]
        elif not eff.detail:  # (a walk of one held module's is not followed)
            if eff.target == "modules" and not self._excluded(self.sim.mro, module, eff.tests):
                return []  # (the walk yields the object first: its own method reads any)
            for holder in self.last_assign.values():
                if holder.status != TRUE or holder.shadow:
                    continue
                out.append((holder.name, holder, None, TRUE))
                if eff.target == "modules":
                    items = self.items(holder, self.sim.events)
                    out += [(f"{holder.name}.{k}", holder, i, st) for k, i, st in items]
            out = [w for w in out if self._module(w)]  # (what else it holds is not walked)
        return [w for w in out if self._passes(w, module, eff.tests)]

    def _module(self, walked: Walked) -> bool:
        """Whether what is reached is a module of a class known here."""
        _, holder, item, _ = walked
        return any(c.startswith("torch.nn") for c in self._reached_class(holder, item))

    def _reached_class(self, holder: Event, item: Expr | None) -> tuple[str, ...]:
        """The MRO of the module a walk reaches: the one ``holder`` stored, or the item of
        its container that ``item`` built; () when not known."""
        value = built_by(holder) if item is None else item
        return self.class_of(holder.fn.module, value) or ()

    def _excluded(
        self, classes: tuple[str, ...], module: Module, tests: tuple[ItemTest, ...]
    ) -> bool:
        """Whether some test of the loop (its names read in ``module``) fails, for sure, for
        a module of MRO ``classes``."""
        for test in tests:
            if test.kind not in CLASS_TESTS:
                continue
            tested = tested_classes(test, classes)
            answers = [self.is_a_class(tested, module, n) for n in test.names]
            if None in answers and True not in answers:
                continue
            if (True in answers) != test.truth:
                return True
        return False

    def _passes(self, walked: Walked, module: Module, tests: tuple[ItemTest, ...]) -> bool:
        """Whether every test of the loop (its names read in ``module``) holds for the
        module reached, for sure."""
        _, holder, item, _ = walked
        classes = self._reached_class(holder, item)
        for test in tests:
            if test.kind == "hasattr" and classes and test.truth:
                # (a method of the module's class: an attribute missing is not known so)
                if self.simulator.index.lookup_method(classes, test.names[0]) is None:
                    return False
                continue
            if test.kind not in CLASS_TESTS or not classes:
                return False
            tested = tested_classes(test, classes)
            answers = [self.is_a_class(tested, module, n) for n in test.names]
            if (True in answers) != test.truth or (None in answers and True not in answers):
                return False
        return True

    def _refills(
        self, holder: Event, item: Expr | None, method: str, prefix: str, depth: int = DEPTH
    ) -> tuple[tuple[int, str, int, Event], ...] | BodyError:
        """The tensors the module's construction filled in its own ``method()`` (on every
        path, nothing reading or filling them since): (the store, the tensor's name from
        the object, what filling it costs, that fill). An object of one of several classes
        (``Event.choices``): the tensors each one's construction fills so, at the cost of
        the cheapest."""
        choices = choices_of(holder, item)
        if not choices:
            return self._refills_of(holder, item, method, prefix, "", depth)
        each = []
        for choice in choices:
            if not choice:
                return ()  # (a class not known: what it fills is not known)
            found = self._refills_of(holder, item, method, prefix, choice, depth)
            if isinstance(found, BodyError) or not found:
                return found
            each.append(found)
        costs = [{name: cost for _, name, cost, _ in found} for found in each]
        return tuple(
            (index, name, min(c[name] for c in costs), fill)
            for index, name, _, fill in each[0]
            if all(name in c for c in costs)
        )

    def _refills_of(
        self,
        holder: Event,
        item: Expr | None,
        method: str,
        prefix: str,
        choice: str,
        depth: int,
    ) -> tuple[tuple[int, str, int, Event], ...] | BodyError:
        inner = self.simulator.object_simulation(holder, item, choice)
        if inner is None or isinstance(inner, BodyError):
            return () if inner is None else inner
        if inner.incomplete:
            return ()
        call = _own_call(inner, method)
        if call is None:
            handed = self._handed_on(inner, holder, method, prefix, depth)
            if handed:
                return handed
            return self._method_fills(inner, holder, method, prefix)
        if changed_since(inner.events, call):
            return ()
        inside = {e.index for e in events_inside(inner.events, call)}
        filled = {n: e for n, e in last_fills(inner, own_only=False).items() if e.index in inside}
        if not filled:
            return ()
        tensors = self.module_tensors(inner, "", DEPTH)
        if isinstance(tensors, BodyError):
            return tensors
        cost = {t.name: t.cost for t in tensors}
        # (the construction simulated for the object leaves its arguments unknown; the
        # build's own price read the sizes written where it was called)
        most = self.built_price(holder, item, prefix)
        return tuple(
            (holder.index, f"{prefix}.{n}", min(cost.get(n, UNKNOWN), most), e)
            for n, e in sorted(filled.items())
        )

    def _method_fills(
        self, inner: Simulation, holder: Event, method: str, prefix: str
    ) -> tuple[tuple[int, str, int, Event], ...] | BodyError:
        """A method the module's construction never ran that fills, whole and on every path,
        tensors the construction drew at random and did not read since (``def init_zero_(
        self): for w in self.weights: w.data.zero_()`` over ``randn`` weights): those draws
        are thrown away. Its whole fills of the object's own tensors and its passes over
        them count; anything else it does claims nothing."""
        fn = self.simulator.index.lookup_method(inner.mro, method)
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError):
            return () if not isinstance(body, BodyError) else body
        drawn = _drawn_fills(inner)
        if not drawn:
            return ()
        tensors = self.module_tensors(inner, "", DEPTH)
        if isinstance(tensors, BodyError):
            return tensors
        module = fn.module

        def is_a(classes: tuple[str, ...], name: str) -> bool | None:
            return self.is_a_class(classes, module, name)

        names: set[str] = set()
        for eff in body.effects:
            if eff.guard:
                continue  # (on some paths only)
            if eff.kind == "init" and eff.detail == "self" and eff.name:
                names.add(eff.name)
            elif eff.kind == "pass" and not is_visit(eff.detail):
                names |= {n for _, n, _ in covered(eff, eff.name, tensors, is_a)}
            elif eff.kind == "touch" and (eff.reads - eff.sized - set(names)) & set(drawn):
                return ()  # (it reads the numbers first)
        cost = {t.name: t.cost for t in tensors}
        return tuple(
            (holder.index, f"{prefix}.{n}", cost.get(n, UNKNOWN), drawn[n])
            for n in sorted(names)
            if n in drawn
        )

    def _handed_on(
        self, inner: Simulation, holder: Event, method: str, prefix: str, depth: int
    ) -> tuple[tuple[int, str, int, Event], ...] | BodyError:
        """A module whose construction did not run ``method``, where ``method`` hands the
        run on to modules it holds (``def reset_parameters(self): self.lin1.reset_parameters()``):
        what each of those runs fills anew (``_refills``), for a module its construction
        stored on every path and did not use after, nor the method before the call."""
        fn = self.simulator.index.lookup_method(inner.mro, method)
        body = fn.facts.load() if fn is not None and depth > 0 else None
        if body is None or isinstance(body, BodyError):
            return () if body is None else body
        out: list[tuple[int, str, int, Event]] = []
        read: set[str] = set()  # (by the statements before the one at hand)
        span, reading = None, set[str]()
        for eff in body.effects:
            if eff.stmt_span != span:
                read |= reading
                span, reading = eff.stmt_span, set()
            if eff.kind == "touch":
                reading |= eff.reads
            if eff.kind != "held_call" or eff.guard or "." in eff.target:
                continue
            if eff.target in read or "*" in read:
                continue
            part = _kept_part(inner, eff.target)
            if part is None:
                continue
            found = self._refills(part, None, eff.name, f"{prefix}.{eff.target}", depth - 1)
            if isinstance(found, BodyError):
                return found
            out += [(holder.index, name, cost, fill) for _, name, cost, fill in found]
        return tuple(out)


def _drawn_fills(sim: Simulation) -> dict[str, Event]:
    """The tensors a construction made of random draws, on every path (a ``ParameterList``'s
    items, appended too, when every item appended is drawn), not read or replaced after:
    their numbers are a fill as an initialisation's are (``init_zero_()`` after ``randn``)."""
    out: dict[str, Event] = {}
    for e in sim.events:
        if e.shadow:
            continue
        value = e.effect.value
        if e.kind in ("assign", "buffer", "delete", "nested"):
            for name in [n for n in out if n.split(".")[0] == e.name.split(".")[0]]:
                del out[name]
            if e.kind != "delete" and e.status == TRUE and value is not None:
                if drawn_value(value):
                    out[drawn_tensor(e.name, value)] = e
        elif e.kind == "mutate" and not e.effect.detail and value is not None:
            items = f"{e.name}.{ITEMS}"
            store = next((s for s in reversed(sim.events[: e.index]) if s.name == e.name), None)
            if drawn_value(value) and (items in out or _empty_list(store)):
                out[items] = e  # (one more drawn item of the list)
            else:
                out.pop(items, None)
        elif e.kind == "touch":
            read = e.effect.reads - e.effect.sized
            for name in [n for n in out if n.split(".")[0] in read or "*" in read]:
                del out[name]
    return out


def _empty_list(store: Event | None) -> bool:
    """Whether ``store`` made an empty tensor list on every path (``nn.ParameterList([])``)."""
    value = store.effect.value if store is not None else None
    if store is None or store.kind != "assign" or store.status != TRUE or value is None:
        return False
    if not tensor_list(value):
        return False
    items = value.children[0] if value.children else None
    return items is None or (items.kind == "op" and items.name == "tuple" and not items.children)


def _kept_part(sim: Simulation, name: str) -> Event | None:
    """The construction's last store of ``self.<name>``, made on every path, when nothing
    after it read, filled or replaced it."""
    stores = [e for e in sim.events if e.kind == "assign" and e.name == name and not e.shadow]
    if not stores or stores[-1].status != TRUE:
        return None
    store = stores[-1]
    for e in sim.events[store.index + 1 :]:
        if e.shadow:
            continue
        if e.name == name or e.name.startswith(f"{name}."):
            return None
        reads = e.effect.reads if e.kind == "touch" else frozenset[str]()
        if "*" in reads or name in reads:
            return None
        if e.kind in ("pass", "rerun"):
            return None  # (a walk over the object may reach it)
    return store


def _own_call(sim: Simulation, method: str) -> Event | None:
    """The construction's call of its own ``method`` that runs on every path."""
    return next(
        (
            e
            for e in sim.events
            if e.kind == "call"
            and e.name == method
            and e.effect.detail == "self"
            and e.status == TRUE
            and not e.shadow
            and e.callee is not None
        ),
        None,
    )


def _within(tensor: str, prefix: str, parts: frozenset[str]) -> bool:
    """Whether the tensor named ``tensor`` from the object lies in one of ``parts`` of the
    module reached as ``prefix``."""
    return any(tensor == f"{prefix}.{p}" or tensor.startswith(f"{prefix}.{p}.") for p in parts)

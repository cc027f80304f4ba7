"""IL005's second analysis: a tensor of ``self`` that an ancestor's code filled in place
(its initialisation pass: ``init.kaiming_uniform_(self.weight)`` in ``Linear.reset_parameters``)
and the class's own code fills again, every number of it, before anything reads it. The
ancestor's pass is thrown away: work that allocates nothing, priced as the tensor it fills.

A pass over the object (``for p in self.parameters(): if p.dim() > 1: xavier_uniform_(p)``,
``self.apply(fn)``) fills every tensor it covers for sure (``simulation/coverage.py``): a
fill of such a tensor just before it, by any code, is thrown away by it, and it is thrown
away by a fill of one just after it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from initlint.facts.passes import TENSOR_READERS, is_visit
from initlint.rules.base import RepeatFinding, confidence_of
from initlint.rules.discards import attribute_uses, covers, used_between
from initlint.simulation.coverage import ITEMS, LOAD, drawn_tensor
from initlint.simulation.levels import HEAVY, LIGHT, UNKNOWN
from initlint.simulation.records import (
    READ_ON_SOME,
    Event,
    Simulation,
    after_read,
    first_run,
    never_both,
    runs_whenever,
    walk_machinery,
)
from initlint.simulation.torch_knowledge import drawn_value
from initlint.simulation.values import TRUE

CODE = "IL005"
# Events that store the attribute anew: a fill before them filled another tensor.
_STORES = ("assign", "buffer", "delete")


def find_refills(sim: Simulation) -> list[RepeatFinding]:
    """One finding per own fill of a whole attribute that an ancestor's fill of it, not read
    since, precedes."""
    # (a fill statement reads the tensor it fills: that read is no use of its numbers; its
    # other reads are, ``self.proj.weight.data.copy_(self.weight)``)
    # (so are a pass's reads of what it walks, an append's of its container, and a store's
    # of the held modules it makes a container of, or of the held tensors it hands to a
    # constructor that ties them in: each keeps them as they are)
    filling: dict[tuple[int, object], set[str]] = {}
    for e in sim.events:
        at = (e.frame, e.effect.stmt_span)
        if e.kind == "init":
            filling.setdefault(at, set()).add(e.name.split(".")[0])
        elif e.kind == "pass":
            filling.setdefault(at, set()).update(n.split(".")[0] for _, n, _ in e.covers)
        elif e.kind == "mutate" and not e.effect.detail:
            filling.setdefault(at, set()).add(e.name)
        elif e.holds or e.handed:
            filling.setdefault(at, set()).update(e.holds | e.handed)
    filled: dict[str, Event] = {}  # attribute -> its latest whole fill (ancestor's or own) unread
    # attribute -> the reads of that fill that run on some paths only (``_read``)
    some: dict[str, list[Event]] = {}
    arms: dict[str, list[Event]] = {}  # attribute -> those fills, on arms that never both run
    built: dict[str, Event] = {}  # attribute -> the store that made what it holds
    # attribute -> its latest store, nothing having used it since: of a module wrapped in a
    # reparametrisation (``Event.recomputed``), of a container of such (``Event.wraps``)
    wrapped: dict[str, Event] = {}
    out: list[RepeatFinding] = []
    passes = _Passes(sim, out)
    walking = walk_machinery(sim.events)
    for e in sim.events:
        if e.shadow or e.index in walking:
            continue
        passes.see(e, filling)
        if e.kind == "pass":
            for _, name, _ in e.covers:
                filled.pop(name, None)  # (``passes`` reports it: the pass fills it again)
            if not e.ancestor:
                out.extend(_lost_to_wraps(sim, e, wrapped))
            continue
        if e.kind == "init" and "." in e.name:  # a part of a held module
            holder, _, part = e.name.partition(".")
            store = wrapped.get(holder)
            first = filled.pop(e.name, None)
            if first is not None and _read_before(some, e):
                first = None  # (read wherever this fill runs)
            if store is not None and store.recomputed is not None:
                if store.recomputed[1] == part and not e.ancestor:
                    out.append(_recomputed(sim, store, e))
            elif not e.ancestor and not _called_again(sim, e):
                found = passes.held_refill(e)
                if not found and first is not None and not never_both(first, e):
                    found = [_part_finding(sim, first, e)]  # (an earlier fill of it)
                out.extend(found)
            filled[e.name] = e  # (the class's own fills too: a later one throws it away)
            some.pop(e.name, None)
            continue
        if e.kind == "init":
            first = filled.get(e.name)
            if first is not None and _read_before(some, e):
                first = None  # (read wherever this fill runs)
            some.pop(e.name, None)
            if e.ancestor:
                # (fills on the arms of a branch, ``if ...: w.copy_(t)`` / ``else:
                # init.kaiming_uniform_(w)``: together they may fill it on every path)
                same = arms.get(e.name, []) if first is not None else []
                arms[e.name] = [*same, e] if all(never_both(p, e) for p in same) else [e]
                filled[e.name] = e
            else:
                if first is not None and not never_both(first, e) and not _called_again(sim, e):
                    fills = arms.get(e.name, []) if arms.get(e.name, [])[-1:] == [first] else []
                    every = len(fills) > 1 and covers(sim, e, fills)
                    out.append(_finding(sim, first, e, built.get(e.name), every))
                # (the class's own fill: a later one of its own throws it away)
                filled[e.name], arms[e.name] = e, [e]
            continue
        if e.kind in _STORES:
            _read(filled, set(e.reads - e.holds - e.handed) - {e.name}, e, some)
            _forget(filled, {e.name})
            built[e.name] = e
            wrapped[e.name] = e  # (a container may be given wrapped items after)
            if e.status == TRUE and drawn(e):
                filled[e.name] = e  # (``nn.Parameter(torch.randn(a, b))``: a fill)
            continue
        if e.kind == "mutate" and not e.effect.detail and e.name in wrapped:
            # (an item appended: the container and its items' wraps go on, with its own)
            for name in set(e.reads) - {e.name}:
                wrapped.pop(name, None)
            if e.wraps:  # (the append is then where the note points: the wrap is there)
                wrapped[e.name] = replace(e, wraps=(*wrapped[e.name].wraps, *e.wraps))
            continue
        used = set(attribute_uses(e, sim.mro))
        if e.kind == "touch":
            used -= filling.get((e.frame, e.effect.stmt_span), set())
            used -= e.effect.sized  # (``len(self.ups)``: what it is, not its numbers)
        if "*" in used:
            wrapped.clear()  # (``remove_weight_norm(self.conv)`` may undo the wrap)
        _read(filled, used, e, some)
        for name in used:
            wrapped.pop(name, None)
    out.extend(_method_refills(sim))
    return out


def _method_refills(sim: Simulation) -> list[RepeatFinding]:
    """A method run again over held modules whose constructions ran it (``rerun`` events
    with fills), nothing having used, changed or filled a module since it was stored (nor
    moved or cast it: that copies its numbers): what the first run filled is thrown away.
    One finding per loop statement (or call), naming the tensors of every module."""
    at: dict[tuple[int, int], list[Event]] = {}  # (each loop's call: the modules it reaches)
    some: dict[int, list[Event]] = {}  # (each rerun: the uses before it on some paths only)
    for e in sim.events:
        holder = e.holder
        if e.kind != "rerun" or holder is None or e.shadow or not e.inner_fills:
            continue
        if holder.moved or never_both(holder, e) or _changed_between(sim, holder, e):
            continue
        used_on_some: list[Event] = []
        if used_between(sim, holder, e, some=used_on_some) or _called_again(sim, e):
            continue
        at.setdefault((e.frame, e.effect_index), []).append(e)
        some[e.index] = used_on_some
    out: list[RepeatFinding] = []
    for reruns in at.values():
        fills = sorted(
            (f for e in reruns for f in e.inner_fills if not _held_read_kept(f[3], e)),
            key=lambda f: (f[3].index, f[1]),
        )
        if not fills:
            continue
        _, _, cost, first = max(fills, key=lambda f: f[2])
        e = next(e for e in reruns if any(f[3] is first for f in e.inner_fills))
        assert e.holder is not None  # (kept above)
        names = [name for _, name, _, _ in fills]
        method = e.name.rpartition(".")[2]
        if first_run(e):  # (draws the construction made: the method fills over them)
            what = _drawn_what(names)
            no_fix = (
                f"{_owner_name(first)}'s construction draws them at random and `{method}()` "
                "fills them: make them with `torch.empty(...)` there, or fill them once"
            )
        else:
            what = "the initialisation of " + _listed(names)
            no_fix = (
                f"{_owner_name(first)}'s construction already fills them, in its "
                f"`{first.fn.qualname.rpartition('.')[2]}()`: run `{method}()` once, or "
                "keep it out of the construction"
            )
        used_on_some = [x for r in reruns for x in some[r.index]]
        confidence = confidence_of(e, e.holder, first, *used_on_some)
        out.append(
            RepeatFinding(
                CODE, sim, e, first, confidence, what, cost=max(cost, LIGHT), no_fix=no_fix
            )
        )
    return out


def _changed_between(sim: Simulation, holder: Event, e: Event) -> bool:
    """Whether a part of the module ``holder`` stored was set (``self.one.frozen = True``,
    which its method may read) or one of its tensors filled (a pass, a fill, another
    rerun: the later fill is the one ``e`` throws away) between the store and ``e``."""
    root = holder.name
    names = {n for _, n, _, _ in e.inner_fills}
    for x in sim.events[holder.index + 1 : e.index]:
        if x.shadow:
            continue
        if x.kind == "nested" and x.name.split(".")[0] == root:
            return True
        filled = {x.name, x.effect.target} if x.kind == "init" else set()
        if x.kind == "pass":
            filled = {n for _, n, _ in x.covers}
        if x.kind in ("pass", "rerun"):
            filled |= {n for _, n, _, _ in x.inner_fills}
        if filled & names:
            return True
    return False


class _Passes:
    """Whole fills of the object's tensors and passes over it, set against each other: a
    fill that a pass covering its tensor follows, or that follows such a pass, nothing
    having read the tensor (or replaced what holds it) in between."""

    def __init__(self, sim: Simulation, out: list[RepeatFinding]) -> None:
        self.sim, self.out = sim, out
        # tensor -> its latest whole fill and the store that made it (or its module)
        self.pending: dict[str, tuple[Event, Event]] = {}
        # tensor -> the reads of its pending fill made on some paths only
        self.pending_reads: dict[str, list[Event]] = {}
        # each pass, and the attributes read or stored since (``*``: any), or the tensors
        # filled since (whose numbers are no longer the pass's)
        self.passes: list[tuple[Event, set[str]]] = []
        self.refilled: dict[int, set[str]] = {}
        # the statements that run a pass: the reads of their heads are the walk's own, and
        # so is the read of the one module they walk (``self.encoder.modules()``)
        self.walking: dict[tuple[int, object], set[str]] = {}
        for e in sim.events:
            if e.kind == "pass":
                scope = e.fill.detail if e.fill is not None and not is_visit(e.fill.detail) else ""
                # (the attribute of the object read to walk it: ``transformer`` for
                # ``self.transformer.h``)
                held = scope.partition(".")[0]
                self.walking.setdefault((e.frame, e.effect.stmt_span), set()).add(held)
        self.built: dict[str, Event] = {}  # attribute -> its latest store
        # attribute -> its first store: the order torch keeps its modules in (a walk over
        # them visits them so; storing one again keeps its place)
        self.first_store: dict[str, int] = {}
        for e in sim.events:
            if e.kind == "assign" and not e.shadow:
                self.first_store.setdefault(e.name, e.index)
        # attribute -> its latest store, while nothing has read or replaced it (its
        # object's own fills then hold, ``Event.inner_fills``)
        # (stores on branches that never both run are each the latest on theirs)
        self.clean: dict[str, list[Event]] = {}
        # the events that read or replaced each attribute ("*": every one) since it was
        # stored: one on a branch that never runs with a later pass leaves the store clean
        # for that pass (``if mup: <walk>`` / ``else: self.apply(init)``)
        self.reads: dict[str, list[Event]] = {}
        self.current: Event | None = None
        # the finding at each pass statement (frame, top-level statement: a loop's fills
        # are one pass), the fills it is about and the uses that keep some on some paths
        self.merged: dict[
            tuple[int, object],
            tuple[RepeatFinding, list[tuple[int, str, Event, Event]], list[Event]],
        ]
        self.merged = {}
        # (a held module's own fill of a tensor, by its event, that a pass on every path
        # with it has already thrown away: a later pass throws away that pass's fill)
        self.spent: set[tuple[int, str]] = set()
        # (the finding at each fill statement, the pass whose fills it throws away, and the
        # tensors and their stores: one finding however often the statement runs)
        self.fills_at: dict[
            tuple[int, object], tuple[RepeatFinding, Event, list[str], list[Event]]
        ] = {}

    def see(self, e: Event, filling: dict[tuple[int, object], set[str]]) -> None:
        self.current = e
        if e.kind == "pass":
            self._pass(e)
        elif e.kind == "init" and e.name:
            self._fill(e)
        elif e.kind == "init":  # a part of a tensor filled: the rest of the earlier fill stays
            self._used({e.effect.target.split(".")[0]})
        elif e.kind in _STORES:
            self._stored(e)
        else:
            used = set(attribute_uses(e, self.sim.mro))
            if _put_at_end(e):
                used.discard(e.name)  # (an item put in: nothing the container holds is read)
            if e.kind == "touch":
                at = (e.frame, e.effect.stmt_span)
                used -= filling.get(at, set())
                used -= self.walking.get(at, set())
                used -= e.effect.sized
                if used & TENSOR_READERS and at not in self.walking:
                    used = {"*"}  # (``self.state_dict()``, not followed: it reads any)
            self._used(used)

    def _fill(self, fill: Event) -> None:
        name = fill.name
        root = name.split(".")[0]
        store = self.built.get(root)
        if store is None:
            return
        for done, used in reversed(self.passes):
            if root in used or "*" in used or name in self.refilled.setdefault(done.index, set()):
                break
            cost = _covered(done, store, name)
            if cost is not None and not never_both(done, fill) and not self._again(fill):
                self._refilled(done, fill, name, cost, store)
                break
        for done, _ in self.passes:
            self.refilled.setdefault(done.index, set()).add(name)
        self.pending[name] = (fill, store)
        self.pending_reads.pop(name, None)

    def _refilled(self, done: Event, fill: Event, name: str, cost: int, store: Event) -> None:
        """The pass ``done``'s fill of ``name`` thrown away by ``fill``: one finding per
        statement, for every tensor it fills so (a loop written out once per item, ``for e
        in [self.e1, self.e2]: init(e.fc.weight)``: each item's), priced by the costliest."""
        at = (fill.frame, fill.effect.span)
        merged = self.fills_at.get(at)
        names, stores = [name], [store]
        place = len(self.out)
        if merged is not None and merged[1] is done:
            place = next((i for i, f in enumerate(self.out) if f is merged[0]), place)
        if merged is not None and place < len(self.out):
            names, stores = [*merged[2], name], [*merged[3], store]
            cost = max(cost, self.out[place].cost)
            del self.out[place]
        found = _pass_finding(self.sim, done, fill, names, cost, *stores)
        self.out.insert(place, found)
        self.fills_at[at] = (found, done, names, stores)

    def _pass(self, done: Event) -> None:
        # (one finding at the pass for all it fills again: the costliest fill is the note)
        hits: list[tuple[int, str, Event, Event]] = []  # (cost, name, fill, what made it)
        at = (done.frame, done.effect_index)
        for name, (fill, store) in list(self.pending.items()):
            if self._tied(name, fill, done, store):
                del self.pending[name]
                continue
            if fill.kind == "pass" and (fill.frame, fill.effect_index) == at:
                continue  # (one ``apply``'s fills of different modules: one pass)
            if fill.kind == "pass" and fill.fill == done.fill:
                continue  # (the same pass run again: the repeated call is IL002's)
            if any(runs_whenever(r, done) for r in self.pending_reads.get(name, ())):
                del self.pending[name]  # (read wherever the pass runs)
                continue
            cost = _covered(done, store, name)
            if cost is not None and not never_both(fill, done) and not self._again(done):
                hits.append((cost, name, fill, store))
                del self.pending[name]
        used_on_some: list[Event] = []  # (uses that keep the held fills on those paths)
        for index, name, cost, own in done.inner_fills:  # (a held module's own fills)
            if _held_read_kept(own, done) or (own.index, name) in self.spent:
                continue
            held = self._holder(name, index, done)
            if held is not None and not never_both(held[0], done):
                if not self._again(done):
                    hits.append((cost, name, own, held[0]))
                    used_on_some += held[1]
                    if runs_whenever(done, own):
                        self.spent.add((own.index, name))
        if hits:
            # (the fills of one ``apply`` are events of one statement, and those of one
            # loop's body of one top-level statement: one finding, at the first of them)
            loop = (done.frame, done.effect.stmt_span)
            merged = self.merged.get(loop)
            at_pass = done
            if merged is not None and self.out and self.out[-1] is merged[0]:
                hits += merged[1]
                used_on_some += merged[2]
                at_pass = self.out.pop().event
            hits.sort(key=lambda h: (h[2].index, h[1]))  # (the first costliest is the note)
            cost, _, fill, _ = max(hits, key=lambda h: h[0])
            names = list(dict.fromkeys(h[1] for h in hits))  # (merged passes share names)
            stores = [h[3] for h in hits]
            read = [h[2] for h in hits if h[2].possibly == READ_ON_SOME]
            found = _pass_finding(
                self.sim, fill, at_pass, names, cost, *stores, *read, *used_on_some
            )
            self.out.append(found)
            self.merged[loop] = (self.out[-1], hits, used_on_some)
        self.passes.append((done, set()))
        for index, name, _ in sorted(done.covers):  # (a later pass may fill them again)
            made = self.built.get(name.split(".")[0])
            if made is not None and made.index == index:
                self.pending[name] = (done, made)
                self.pending_reads.pop(name, None)

    def held_refill(self, fill: Event) -> list[RepeatFinding]:
        """A whole fill of a held module's tensor that the module's own construction filled
        (``Event.inner_fills``), the module not read or replaced since: that fill is thrown
        away."""
        for index, name, cost, own in fill.inner_fills:
            if _held_read_kept(own, fill):
                continue
            held = self._holder(name, index, fill)
            if held is not None and not never_both(held[0], fill):
                return [_pass_finding(self.sim, own, fill, [name], cost, held[0], *held[1])]
        return []

    def _stored(self, e: Event) -> None:
        # (what the value reads, through locals too: ``w = self.fc.weight`` earlier, then
        # ``self.register_buffer("w0", w.clone())``)
        self._used(set(e.reads) - e.handed - {e.name})
        for name, (fill, _) in list(self.pending.items()):
            if name.split(".")[0] == e.name and not never_both(fill, e):
                del self.pending[name]
        for done, used in self.passes:
            if not never_both(done, e):
                used.add(e.name)
        self.built[e.name] = e
        if e.status == TRUE and drawn(e):  # (random draws: the tensor is filled already)
            assert e.effect.value is not None  # (``drawn``)
            self.pending[drawn_tensor(e.name, e.effect.value)] = (e, e)
            self.pending_reads.pop(drawn_tensor(e.name, e.effect.value), None)
        branches = self.clean.get(e.name, [])
        if not all(never_both(b, e) for b in branches):
            branches = []
        self.clean[e.name] = [*branches, e]

    def _holder(self, name: str, index: int, at: Event) -> tuple[Event, list[Event]] | None:
        """The store ``index``, when it is the latest of the attribute ``name`` is a part
        of on its branch, and nothing that runs on every path with ``at`` has read or
        replaced what it made since; with the reads since that run on some paths only: on
        the others the module's own fills are still thrown away."""
        root = name.split(".")[0]
        h = next((h for h in self.clean.get(root, []) if h.index == index), None)
        if h is None:
            return None
        since = [*self.reads.get(root, ()), *self.reads.get("*", ())]
        between = [r for r in since if r.index > h.index and not never_both(r, at)]
        return None if any(runs_whenever(r, at) for r in between) else (h, between)

    def _used(self, names: set[str]) -> None:
        if not names:
            return
        if self.current is not None:
            for name in names:
                self.reads.setdefault(name, []).append(self.current)
        at = self.current
        for name, (fill, store) in list(self.pending.items()):
            if name.split(".")[0] in names or "*" in names:
                if at is None or (after := after_read(fill, at)) is None:
                    del self.pending[name]
                else:
                    self.pending[name] = (after, store)
                    self.pending_reads.setdefault(name, []).append(at)
        for _, used in self.passes:
            used |= names

    def _again(self, e: Event) -> bool:
        return _called_again(self.sim, e)

    def _tied(self, name: str, fill: Event, done: Event, store: Event) -> bool:
        """Whether ``fill`` and ``done``, two fills of one walk over the modules (one
        ``apply``, or one loop's body), reach the tensor ``name`` through two modules: the
        one that holds it, and one it was tied into (``Event.tied``); then the walk fills it
        once through each, and the fill through the module registered first (which the
        walk visits first) is thrown away: that finding is made."""
        if fill.kind != "pass" or fill.fill == done.fill or self._again(done):
            return False
        if (fill.frame, fill.effect.stmt_span) != (done.frame, done.effect.stmt_span):
            return False
        ties = [dict(e.tied).get(name) for e in (fill, done)]
        index = ties[0] if ties[1] is None else ties[1]
        if index is None or None not in ties:
            return False  # (both through one module: not the tie's doing)
        tie = self.sim.events[index]
        if never_both(tie, fill) or never_both(tie, done) or never_both(fill, done):
            return False
        cost = _covered(done, store, name)  # (``fill``'s is pending: it covers the tensor)
        if cost is None:
            return False
        first, again = (fill, done) if ties[1] is not None else (done, fill)
        holder = tie.name.split(".")[0]
        if self.first_store.get(holder, -1) < self.first_store.get(name.split(".")[0], -1):
            first, again = again, first  # (the module it was tied into comes first)
        self.out.append(_tied_finding(self.sim, first, again, [name], cost, tie, (store, tie)))
        return True


def pass_walk(e: Event) -> str:
    """How a ``pass`` event walks the object, as its code says it: "a pass over
    `self.parameters()`", "a pass over `self.encoder.modules()`", "a pass over
    `self.apply(...)`", "the state loaded by `self.load_state_dict(...)`"."""
    scope = e.fill.detail if e.fill is not None and not is_visit(e.fill.detail) else ""
    held = f"self.{scope}" if scope else "self"
    if e.name == LOAD:
        return f"the state loaded by `{held}.load_state_dict(...)`"
    if e.name == "children" and scope:  # (``for w in self.weights``: its items)
        return f"a loop over the items of `{held}`"
    return f"a pass over `{held}.{e.name}" + ("(...)`" if e.name == "apply" else "()`")


def _covered(done: Event, store: Event, name: str) -> int | None:
    """What filling ``name``, made by ``store``, costs, when the pass ``done`` covers it;
    None when it does not for sure."""
    # (items of one container built by different calls may price one name differently)
    costs = [c for s, n, c in done.covers if s == store.index and n == name]
    return max(costs) if costs else None


def _pass_finding(
    sim: Simulation, first: Event, again: Event, names: list[str], cost: int, *made: Event
) -> RepeatFinding:
    """Fills of ``self.<name>`` (each of ``names``) thrown away by the next (one of them a
    pass; ``first`` the costliest of those before it); ``made`` the stores of the tensors
    (or of their modules): one made on some paths only makes the finding ``possible``."""
    if again.kind == "pass" and again.name == LOAD:
        advice = "the loaded state replaces what was filled: initialise only when none is loaded"
    elif first.kind == "pass" and first.name == LOAD:
        advice = "this fill replaces the loaded state: drop it, or fill before loading"
    elif first.kind == "init" and first.fn.owner is None and not own_fill(sim, first):
        # (a function's fill: the factory that built the object, ``returned_fills``)
        advice = (
            f"`{first.fn.qualname.rsplit('.', 1)[-1]}()` fills "
            + ("it" if len(names) == 1 else "them")
            + " as it builds the object, for its other callers too: fill once, there or here"
        )
    elif again.kind == "pass" and (first.ancestor or first.external or _elsewhere(sim, first)):
        advice = (
            f"the first fill runs in {_owner_name(first)}'s code, for its other users too: "
            + (
                "keep the tensor out of the pass"
                if len(names) == 1
                else "keep them out of the pass"
            )
        )
    elif again.kind == "pass" and first.kind == "pass":
        advice = (
            "another pass fills it first: keep the tensor out of one of them"
            if len(names) == 1
            else "another pass fills them first: keep the tensors out of one of them"
        )
    elif again.kind == "pass":
        advice = (
            "the pass fills it again: drop the fill before it, or keep the tensor out of it"
            if len(names) == 1
            else "the pass fills them again: drop the fills before it, or keep the tensors out"
        )
    elif first.kind == "init":  # (a held module's own fill: ``held_refill``)
        advice = (
            f"{_owner_name(first)}'s construction fills it first: have it make the values "
            "wanted (an argument of its constructor), or drop this fill"
        )
    elif len(names) == 1:
        advice = "the pass fills it first: keep the tensor out of the pass, or drop this fill"
    else:
        advice = "the pass fills them first: keep the tensors out of the pass, or drop this fill"
    if first.kind in _STORES and again.kind == "pass":  # (``nn.Parameter(torch.randn(...))``)
        return _fill_finding(
            sim,
            first,
            again,
            max(cost, LIGHT),
            _drawn_what(names),
            "the tensor is drawn at random and then filled: make it with `torch.empty(...)`, "
            "which the pass overwrites anyway",
        )
    return RepeatFinding(
        CODE,
        sim,
        again,
        first,
        confidence_of(first, again, *made),
        "the initialisation of " + _listed(names),
        cost=max(cost, LIGHT),
        no_fix=advice,
    )


def _tied_finding(
    sim: Simulation,
    first: Event,
    again: Event,
    names: list[str],
    cost: int,
    tie: Event,
    made: tuple[Event, ...],
) -> RepeatFinding:
    """A tensor one walk over the modules fills twice, through the module that holds it and
    through the one it was tied into (``tie``): the first fill is thrown away."""
    what = (
        f"the initialisation of {_listed(names)} (tied into `self.{tie.name}`, so the pass "
        "reaches it through both modules)"
    )
    advice = (
        "the pass fills a tied tensor once through each module that holds it: skip it in one "
        "of them, or tie the weights after the pass"
    )
    confidence = confidence_of(first, again, *made)
    return RepeatFinding(
        CODE, sim, again, first, confidence, what, cost=max(cost, LIGHT), no_fix=advice
    )


def _elsewhere(sim: Simulation, e: Event) -> bool:
    """Whether ``e`` runs in another class's code than the one constructed and its
    ancestors (a held module's own ``__init__``)."""
    owner = e.fn.owner
    return owner is not None and owner.qualname not in sim.mro


def _drawn_what(names: list[str]) -> str:
    """How a finding names the draws of the tensors ``names``, thrown away."""
    return f"the random values {_listed(names)} {'were' if _several(names) else 'was'} made with"


def _several(names: list[str]) -> bool:
    """Whether ``names`` are more than one tensor (a tensor list's items are)."""
    return len(names) > 1 or names[0].endswith(f".{ITEMS}")


def _listed(names: list[str]) -> str:
    """```self.a```, ```self.a` and `self.b```, ```self.a`, `self.b` and 2 more```; a tensor
    list's items as "the items of `self.a`"."""
    shown = [
        f"the items of `self.{n[: -len(ITEMS) - 1]}`" if n.endswith(f".{ITEMS}") else f"`self.{n}`"
        for n in names
    ]
    if len(shown) > 3:
        return f"{shown[0]}, {shown[1]} and {len(shown) - 2} more"
    return joined(shown)


def joined(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _called_again(sim: Simulation, e: Event) -> bool:
    """Whether ``e`` runs in a method the ancestors called too (``self.reset_parameters()``
    again): the whole call is the repeat, IL002's."""
    ancestors_called = {
        c.callee.qualname for c in sim.events if c.kind == "call" and c.ancestor and c.callee
    }
    parent = e.parent
    while parent is not None:
        call = sim.events[parent]
        if call.kind == "call" and call.callee is not None:
            if call.callee.qualname in ancestors_called:
                return True
        parent = call.parent
    return False


def drawn(e: Event) -> bool:
    """Whether the store ``e`` makes its tensor from random draws (``drawn_value``)."""
    value = e.effect.value
    return value is not None and drawn_value(value)


def _finding(
    sim: Simulation, first: Event, again: Event, store: Event | None, every: bool = False
) -> RepeatFinding:
    """The earlier fill ``first`` of ``self.<name>`` (an ancestor's pass, or the class's own
    fill), filled again by ``again``: priced as what the tensor is (the store that made it),
    unknown when no store shows it. Or the class's own store ``first`` of random draws,
    filled again before any read. ``every``:
    the ancestor's fills on the arms of a branch, ``first`` one of them, fill it on every
    path ``again`` runs on."""
    cost = store.cost if store is not None else UNKNOWN
    if first.kind in _STORES:
        what = _drawn_what([again.name])
        no_fix = (
            "the tensor is drawn at random and then filled: make it with "
            "`torch.empty(...)`, which the fill overwrites anyway"
        )
        return _fill_finding(sim, first, again, cost, what, no_fix)
    return _earlier_fill(sim, first, again, cost, "pass", every)


def _part_finding(sim: Simulation, first: Event, again: Event) -> RepeatFinding:
    """An earlier fill of a part of a held module (``self.fc.weight``), filled again by
    ``again``: priced as that tensor."""
    return _earlier_fill(sim, first, again, again.part_cost, "fill")


def own_fill(sim: Simulation, e: Event) -> bool:
    """Whether the fill ``e`` is one of the class's own code's (not an ancestor's, nor one
    a held module's construction made)."""
    if e.ancestor or e.index >= len(sim.events):
        return False
    x = sim.events[e.index]  # (or a copy of it, ``_read_on_some``'s)
    return x is e or (x.effect is e.effect and x.frame == e.frame and x.fn is e.fn)


def _earlier_fill(
    sim: Simulation, first: Event, again: Event, cost: int, kind: str, every: bool = False
) -> RepeatFinding:
    """The fill ``first`` (an ancestor's, or the class's own) thrown away by ``again``."""
    no_fix = (
        "both fills are the class's own: keep the one that should stand"
        if own_fill(sim, first)
        else f"the first {kind} runs in {_owner_name(first)}'s code, for its other users "
        "too: switch it off there, or fill the tensor once"
    )
    what = f"the initialisation of `self.{again.name}`"
    return _fill_finding(sim, first, again, cost, what, no_fix, every)


def _fill_finding(
    sim: Simulation,
    first: Event,
    again: Event,
    cost: int,
    what: str,
    no_fix: str,
    every: bool = False,
) -> RepeatFinding:
    """A fill thrown away by ``again``: at least light; definite where ``again`` is and
    the first fill, or one of its arms, runs on ``every`` path."""
    confidence = confidence_of(again) if every else confidence_of(first, again)
    return RepeatFinding(
        CODE, sim, again, first, confidence, what, cost=max(cost, LIGHT), no_fix=no_fix
    )


def _read(fills: dict[str, Event], names: set[str], e: Event, some: dict[str, list[Event]]) -> None:
    """The fills of ``names`` (a tensor, or a module with its parts; anything, with ``*``)
    read by ``e``: gone where ``e`` runs whenever the fill does; else each stands on the
    paths without the read, possibly (``if probe: s = self.w.sum()``), the read kept in
    ``some`` for the fill that may come after it (``_read_before``)."""
    for name, fill in list(fills.items()):
        if "*" in names or name.split(".")[0] in names:
            after = after_read(fill, e)
            if after is None:
                del fills[name]
                some.pop(name, None)
            else:
                fills[name] = after
                some.setdefault(name, []).append(e)


def _read_before(some: dict[str, list[Event]], fill: Event) -> bool:
    """Whether a read of ``fill``'s tensor made on some paths only runs wherever ``fill``
    does (``if probe: s = self.w.sum(); nn.init.zeros_(self.w)``): on its every path the
    earlier fill was read."""
    return any(runs_whenever(r, fill) for r in some.get(fill.name, ()))


def _held_read_kept(own: Event, later: Event) -> bool:
    """A held module's own fill read on some paths of its construction, filled again only
    on some paths of the holder's: whether those paths meet is not told across the two
    constructions, so the fill counts as read."""
    return own.possibly == READ_ON_SOME and later.status != TRUE


def _forget(filled: dict[str, Event], names: Iterable[str]) -> None:
    """Drop the fills of the attributes ``names`` (a tensor, or a module with its parts)."""
    for name in names:
        filled.pop(name, None)
        for key in [k for k in filled if k.partition(".")[0] == name]:
            del filled[key]


def _owner_name(e: Event) -> str:
    """The class whose code ran ``e`` (``Linear``), "an ancestor" when none is known."""
    owner = e.fn.owner
    return owner.qualname.rsplit(".", 1)[-1] if owner is not None else "an ancestor"


def _lost_to_wraps(
    sim: Simulation, fill: Event, wrapped: dict[str, Event]
) -> Iterator[RepeatFinding]:
    """A pass filling parts that a reparametrisation computes anew: of a module stored
    wrapped (``self.conv = weight_norm(...)``), or of the wrapped items of a container
    (``nn.ModuleList([weight_norm(...), ...])``), nothing having used it since. One finding
    for the pass, naming the tensors; the first store wrapping one is its note."""
    lost: list[tuple[str, Event, tuple[str, str]]] = []
    for _, name, _ in sorted(fill.covers):
        head, _, rest = name.partition(".")
        store = wrapped.get(head)
        if store is None:
            continue
        wrap = store.recomputed
        if wrap is None or rest != wrap[1]:
            key, _, part = rest.partition(".")
            wrap = next(((w, p) for k, w, p in store.wraps if k == key and p == part), None)
        if wrap is not None:
            lost.append((name, store, wrap))
    if not lost:
        return
    lost.sort(key=lambda x: (x[1].index, x[0]))
    _, store, wrap = lost[0]
    shown = [f"`self.{name}`" for name, _, _ in lost]
    what = joined(shown)
    first = store if store.recomputed == wrap else replace(store, recomputed=wrap)
    yield RepeatFinding(
        CODE,
        sim,
        fill,
        first,
        confidence_of(store, fill),
        f"the initialisation of {what}",
        cost=max(_part_cost(s, w[1]) for _, s, w in lost),
        no_fix=(
            f"{wrap[0]} computes `{wrap[1]}` anew from its own parameters: initialise the "
            f"module's `{wrap[1]}` before wrapping it, or the parameters {wrap[0]} made"
        ),
    )


def _recomputed(sim: Simulation, store: Event, fill: Event) -> RepeatFinding:
    """``self.conv = weight_norm(nn.Conv1d(...))``, then the class fills ``self.conv.weight``,
    nothing having used ``self.conv`` in between: the wrapper computes that part anew from
    its own parameters, so the fill never reaches them and is lost."""
    assert store.recomputed is not None  # (the caller's test)
    wrapper, part = store.recomputed
    return RepeatFinding(
        CODE,
        sim,
        fill,
        store,
        confidence_of(store, fill),
        f"the initialisation of `self.{fill.name}`",
        cost=_part_cost(store, part),
        no_fix=(
            f"{wrapper} computes `{part}` anew from its own parameters: initialise the "
            f"module's `{part}` before wrapping it, or the parameters {wrapper} made"
        ),
    )


def _part_cost(store: Event, part: str) -> int:
    """A module's ``weight`` is priced as the module the store built when that is heavy (the
    weight of a layer with parameters), unknown when the store only wrapped a module built
    before (``weight_norm(self.conv)``); any other part (a bias) as light."""
    if part != "weight":
        return LIGHT
    return store.cost if store.cost >= HEAVY else UNKNOWN


def _put_at_end(e: Event) -> bool:
    """``self.blocks.append(Block(d))``, ``extend``, ``+=``: items added after those the
    container holds, made of nothing it holds; none of them is read or replaced."""
    return (
        e.kind == "mutate"
        and not e.effect.detail
        and e.effect.target in ("append", "extend", "+=")
        and e.name not in e.reads
    )

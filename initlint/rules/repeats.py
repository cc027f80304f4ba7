"""The repeat analysis IL001-IL003 share: ancestor work a class does again, read from one
simulation (computed once per simulation, ``rules/analyses.py``)."""

from __future__ import annotations

from collections.abc import Iterator

from initlint.facts.function_reader import LOOP_COND
from initlint.facts.model import Cond
from initlint.rules.base import RepeatFinding, confidence_of, method_label
from initlint.rules.shapes import relation
from initlint.rules.written import never_after
from initlint.simulation.binding import DIFFER, SAME, own_defaults, same_args
from initlint.simulation.levels import LIGHT, NONE
from initlint.simulation.records import (
    Event,
    FlagRef,
    Simulation,
    built_by,
    events_inside,
    item_holder,
    item_key,
    never_both,
    shown_key,
)
from initlint.simulation.torch_knowledge import MODULE_SELF_METHODS
from initlint.simulation.values import MAYBE


def tested_absent(sim: Simulation, first: Event, later: Event) -> bool:
    """``later`` runs only if ``self.<name> is None``, and ``first`` stored a value there
    (nothing stores a constant there in between): whenever ``first`` ran, that test is
    false, so the two never both run (``if self.act is None: self.act = default()`` after
    an ancestor that set ``self.act`` on some path)."""
    if first.name != later.name or first.kind not in ("assign", "buffer"):
        return False
    if first.cost == NONE:
        return False  # (a name or a constant may be None itself)
    if not any(_is_none_test(c, later.name) for c in _conjuncts(later.effect.guard)):
        return False
    if _inside_test(sim, first, later):
        return False  # ``first`` runs inside the ``if`` that tests: both run when it holds
    return not any(
        e.kind in ("assign", "buffer", "delete")
        and e.name == later.name
        and (e.value_const or e.kind == "delete")
        and not e.shadow
        for e in sim.events[first.index + 1 : later.index]
    )


def _inside_test(sim: Simulation, first: Event, later: Event) -> bool:
    """Whether ``first`` ran under every ``if self.<name> is None:`` that guards ``later``
    (itself, or through a call made there), so after those tests were taken: in the
    top-level statement of ``later``'s frame that holds ``later``, with the conditions up to
    each such test the same. One in that statement outside such a test (``if cuda: self.f =
    A()`` then ``if self.f is None: self.f = B()``) ran before it."""
    x: Event | None = first
    while x is not None and x.frame != later.frame:
        x = sim.events[x.parent] if x.parent is not None else None
    if x is None or x.effect.top_line != later.effect.top_line:
        return False
    guard = later.effect.guard
    tests = [
        k
        for k, cond in enumerate(guard)
        if any(_is_none_test(c, later.name) for c in _conjuncts((cond,)))
    ]
    return all(x.effect.guard[: k + 1] == guard[: k + 1] for k in tests)


def _conjuncts(guard: tuple[Cond, ...]) -> Iterator[Cond]:
    for c in guard:
        if c.op == "and":
            yield from _conjuncts(c.args)
        else:
            yield c


def _is_none_test(c: Cond, name: str) -> bool:
    """``self.<name> is None``."""
    if c.op != "is" or len(c.args) != 2:
        return False
    attr, none = c.args
    return attr.op == "selfattr" and attr.name == name and none.op == "const" and none.value is None


def _flag(first: Event, discarded: tuple[Event, ...] = ()) -> FlagRef | None:
    """The flag that switches ``first`` off, when it switches off every build that may be
    the one discarded too (an ancestor that builds on every path, ``if tiny: ...; return``
    then another build, has no flag that skips them all)."""
    flag = first.flags[-1] if first.flags else None
    if flag is not None and any(flag not in b.flags for b in discarded):
        return None
    return flag


def find_repeats(sim: Simulation) -> list[RepeatFinding]:
    events = sim.events
    live = [e for e in events if not e.shadow]
    # Every ancestor build of each buffer, attribute and call, in order.
    buffers: dict[str, list[Event]] = {}
    assigns: dict[str, list[Event]] = {}
    calls: dict[str, list[Event]] = {}
    # Light values the ancestors store for sure (``self.x = None``, ``self.x = featurizer``,
    # an argument): a build before one is dropped by the ancestors themselves, and a later
    # rebuild replaces that value, not the build.
    reset: dict[str, list[int]] = {}
    deletes, created = deletions(sim)
    for e in live:
        if not e.ancestor:
            continue
        if e.kind == "buffer" and not e.value_const:
            buffers.setdefault(e.name, []).append(e)
        elif e.kind == "assign" and e.expensive:
            assigns.setdefault(e.name, []).append(e)
        elif e.kind == "assign" and e.status != MAYBE and not (e.derived or e.same_object):
            reset.setdefault(e.name, []).append(e.index)
        elif e.kind == "call" and e.expensive and e.callee is not None:
            calls.setdefault(e.callee.qualname, []).append(e)

    repeated_calls: set[int] = set()
    findings: list[RepeatFinding] = []
    by_event: dict[int, RepeatFinding] = {}

    def nested_in_repeat(e: Event) -> bool:
        p = e.parent
        while p is not None:
            if p in repeated_calls:
                return True
            p = events[p].parent
        return False

    def repeat(code: str, e: Event, builds: list[Event] | None, what: str) -> RepeatFinding | None:
        if e.derived:
            return None  # computed from the value it replaces: the earlier build was used
        before = [b for b in builds or () if b.index < e.index]
        maybe_args: set[int] = set()  # calls equal only with the class's own defaults
        if code == "IL002":
            if e.idle:
                return None  # a second run that did nothing: each statement's guard was false
            before = [b for b in before if not b.idle]  # a first run that did nothing
            into = _stored_in(e)
            before = [b for b in before if not _different_targets(into, _stored_in(b))]
            defaults = own_defaults(sim.top_fn.facts.params)
            verdicts = {b.index: same_args(b.arg_keys, e.arg_keys, defaults) for b in before}
            before = [b for b in before if verdicts[b.index] != DIFFER]
            maybe_args = {i for i, v in verdicts.items() if v not in (SAME, DIFFER)}
        # The ancestor's build and this one sit under guards that exclude each other.
        before = [
            b
            for b in before
            if not never_both(b, e) and not tested_absent(sim, b, e) and not never_after(sim, b, e)
        ]
        if code == "IL003":
            drops = reset.get(e.name, ())
            before = [b for b in before if not any(b.index < d < e.index for d in drops)]
        before = [b for b in before if ruled_out_by_delete(b, e, deletes, created) is None]
        if not before:
            return None
        first, nearest = before[0], before[-1]
        others: tuple[Event, ...] = ()
        if code != "IL002":
            nearest, others = discarded_build(before)
        cost = nearest.cost  # (the work thrown away; a run again may be priced lower)
        if code == "IL001":
            cost = max(cost, LIGHT)
        confidence = confidence_of(e, nearest)
        if code == "IL002" and not _surely_works(events, e):
            confidence = "possible"  # the call runs, its work only under undecided guards
        if others:  # another build may be the one discarded
            confidence = "possible"
        if e.memo_changed == "maybe":  # the arguments change only under an undecided guard
            confidence = "possible"
        if nearest.index in maybe_args:  # equal arguments only if the caller passes defaults
            confidence = "possible"
        return RepeatFinding(
            code,
            sim,
            e,
            first,
            confidence,
            what,
            _flag(first, (nearest, *others)),
            cost=max(cost, LIGHT),
            nearest=nearest if nearest is not first else None,
            earlier=tuple(b for b in before if b.index < nearest.index and b not in others),
            alternatives=others,
        )

    for e in live:
        if e.ancestor or nested_in_repeat(e):
            continue
        finding: RepeatFinding | None = None
        if e.kind == "call" and e.expensive and e.callee is not None and not _idempotent(e):
            finding = repeat(
                "IL002", e, calls.get(e.callee.qualname), f"`self.{e.name}({e.args_key})`"
            )
            if finding is not None:
                repeated_calls.add(e.index)
        elif e.kind == "buffer":
            finding = repeat(
                "IL001", e, buffers.get(e.name), f"{e.effect.detail or 'buffer'} `{e.name}`"
            )
        elif e.kind == "assign" and e.expensive:
            registered = buffers.get(e.name) or []
            # Named as the ancestor registered it: `self.weight = UninitializedParameter(...)`
            # replaces a parameter, not a buffer.
            kind = next((b.effect.detail for b in reversed(registered) if b.effect.detail), None)
            finding = repeat("IL001", e, registered, f"{kind or 'buffer'} `{e.name}`")
            if finding is None:
                finding = repeat("IL003", e, assigns.get(e.name), f"`self.{e.name}`")
        elif e.kind == "nested":
            finding = nested_repeat(sim, e)
        elif e.kind == "mutate" and e.expensive and e.effect.detail == "item":
            finding = item_repeat(sim, e)
        if finding is not None:
            findings.append(finding)
            by_event[e.index] = finding
    findings += constructed_again(sim, live)
    return _fold_calls(sim, findings, by_event)


def constructed_again(sim: Simulation, live: list[Event]) -> list[RepeatFinding]:
    """An ancestor's construction the class's own code runs a second time (``super().
    __init__(...)`` twice, or ``A.__init__(self)`` and ``B.__init__(self)`` that both reach
    one base's ``__init__``): the second run stores again what the same code of the first
    stored, and the first builds are thrown away (IL002, at the second call). Reported when
    a costly build of the first run is stored again, on a path where both run."""
    inits = [e for e in live if e.kind == "super_init" and not e.ancestor]
    out: list[RepeatFinding] = []
    for at, again in enumerate(inits):
        for first in reversed(inits[:at]):
            if never_both(first, again) or relation(sim, first, again) in _APART:
                continue  # (``if``/``else`` arms, a ``return`` after the first, an ``except``)
            built = {(b.fn.qualname, b.name): b for b in _builds(sim, first)}
            rebuilt = [
                (built[key], b)
                for b in _builds(sim, again)
                if (key := (b.fn.qualname, b.name)) in built and not never_both(built[key], b)
            ]
            if rebuilt:
                out.append(_constructed_again(sim, first, again, rebuilt))
                break
    return out


# How two calls may sit in the code for the later never to run after the earlier one: arms
# of one ``if``, a ``return`` between them on every path of the first, or the later in an
# ``except`` handler of the ``try`` that holds the first (a fallback for a call that raised).
_APART = frozenset({"exclusive", "always", "fallback"})


def _constructed_again(
    sim: Simulation, first: Event, again: Event, rebuilt: list[tuple[Event, Event]]
) -> RepeatFinding:
    thrown = max((b for b, _ in rebuilt), key=lambda b: (b.cost, -b.index))
    names = ", ".join(f"`self.{b.name}`" for b, _ in rebuilt[:3])
    more = " and more" if len(rebuilt) > 3 else ""
    return RepeatFinding(
        "IL002",
        sim,
        again,
        first,
        confidence_of(first, again, *(b for _, b in rebuilt)),
        f"`{method_label(thrown.fn.qualname)}()`",
        None,
        cost=max(LIGHT, thrown.cost),
        no_fix=(
            f"the second run rebuilds {names}{more}: run each ancestor's `__init__` once, "
            "with the arguments the class needs"
        ),
    )


def _builds(sim: Simulation, call: Event) -> list[Event]:
    """The costly stores of attributes and registrations the call made, at any depth."""
    return [
        e
        for e in events_inside(sim.events, call)
        if e.kind in ("assign", "buffer") and e.expensive and not e.shadow
    ]


def discarded_build(before: list[Event]) -> tuple[Event, tuple[Event, ...]]:
    """The ancestor's build that a repeat throws away, among ``before`` (the earlier builds
    that may run with it, in order), and the others that may be the one instead.

    The last of them runs whenever the repeat does only if it is not under an undecided guard
    of its own. Otherwise the discarded one is whichever ran last: the builds from the last
    one back to the nearest that always runs may each be it (``self.norm = RMSNorm(d) if
    last_rank else Placeholder()``, where initlint cannot show that the subclass's rebuild
    runs under the same condition). The heaviest of them is reported, the latest among
    equals, and the rest are named beside it."""
    candidates: list[Event] = []
    for b in reversed(before):
        candidates.append(b)
        if b.status != MAYBE:
            break  # it always runs, after every build before it
    if len(candidates) == 1:
        return candidates[0], ()
    chosen = max(candidates, key=lambda b: (b.cost, b.index))
    return chosen, tuple(sorted((b for b in candidates if b is not chosen), key=lambda b: b.index))


def nested_repeat(sim: Simulation, e: Event) -> RepeatFinding | None:
    """``self.attn.qkv = Linear(...)`` after the ancestor chain stored in ``self.attn`` an
    object whose own construction built ``qkv``: that build is discarded (IL003, or IL001
    for a registered tensor). Reported only where the holder was built during
    ``super().__init__()`` and the new value is costly and not made from the old one."""
    holder = e.holder
    if holder is None or not holder.ancestor or not e.expensive or e.derived or not e.inner:
        return None
    if never_both(holder, e):
        return None
    builds: list[Event] = list(e.inner)
    # An intermediate class that replaced the part already: the discarded build is its.
    builds += [
        x
        for x in sim.events
        if x.kind == "nested"
        and x.name == e.name
        and x.ancestor
        and not x.shadow
        and holder.index < x.index < e.index
        and x.expensive
        and not never_both(x, e)
    ]
    first, nearest = builds[0], builds[-1]
    part = e.effect.detail
    if part == "__init__":
        return _reinit(sim, e, holder)
    code = "IL001" if nearest.kind == "buffer" else "IL003"
    cls, _, what = part_of(e, holder)
    by = method_label(holder.fn.qualname)
    return RepeatFinding(
        code,
        sim,
        e,
        first,
        confidence_of(e, holder, nearest),
        what,
        None,
        cost=max(nearest.cost, LIGHT),
        nearest=nearest if nearest is not first else None,
        earlier=tuple(builds[:-1]),
        holder=holder,
        no_fix=(
            f"`{part}` is built by {cls}'s own __init__ (the object {by} stores in "
            f"`self.{holder.name}`); skipping it there needs a new {cls} parameter passed "
            f"through {by}, which initlint does not propose"
        ),
    )


def part_of(e: Event, holder: Event) -> tuple[str, str, str]:
    """For ``self.attn.qkv = v`` (``e``) and the store of ``self.attn`` (``holder``): the
    class built there (or the factory that built it; the item's class for a part of one
    item, ``self.head[-1].weight``), where that object is (the method that stored it there;
    for a part of an object another one's build holds, ``self.expert.model.embed_tokens``,
    the path), and the part named as messages name it."""
    cls = e.constructs.rsplit(".", 1)[-1] if e.constructs else built_name(holder)
    held = e.name.rpartition(".")[0]  # (``attn``; ``head.1`` for an item of a container)
    if key := item_key(held):  # (``embs.name#1``: the item stored at key ``name``)
        attr, part = held.partition(".")[0], e.name[len(held) + 1 :]
        item = f"self.{attr}[{shown_key(key)}]"
        place = f"{method_label(holder.fn.qualname)} stores in `{item}`"
        return cls, place, f"`{item}.{part}` (a part of the {cls} that {place})"
    if item_holder(held) or "." not in held:
        place = f"{method_label(holder.fn.qualname)} stores in `self.{held}`"
        return cls, place, f"`self.{e.name}` (a part of the {cls} that {place})"
    # (``self.expert.model.embed_tokens``: a part of an object another one's build holds)
    place = f"held in `self.{held}`"
    return cls, place, f"`self.{e.name}` (a part of the {cls} {place})"


def built_name(holder: Event) -> str:
    """The class (or factory) whose call built the object ``holder`` stored, as messages
    name it (``attn_cls(...)``: the class the name held)."""
    value = built_by(holder)
    built = holder.constructs or (value.name if value is not None else holder.name)
    callee = value.callee if value is not None and not built else None
    if callee is not None and callee.kind == "subscript" and callee.receiver is not None:
        table = callee.receiver.name.rsplit(".", 1)[-1]
        return f"{table or '...'}[...]"  # (``MODELS[arch](...)``)
    return built.rsplit(".", 1)[-1]


# torch's list-like module containers: an item stored at an index replaces the one there.
_LISTS = frozenset({"ModuleList", "Sequential", "ParameterList"})


def item_repeat(sim: Simulation, e: Event) -> RepeatFinding | None:
    """``self.convs[i] = Block(...)`` after the ancestor chain stored in ``self.convs`` a
    list of what it built (``nn.ModuleList([...])``, ``nn.Sequential(*convs)``, a list): an
    item there is replaced, and its build discarded (IL003). Not when the new item is made
    from the list (``Wrap(self.convs[i])``), nor for a mapping (a new key may add an item).
    Rated by the lower of the list's cost and the new item's: an item of a costly list, put
    back as costly work, was costly; a light new item may replace a light one."""
    if e.name in e.reads:
        return None
    stores = [b for b in sim.events if b.index < e.index and b.name == e.name and not b.shadow]
    stores = [b for b in stores if b.kind in ("assign", "buffer", "delete")]
    if not stores:
        return None
    first = stores[-1]
    if first.kind != "assign" or not first.ancestor or not first.expensive:
        return None
    if never_both(first, e) or not _list_like(first):
        return None
    by = method_label(first.fn.qualname)
    return RepeatFinding(
        "IL003",
        sim,
        e,
        first,
        confidence_of(e, first),
        f"an item of `self.{e.name}`",
        None,
        cost=max(min(first.cost, e.cost), LIGHT),
        no_fix=(
            f"the item replaces one of the list {by} builds into `self.{e.name}`: skipping "
            "it there needs a parameter of that class, which initlint does not propose"
        ),
    )


def _list_like(build: Event) -> bool:
    """Whether ``build`` stores a list: torch's list-like containers, or a list display."""
    value = build.effect.value
    if value is None:
        return False
    if value.kind == "op" and value.name == "tuple":
        return True
    return value.kind == "call" and (value.attr or value.name).rpartition(".")[2] in _LISTS


def _reinit(sim: Simulation, e: Event, holder: Event) -> RepeatFinding:
    """``self.a.__init__(...)`` on the object the ancestor chain built into ``self.a``:
    everything that construction did is done again on the live object."""
    by = method_label(holder.fn.qualname)
    return RepeatFinding(
        "IL003",
        sim,
        e,
        holder,
        confidence_of(e, holder),
        f"`self.{holder.name}` (constructed again in place by `self.{holder.name}.__init__()`)",
        None,
        cost=max(holder.cost, LIGHT),
        holder=holder,
        no_fix=(
            f"the object {by} built is set up again in place; building it once with the "
            "arguments of the second set-up needs a change initlint does not propose"
        ),
    )


def deletions(sim: Simulation) -> tuple[list[Event], dict[str, list[Event]]]:
    """C's own ``del self.x`` events, and every ancestor store of each attribute."""
    live = [e for e in sim.events if not e.shadow]
    created: dict[str, list[Event]] = {}
    for e in live:
        if e.ancestor and e.kind in ("buffer", "assign"):
            created.setdefault(e.name, []).append(e)
    return [e for e in live if e.kind == "delete" and not e.ancestor], created


def ruled_out_by_delete(
    b: Event, e: Event, deletes: list[Event], created: dict[str, list[Event]]
) -> Event | None:
    """The ancestor's build ``b`` cannot have run when C's repeat ``e`` runs: on e's way C
    deletes an attribute (``del self.fused``, which raises unless it exists), and every
    ancestor build of that attribute excludes ``b`` (the ancestor builds ``fused`` when
    ``q_lora_rank`` is set, and ``b`` only when it is None)."""
    for d in deletes:
        if d.index > e.index or d.name == e.name:
            continue
        if not set(d.literals) <= set(e.literals) or not set(d.assume) <= set(e.assume):
            continue  # the delete does not run whenever the repeat does
        made = [x for x in created.get(d.name, ()) if x.index < d.index]
        if made and all(never_both(b, x) for x in made):
            return d
    return None


def _stored_in(e: Event) -> frozenset[str] | None:
    """The attributes a call's result is stored in, when that is all it is used for."""
    eff = e.effect
    if not eff.feeds or eff.feeds_other:
        return None
    effects = e.fn.facts.effects
    return frozenset(effects[i].name for i in eff.feeds if i < len(effects))


def _different_targets(a: frozenset[str] | None, b: frozenset[str] | None) -> bool:
    """Two calls whose results go to different attributes build two objects, not one twice
    (``self.heads = self._build()`` then ``self.heads_dist = self._build()``)."""
    return a is not None and b is not None and not a & b


def _fold_calls(
    sim: Simulation, findings: list[RepeatFinding], by_event: dict[int, RepeatFinding]
) -> list[RepeatFinding]:
    """IL002 whose result only feeds a reported registration/assignment is one finding."""
    frame_effects: dict[tuple[int, int], list[Event]] = {}
    for e in sim.events:
        frame_effects.setdefault((e.frame, e.effect_index), []).append(e)
    out = []
    for f in findings:
        if f.code == "IL002":
            eff = f.event.effect
            fed = [frame_effects.get((f.event.frame, i), []) for i in eff.feeds]
            if (
                eff.feeds
                and not eff.feeds_other
                and all(evs and all(ev.index in by_event for ev in evs) for evs in fed)
            ):
                continue
        out.append(f)
    return out


def _idempotent(call: Event) -> bool:
    """torch's own move, cast or mode method of a module (``self.to(device)``,
    ``self.half()``, ``self.eval()``): called again with the same arguments it leaves what
    the first call moved where it is, and moves only what was built since; nothing of the
    first call's work is redone or thrown away."""
    callee = call.callee
    return call.name in MODULE_SELF_METHODS and callee is not None and callee.module.is_dependency


def _surely_works(events: list[Event], call: Event) -> bool:
    """Whether the run of ``call`` surely does work: a piece of work (a store, a fill, a
    costly call) inside it, at any depth, runs whenever the call does (a loop's body
    counted as run, as for the call's own cost); True when its run shows no such piece at
    all (its work is not simulated there, only priced)."""
    sure = {call.index}
    found = False
    for ev in events_inside(events, call):
        runs = ev.status != MAYBE or (
            ev.parent in sure and all(c == LOOP_COND for c in ev.effect.guard)
        )
        if runs:
            sure.add(ev.index)
        if ev.kind in ("touch", "super_init") or (ev.cost == NONE and ev.kind != "init"):
            continue
        if runs:
            return True
        found = True
    return not found

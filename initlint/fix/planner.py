"""Turn a finding into a fix plan: the three strategies of docs/design.md, "Fixes", in order."""

from __future__ import annotations

import ast
import re
from dataclasses import field
from pathlib import Path

from initlint.facts.model import Arg, BodyError, BodySyntaxError, Effect
from initlint.facts.reads import EVERYTHING
from initlint.fix.call_edits import add_param, caller_ops, thread_ops
from initlint.fix.discarded import delete_discarded, moved_past
from initlint.fix.state import flag_value, keeps_state
from initlint.fix.storage import lines_write_storage, writes_storage
from initlint.fixplan import (
    AddParam,
    DeleteStatement,
    FixPlan,
    Op,
    WrapInIf,
)
from initlint.index.records import FunctionInfo
from initlint.records import dataclass
from initlint.rules.analyses import analyses_of
from initlint.rules.base import REGISTRY, Finding, FixStrategy, RepeatFinding, runtime_repeats_of
from initlint.simulation.engine import Simulator
from initlint.simulation.levels import HEAVY, LIGHT, NONE
from initlint.simulation.reads import exposed_reads, meet, reads, statement_events, writes
from initlint.simulation.records import Event, FlagRef, Simulation
from initlint.simulation.torch_knowledge import IO_CALLS, LOADERS
from initlint.simulation.values import TRUE
from initlint.sources import source_lines, source_tree


@dataclass
class Planner:
    simulator: Simulator
    flag_name: str = ""
    # The project's root: only files under it, and not in a dependency, are edited.
    root: Path | None = None
    # Why the last plan() offered no fix (the diagnostic's "no fix: ..." help line).
    reason: str = ""
    _repeats_of: tuple[int, list[RepeatFinding]] | None = None

    def plan(self, f: Finding) -> FixPlan | None:
        self.reason = ""
        strategies = _strategies(f)
        if not strategies or not isinstance(f, RepeatFinding):
            return None  # its rule offers no fix (a switched-off setup, IL004, has none)
        if f.no_fix:  # the rule knows no fix can be offered (a submodule's part rebuilt)
            self.reason = f.no_fix
            return None
        if "delete-discarded" in strategies:  # IL005: its own strategy, alone
            found = delete_discarded(f)
            if isinstance(found, FixPlan):
                return self._editable(found)
            self.reason = found
            return None
        sim = f.sim
        if _reads_storage(f.event) and _ancestor_writes(sim):
            # (what it reads may be what the ancestor's work wrote there: a first run's
            # ``process()`` saves the data the subclass then loads)
            self.reason = (
                f"{f.what} is read from storage, which the ancestor's work may have written: "
                "skipping that work could leave nothing to read"
            )
            return None
        top_super = _top_super(sim)
        s1: FixPlan | str | None = None
        if f.flag is not None and "switch-off" in strategies:
            s1 = self._switch_off(f, f.flag, top_super)
        if isinstance(s1, FixPlan) and s1.applicability == "safe":
            return self._editable(s1)
        s3 = self._delete_identical(f) if "delete" in strategies else None
        if isinstance(s3, FixPlan):
            return self._editable(s3)
        if isinstance(s1, FixPlan):
            return self._editable(s1)
        s2: FixPlan | str | None = None
        # A flag that loses state when switched off loses it when threaded too.
        if "thread" in strategies and not (isinstance(s1, str) and s1.startswith("flag `")):
            s2 = self._thread_or_introduce(f, top_super)
        if isinstance(s2, FixPlan):
            return self._editable(s2)
        reasons = [r for r in (s1, s3, s2) if isinstance(r, str)]
        self.reason = reasons[0] if reasons else ""
        return None

    def _editable(self, plan: FixPlan) -> FixPlan | None:
        """``plan``, when every file it edits is the project's own."""
        outside = [op.path for op in plan.ops if not self._is_project_file(op.path)]
        if not outside:
            return plan
        self.reason = (
            f"the fix would edit {outside[0].name}, which is not the project's own file "
            "(initlint edits no dependency)"
        )
        return None

    def _is_project_file(self, path: Path) -> bool:
        for mod in self.simulator.index.modules.values():
            # A dependency's module (issue 15): the engine refuses that fix and names the
            # distribution (pipeline.report.dependency_edit); the planner leaves it to it.
            if mod.path == path and mod.is_dependency:
                return True
        if self.root is None:
            return True
        # Lexically under the root is enough here: a link leaving the root is refused, with
        # its own message, when the files are written.
        return path.absolute().is_relative_to(
            self.root.absolute()
        ) or path.resolve().is_relative_to(self.root.resolve())

    # -- strategy 1 ------------------------------------------------------------------------
    def _switch_off(
        self, f: RepeatFinding, flag: FlagRef, top_super: Event | None
    ) -> FixPlan | str | None:
        if top_super is None:
            return _NO_SUPER
        resim = self.simulator.simulate(f.sim.cls, inject=(flag.param, flag.off_value))
        if isinstance(resim, BodyError):
            # The flag's path reads a body that does not parse: as any failure to plan, the
            # site is reported as an internal error (``pipeline.plan.plan_fixes``).
            raise BodySyntaxError(resim)
        if resim is not None and not _live(resim, f.event):
            kept = keeps_state(f.sim, _under_flag(f.sim, flag), top_super)
            if isinstance(kept, str):
                return f"flag `{flag.param}`: {kept}"
            return (
                f"flag `{flag.param}`: passing it also changes what {_label(f.event.fn)} "
                "builds itself (its rebuild depends on it)"
            )
        if resim is None or _live(resim, f.first):
            return None
        if resim.conflicts > f.sim.conflicts:
            # the flag would reach a call that already sets it: a TypeError
            return f"passing `{flag.param}` would pass it twice to a call in the chain"
        switched = _switched_off(f.sim, resim, flag)
        kept = keeps_state(f.sim, switched, top_super)
        if isinstance(kept, str):
            return f"flag `{flag.param}`: {kept}"
        other = _other_uses(f.sim, resim, flag, switched, top_super)
        if other:
            return f"flag `{flag.param}` {other}"
        writer = next((e for e in switched if not e.shadow and _writes_file(f.sim, e)), None)
        if writer is not None:
            return (
                f"flag `{flag.param}` also switches off writing the file at "
                f"{_where(writer.fn, writer.effect.span.line)}, which a later construction may read"
            )
        value = flag_value(kept.cond, flag.off_value)
        ops = caller_ops(top_super, flag.param, value)
        if ops is None:
            return _STAR_ARGS.format(flag.param)
        # A mixin's super call reaches different bases in different classes: never safe.
        mixin = f.sim.top_fn is not None and f.sim.top_fn.owner is not f.sim.cls
        msg = f"pass `{flag.param}={value}` to super().__init__()"
        moved = moved_past(f.sim, f.first, f.event, frozenset(e.index for e in switched))
        if moved:
            return FixPlan("unsafe", f"{msg} ({moved})", tuple(ops), 1)
        return FixPlan("unsafe" if mixin else "safe", msg, tuple(ops), 1)

    # -- strategy 2 ------------------------------------------------------------------------
    def _thread_or_introduce(
        self, f: RepeatFinding, top_super: Event | None
    ) -> FixPlan | str | None:
        if top_super is None:
            return _NO_SUPER
        sim = f.sim
        chain = _super_chain(sim, f.first)
        if not chain:
            return "the work is not done inside the super().__init__() chain"
        ops: list[Op] = []
        new_on: list[str] = []  # the functions that get a new parameter
        if f.flag is not None:
            name, off = f.flag.param, f.flag.off_value
            target_fn = f.flag.function
            threaded_note = ""
            left_out = _under_flag(sim, f.flag)
            kept = keeps_state(sim, left_out, top_super)
            if isinstance(kept, str):
                return f"flag `{name}`: {kept}"
        else:
            if _uses_first_call(f):
                return "the ancestor uses the first call's result"
            site = _work_site(sim, f.first)
            if site is None:
                return "the work is not done by an __init__"
            target_fn, _, site_ev = site
            # Every repeat of C whose work sits in the same ancestor __init__ goes under one
            # flag, planned together (each of their findings gets this same plan).
            kept = keeps_state(sim, _guarded(sim, site_ev, _attr(f)), top_super)
            if isinstance(kept, str):
                return f"guarding the work in {_label(target_fn)}: {kept}"
            sites: list[tuple[RepeatFinding, Event, str]] = [(f, site_ev, _attr(f))]
            for group in _groups(sim, self._sites(f, target_fn), top_super):
                if any(ev.index == site_ev.index for _, ev, _ in group):
                    sites = group
                    break
            left_out = [e for s in sites for e in _guarded(sim, *s[1:])]
            if len(sites) > 1:
                kept = keeps_state(sim, left_out, top_super)
            assert not isinstance(kept, str)
            writer = next((e for e in left_out if _writes_file(sim, e)), None)
            if writer is not None:
                # (``torch.save(self.table, path)`` after the build: a cache a later
                # construction, or this one's next run, reads back)
                return (
                    f"guarding the work in {_label(target_fn)} would also skip writing the "
                    f"file at {_where(writer.fn, writer.effect.span.line)}, which a later "
                    "construction may read"
                )
            name = self.flag_name or _flag_for(sim, sites[0][1])
            off = False
            if any(p.name == name for p in target_fn.facts.params):
                return f"{_label(target_fn)} already has a parameter `{name}` (set `flag-name`)"
            ops.append(add_param(target_fn, name))
            new_on.append(_label(target_fn))
            # One wrap a statement, covering every attribute its sites build (two sites can
            # share a statement: `self.pooler = self._build_pooler()` building `self.head` too).
            wraps: dict[int, list[str]] = {}
            for _, ev, attr in sites:
                line = _wrap_line(target_fn, ev.effect, attr)
                wraps.setdefault(line, [])
                if attr and attr not in wraps[line]:
                    wraps[line].append(attr)
            for line, attrs in wraps.items():
                ops.append(WrapInIf(target_fn.module.path, line, name, tuple(attrs)))
            threaded_note = f"; add `{name}: bool = True` to {_label(target_fn)}"
            if len(sites) > 1:
                what = ", ".join(dict.fromkeys(f"`{_what(g)}`" for g, _, _ in sites))
                threaded_note += f" and guard {what} with it"
        # Thread the flag through every __init__ between C's and the one that owns it.
        default = "True" if f.flag is None else _const_default(target_fn, name)
        if default is None:
            return f"the default of `{name}` in {_label(target_fn)} is no constant to copy"
        names = []
        for ev in chain[1:]:
            if ev.fn.qualname == target_fn.qualname:
                break
            step = thread_ops(ev, name, default)
            if step is None:
                return (
                    f"{_label(ev.fn)} sets `{name}` itself, or has a parameter `{name}` it "
                    "does not pass on"
                )
            if step:
                names.append(_label(ev.fn).rsplit(".", 1)[0])
            if any(isinstance(op, AddParam) for op in step):
                new_on.append(_label(ev.fn))
            ops.extend(step)
        if new_on and not self._worth_new_parameter(f, sites if f.flag is None else None):
            # (a cost initlint could not follow is not known to be light either)
            what = "light work" if f.cost == LIGHT else "work of a cost not known here"
            # (one flag guards the sites of one ancestor __init__: named after the first)
            guarded = [_what(g) for g, _, _ in sites] if f.flag is None else []
            shared = ""
            if len(guarded) > 1:
                shared = f" (one flag for {', '.join(f'`{w}`' for w in dict.fromkeys(guarded))})"
            return (
                f"{f.what} is {what}: not worth a new constructor parameter `{name}`{shared} "
                f"on {', '.join(new_on)} (initlint adds constructor parameters for heavy "
                "repeats only)"
            )
        if f.flag is not None and not names and not new_on and "switch-off" in _strategies(f):
            # (nothing to thread: the edit is passing the flag, which the switch-off plan
            # tried by simulating it and refused)
            return f"passing `{name}` to super().__init__() leaves that work on"
        value = flag_value(kept.cond, off)
        caller = caller_ops(top_super, name, value)
        if caller is None:
            return _STAR_ARGS.format(name)
        ops.extend(caller)
        msg = f"pass `{name}={value}` to super().__init__(){threaded_note}"
        if names:
            msg += f"; thread `{name}` through {', '.join(names)}"
        moved = moved_past(sim, f.first, f.event, frozenset(e.index for e in left_out))
        if moved:
            msg += f" ({moved})"
        return FixPlan("unsafe", msg, tuple(dict.fromkeys(ops)), 2)

    def _worth_new_parameter(
        self, f: RepeatFinding, group: list[tuple[RepeatFinding, Event, str]] | None
    ) -> bool:
        """A new public constructor parameter is worth it only for heavy work (docs/design.md,
        "Cost classes"): some repeat the flag switches off must be heavy, also where it is
        a warning because a state outside the construction decides it. ``group``: the
        repeats a new flag guards together; None for an existing flag, which every repeat of
        C under that flag shares."""
        if f.cost >= HEAVY:
            return True
        if group is not None:
            return any(g.cost >= HEAVY for g, _, _ in group)
        flag = f.flag
        assert flag is not None  # (no group: the repeats an existing flag guards)
        key = (flag.function.qualname, flag.param, flag.off_value)
        if self._repeats_of is None or self._repeats_of[0] != id(f.sim):
            self._repeats_of = (id(f.sim), analyses_of(f.sim).repeats)
        return any(
            g.cost >= HEAVY
            and g.flag is not None
            and (g.flag.function.qualname, g.flag.param, g.flag.off_value) == key
            for g in self._repeats_of[1]
        )

    def _sites(
        self, f: RepeatFinding, target_fn: FunctionInfo
    ) -> list[tuple[RepeatFinding, Event, str]]:
        """The repeats of ``f``'s class that a new flag in ``target_fn`` would switch off:
        (finding, the __init__ event doing its work, the attribute), in the work's order."""
        key = id(f.sim)
        if self._repeats_of is None or self._repeats_of[0] != key:
            self._repeats_of = (key, analyses_of(f.sim).repeats)
        out: dict[int, tuple[RepeatFinding, Event, str]] = {}
        for g in self._repeats_of[1]:
            if not _strategies(g) or g.flag is not None or _uses_first_call(g):
                continue
            site = _work_site(f.sim, g.first)
            if site is None or site[0].qualname != target_fn.qualname:
                continue
            if "delete" in _strategies(g) and isinstance(self._delete_identical(g), FixPlan):
                continue  # its own fix deletes the redo: guarding its work too would lose it
            out.setdefault(site[2].index, (g, site[2], _attr(g)))
        mine = (f.code, f.event.index)
        found = [out[i] for i in sorted(out)]
        if not any((g.code, g.event.index) == mine for g, _, _ in found):
            return []
        return [
            (f, ev, attr) if (g.code, g.event.index) == mine else (g, ev, attr)
            for g, ev, attr in found
        ]

    # -- strategy 3 ------------------------------------------------------------------------
    def _delete_identical(self, f: RepeatFinding) -> FixPlan | str | None:
        ev, first = f.event, f.first
        if ev.frame != f.sim.top_frame:
            return None
        eff = ev.effect
        if eff.kind == "call" and (eff.feeds or eff.feeds_other):
            return None
        if eff.kind not in ("call", "buffer"):
            return None
        if first.status != TRUE and (first.unkeyed or not set(first.literals) <= set(ev.literals)):
            # (``if self.build: register(t)`` in the ancestor: where it did not run, the
            # redo is the only registration, and deleting it loses ``t``)
            return None
        mine = _statement_text(ev)
        theirs = _statement_text(first)
        if mine is None or mine != theirs or not _single_effect_statement(ev):
            return None
        # Equal text is equal work only when it reads no locals or parameters, whose values
        # can differ between the two functions.
        if _reads_locals(ev) or _reads_locals(first):
            return None
        # Deleting the redo must leave the ancestor's value as the final one: nothing between
        # the two may write the same state.
        if _written_between(f.sim, first, ev):
            return None
        # And it is the same computation only when nothing it reads was written in between.
        changed = _reads_changed(f.sim, first, ev)
        if changed:
            return changed
        span = eff.stmt_span or eff.span
        op = (DeleteStatement(ev.fn.module.path, span.line),)
        if ev.callee is not None and self.simulator.cost.fills(ev.callee, f.sim.mro):
            # The weights then keep the first pass's values: the same kind, other numbers
            # (fewer random draws), so a seeded run builds other weights.
            msg = "delete the repeated statement (the weights keep the first pass's draws)"
            return FixPlan("unsafe", msg, op, 3)
        return FixPlan("safe", "delete the repeated statement", op, 3)


_NO_SUPER = "the class's own super().__init__() call was not found"
_STAR_ARGS = "a forwarded `*args` may already fill `{}` positionally"


def _reads_storage(e: Event) -> bool:
    """Whether the value the class's own work stores is read from a file or a checkpoint
    (``torch.load(path)``, ``Model.from_pretrained(name)``), as what initlint knows of
    I/O names it."""
    value = e.effect.value
    return value is not None and any(
        x.kind == "call"
        and (x.name in IO_CALLS or x.name.rpartition(".")[2] in LOADERS or x.attr in LOADERS)
        for x in value.nodes()
    )


def _ancestor_writes(sim: Simulation) -> bool:
    """Whether a function the ancestors' part of the construction ran writes a file."""
    ran = {e.fn.qualname: e.fn for e in sim.events if e.ancestor}
    return any(writes_storage(fn) for fn in ran.values())


def _const_default(fn: FunctionInfo, name: str) -> str | None:
    """The default of ``fn``'s parameter ``name`` as written, where it is a constant."""
    param = next((p for p in fn.facts.params if p.name == name), None)
    if param is None or not param.has_default or param.default is None:
        return None
    given = param.default
    if given.kind != "const" or given.name or not isinstance(given.value, bool | int | None):
        return None
    return repr(given.value)


def _strategies(f: Finding) -> frozenset[FixStrategy]:
    """The fix strategies the finding's rule allows (none: the fixer plans nothing)."""
    rule = REGISTRY.get(f.code)
    return rule.fix_strategies if rule is not None else frozenset()


def _uses_first_call(f: RepeatFinding) -> bool:
    """The repeat is of a method call (its rule's runtime repeat: a method called again) and
    the ancestor uses the first call's result: switching that call off would lose it."""
    return "call" in runtime_repeats_of(f.code) and bool(
        f.first.effect.feeds or f.first.effect.feeds_other
    )


def _key(e: Event) -> tuple[str, int]:
    return e.fn.qualname, e.effect_index


def _live(sim: Simulation, event: Event | None) -> bool:
    if event is None:
        return False
    key = _key(event)
    return any(not e.shadow and _key(e) == key for e in sim.events)


def _top_super(sim: Simulation) -> Event | None:
    for e in sim.events:
        if e.kind == "super_init" and e.frame == sim.top_frame and not e.shadow:
            return e
    return None


def _super_chain(sim: Simulation, first: Event) -> list[Event]:
    """The super_init events from C's init down to the frame that did ``first``."""
    chain = []
    p = first.parent
    while p is not None:
        ev = sim.events[p]
        if ev.kind == "super_init":
            chain.append(ev)
        p = ev.parent
    return list(reversed(chain))


def _work_site(sim: Simulation, first: Event) -> tuple[FunctionInfo, Effect, Event] | None:
    """The __init__ and its statement that (directly or through a helper) did ``first``."""
    ev: Event | None = first
    while ev is not None:
        if ev.fn.facts.name == "__init__":
            return ev.fn, ev.effect, ev
        ev = sim.events[ev.parent] if ev.parent is not None else None
    return None


def _groups(
    sim: Simulation, sites: list[tuple[RepeatFinding, Event, str]], top_super: Event
) -> list[list[tuple[RepeatFinding, Event, str]]]:
    """The sites, in order, each put into the first group it keeps the state with (the same
    partition whichever of their findings asks: each group is one flag, one plan)."""
    groups: list[list[tuple[RepeatFinding, Event, str]]] = []
    for site in sites:
        for group in groups:
            union = [e for s in (*group, site) for e in _guarded(sim, *s[1:])]
            if not isinstance(keeps_state(sim, union, top_super), str):
                group.append(site)
                break
        else:
            if not isinstance(keeps_state(sim, _guarded(sim, *site[1:]), top_super), str):
                groups.append([site])
    return groups


def _attr(f: RepeatFinding) -> str:
    return f.first.name if f.first.kind in ("buffer", "assign") else ""


def _what(f: RepeatFinding) -> str:
    return f"self.{f.first.name}()" if f.first.kind == "call" else f"self.{f.first.name}"


def _switched_off(sim: Simulation, resim: Simulation, flag: FlagRef) -> list[Event]:
    """The ancestor work passing the flag switches off: what it guards, and whatever else
    does not run once it is passed (an ancestor may hand the flag on to its own base, whose
    work it gates too), found by comparing the construction with the flag and without."""
    still = {_event_key(e) for e in resim.events if not e.shadow}
    guarded = _under_flag(sim, flag)
    seen = {e.index for e in guarded}
    gone = [
        e
        for e in sim.events
        if e.ancestor and not e.shadow and e.index not in seen and _event_key(e) not in still
    ]
    return sorted([*guarded, *gone], key=lambda e: e.index)


def _other_uses(
    sim: Simulation, resim: Simulation, flag: FlagRef, switched: list[Event], top_super: Event
) -> str:
    """What passing the flag changes besides the work it switches off, as the reason no
    fix is offered; "" when nothing. Work it switches on (``else: self.adapter = ...``)
    runs where it did not, which may cost more (a constant the class sets again itself, a
    placeholder ``else: self.head = None``, is no work); any other use of its value
    (``nn.Linear(d, 8 if lite else d)``, ``self.lite = lite``, ``Body(lite)``, ``if lite:
    n = 8``, an ``assert``) makes another object, or another path, once it is passed: the
    fix would change the model, not only skip a repeat."""
    before = {_event_key(e) for e in sim.events if not e.shadow}
    redone = _replaced_unread(sim, top_super)
    for e in resim.events:
        if not e.ancestor or e.shadow or e.kind == "touch" or _event_key(e) in before:
            continue
        if e.kind in ("assign", "buffer") and e.cost == NONE and e.name in redone:
            continue  # (a placeholder, ``else: self.head = None``, the class replaces)
        what = f"`self.{e.name}`" if e.kind in ("assign", "buffer") else f"`{e.name}`"
        return (
            f"also switches on {what} in {_label(e.fn)} ({_where(e.fn, e.effect.span.line)}): "
            "passing it may run more work than it saves"
        )
    uses = _FlagUses(sim, flag.off_value, switched, redone)
    found = uses.first_use(flag.function, flag.param)
    if found is None:
        return ""
    fn, line = found
    return f"is also used by {_label(fn)} ({_where(fn, line)}), which passing it would change too"


def _writes_file(sim: Simulation, ev: Event) -> bool:
    """Whether the statement of ``ev``, or a function it runs, writes a file."""
    span = ev.effect.span
    if lines_write_storage(ev.fn.module.path, span.line, span.end_line):
        return True
    ran = [ev, *sim.inside(ev)] if ev.kind in ("call", "super_init") else [ev]
    return any(e.callee is not None and writes_storage(e.callee) for e in ran)


def _where(fn: FunctionInfo, line: int) -> str:
    return f"{fn.module.path.name}:{line}"


def _replaced_unread(sim: Simulation, top_super: Event) -> frozenset[str]:
    """The attributes C itself sets, on every path, after its super call and before
    anything reads them: what the ancestor left there is never seen."""
    after = [e for e in sim.events if e.index > top_super.index and not e.shadow]
    out: set[str] = set()
    read: set[str] = set()
    for e in after:
        if e.kind == "touch":
            read |= e.effect.reads
        elif not e.ancestor and e.status == TRUE and e.kind in ("assign", "buffer"):
            if e.name not in read and not (e.reads & {e.name}):
                out.add(e.name)
    return frozenset(out)


@dataclass
class _FlagUses:
    """Where a flag's value is used besides the tests that switch work off, read from the
    sources of the functions it reaches (``first_use``)."""

    sim: Simulation
    off_value: bool
    switched: list[Event]
    redone: frozenset[str]
    seen: set[str] = field(default_factory=set)

    def first_use(self, fn: FunctionInfo, param: str) -> tuple[FunctionInfo, int] | None:
        """The first line of ``fn`` that uses ``param`` otherwise: read, stored, tested to
        decide anything but switched-off work, or handed to code that does; None when
        none. What it is handed to whole, an ancestor's ``__init__`` the construction ran,
        is followed as the parameter it binds there; a method it is handed to is a use (a
        subclass anywhere may override it)."""
        key = f"{fn.qualname}:{param}"
        if key in self.seen:
            return None
        self.seen.add(key)
        span = fn.facts.span
        tree = source_tree(fn.module.path, span.line, span.end_line)
        body = fn.facts.load()
        if tree is None or isinstance(body, BodyError):
            return fn, span.line
        if fn.facts.decorators:
            return fn, span.line  # (a decorator may record the arguments: ``register_to_config``)
        shift = span.line - 1
        off = {e.effect.span.line for e in self.switched if e.fn.qualname == fn.qualname}
        skipped: set[int] = set()  # ids of nodes accounted for
        local = frozenset(
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
        reader = self._frame_reader(fn)
        if reader is not None:
            return reader
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _reads_frame(node):
                return fn, node.lineno + shift  # (``locals()``, ``save_hyperparameters()``)
            if id(node) in skipped:
                skipped.update(id(n) for n in ast.iter_child_nodes(node))
                continue
            if isinstance(node, ast.Expr) and _reporting(node.value):
                skipped.update(id(n) for n in ast.iter_child_nodes(node))
                continue  # (``log.info("lite=%s", lite)``: text out, nothing built)
            if isinstance(node, ast.If) and _mentions(node.test, param):
                if not self._switch(node, param, off, shift, local):
                    return fn, node.lineno + shift
                skipped.update(id(n) for n in ast.iter_child_nodes(node))
                continue
            if isinstance(node, ast.Call):
                handed, use = self._handed(body.effects, node, param, shift)
                if use is not None:
                    return use
                skipped.update(id(a) for a in handed)
                continue
            if isinstance(node, ast.Name) and node.id == param:
                return fn, node.lineno + shift
        return None

    def _switch(
        self, node: ast.If, param: str, off: set[int], shift: int, local: frozenset[str]
    ) -> bool:
        """An ``if`` whose test passing the flag makes false (``if not lite:``, or ``and``
        with more), whose body is work the flag switches off, and whose ``else`` is empty
        or holds only constants the class sets again itself."""
        test = node.test
        tests = (
            test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        )
        if not any(_false_when(t, param, self.off_value) for t in tests):
            return False
        if any(_mentions(t, param) and not _false_when(t, param, self.off_value) for t in tests):
            return False
        lines = [stmt.lineno for stmt in node.body]
        if len(set(lines)) != len(lines):
            return False  # (``a; b`` on one line: which one is the work is not told apart)
        for stmt in node.body:
            if isinstance(stmt, ast.Pass) or _docstring(stmt):
                continue
            if not _plain_work(stmt, local):
                return False  # (a ``for``/``with``/``if``, a local bound or handed on)
            if stmt.lineno + shift not in off:
                return False
        orelse = node.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):  # an ``elif``
            inner = orelse[0]
            if not _mentions(inner.test, param):
                return False  # (it runs once the flag is passed: work switched on)
            return self._switch(inner, param, off, shift, local)
        return all(_placeholder(stmt, self.redone, param) for stmt in orelse)

    def _frame_reader(self, fn: FunctionInfo) -> tuple[FunctionInfo, int] | None:
        """A method ``fn``'s frame ran, or ``fn``'s class's decorator, that may read its
        arguments without naming them (``inspect.currentframe().f_back``, a decorator that
        records the constructor's arguments): where, or None."""
        owner = fn.owner
        if owner is not None and owner.facts.decorators:
            return fn, owner.facts.span.line
        for e in self.sim.events:
            if e.kind != "call" or e.callee is None or e.fn.qualname != fn.qualname:
                continue
            span = e.callee.facts.span
            tree = source_tree(e.callee.module.path, span.line, span.end_line)
            if tree is None or any(
                isinstance(n, ast.Call) and _reads_frame(n) for n in ast.walk(tree)
            ):
                return fn, e.effect.span.line
        return None

    def _handed(
        self, effects: tuple[Effect, ...], call: ast.Call, param: str, shift: int
    ) -> tuple[list[ast.expr], tuple[FunctionInfo, int] | None]:
        """A call handing the flag on whole to code the construction ran: the arguments
        that hand it (their mention is no use here), and the first use where it goes.
        No arguments for a call that hands it on otherwise, or that was not followed: its
        mention is then a use, found as a name."""
        given: list[ast.expr] = [a for a in call.args if isinstance(a, ast.Name) and a.id == param]
        given += [
            k.value for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == param
        ]
        if not given:
            return [], None
        line = call.lineno + shift
        eff = next(
            (
                e
                for e in effects
                if e.kind in ("call", "super_init")
                and e.span.line == line
                and any(a.expr.kind == "name" and a.expr.name == param for a in e.args)
            ),
            None,
        )
        if eff is None:
            return [], None
        for arg in eff.args:
            if arg.expr.kind != "name" or arg.expr.name != param:
                continue
            target = _bound_super_param(self.sim, eff, arg)
            if target is None:
                return [], None
            found = self.first_use(*target)
            if found is not None:
                return given, found
        return given, None


_REPORTS = frozenset("debug info warning warn error critical exception log".split())
# What a logging call is made on: the modules, and the names modules give their loggers.
_LOGGERS = frozenset("warnings logging log logger _log _logger LOG LOGGER".split())


def _reporting(value: ast.expr) -> bool:
    """A call that only reports: ``print(...)``, ``warnings.warn(...)``, or a logging
    method called on the logging module or a module's logger (``logger.info(...)``), with
    arguments that build nothing."""
    if not isinstance(value, ast.Call):
        return False
    if any(isinstance(n, ast.Call | ast.NamedExpr) for a in _arguments(value) for n in ast.walk(a)):
        return False  # (an argument that builds or binds something is more than text)
    func = value.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    if not isinstance(func, ast.Attribute) or func.attr not in _REPORTS:
        return False
    owner = func.value
    return isinstance(owner, ast.Name) and owner.id in _LOGGERS


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def _reads_frame(node: ast.Call) -> bool:
    """A call that reads a function's arguments without naming them: ``locals()``,
    ``vars()``, the frame, or a ``save_hyperparameters()`` / ``store_attr()``."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if name in ("locals", "vars"):
        return not node.args
    return name in ("save_hyperparameters", "store_attr", "currentframe", "_getframe")


def _plain_work(stmt: ast.stmt, local: frozenset[str]) -> bool:
    """``self.x = v`` (one target), or a call as a statement, binding no local and handing
    none to a function or method (a list a helper fills is more than the work; a class,
    named with a capital, reads what it is given)."""
    if any(isinstance(n, ast.NamedExpr) for n in ast.walk(stmt)):
        return False
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1 or not _self_attr(targets[0]):
            return False
    elif not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    for call in (n for n in ast.walk(stmt) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in local:
                return False  # (``layers.append(...)``)
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name[:1].isupper():
            continue  # (a class: ``nn.Linear(d, hidden)`` reads the local it is given)
        if any(isinstance(a, ast.Name) and a.id in local for a in _arguments(call)):
            return False  # (``self._add_head(layers, d)``: a helper may fill it)
    return True


def _self_attr(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    )


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _false_when(test: ast.expr, name: str, value: bool) -> bool:
    """Whether ``test`` is ``name`` or ``not name`` and false when ``name`` holds ``value``."""
    if isinstance(test, ast.Name) and test.id == name:
        return not value
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        return isinstance(inner, ast.Name) and inner.id == name and value
    return False


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _placeholder(stmt: ast.stmt, redone: frozenset[str], param: str) -> bool:
    """``self.x = <constant or name>`` or ``self.register_parameter("x", None)`` (or a
    buffer), where the class sets ``x`` again itself: no work, and nothing it ends with
    (the flag's own name is a use of it)."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        plain = isinstance(value, ast.Constant) or (
            isinstance(value, ast.Name) and value.id != param
        )
        return _self_attr(target) and plain and getattr(target, "attr", "") in redone
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        func = call.func
        if not isinstance(func, ast.Attribute) or len(call.args) != 2:
            return False
        name, value = call.args
        return (
            func.attr in ("register_parameter", "register_buffer")
            and isinstance(name, ast.Constant)
            and isinstance(value, ast.Constant)
            and value.value is None
            and name.value in redone
        )
    return False


def _bound_super_param(sim: Simulation, eff: Effect, arg: Arg) -> tuple[FunctionInfo, str] | None:
    """The ancestor's ``__init__`` a super call ran and the parameter ``arg`` binds there;
    None for any other call (a method: a subclass anywhere may override it), a call the
    construction did not follow, or a binding not written out."""
    if eff.kind != "super_init" or arg.star:
        return None
    callee = next((e.callee for e in sim.events if e.effect is eff and e.callee is not None), None)
    if callee is None:
        return None
    bound = _bound_param(eff, arg, callee)
    return None if bound is None else (callee, bound)


def _bound_param(eff: Effect, arg: Arg, callee: FunctionInfo) -> str | None:
    """The parameter of ``callee`` that ``arg`` of the call ``eff`` binds."""
    params = callee.facts.params
    if arg.keyword is not None:
        return arg.keyword if any(p.name == arg.keyword for p in params) else None
    given = [a for a in eff.args if a.keyword is None and not a.star]
    if eff.kind == "super_init" and eff.detail == "explicit":
        given = given[1:]  # ``Base.__init__(self, ...)``
    place = given.index(arg) if arg in given else -1
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    if callee.owner is not None:
        positional = positional[1:]  # ``self``
    if place < 0 or place >= len(positional):
        return None
    return positional[place].name


def _event_key(e: Event) -> tuple[str, int, str, str]:
    """What identifies a piece of work across two simulations of one class."""
    return (e.fn.qualname, id(e.effect), e.kind, e.name)


def _under_flag(sim: Simulation, flag: FlagRef) -> list[Event]:
    """The ancestor events a flag guards (with the calls made under it)."""
    key = (flag.function.qualname, flag.param, flag.off_value)
    return [
        e
        for e in sim.events
        if e.ancestor and any((g.function.qualname, g.param, g.off_value) == key for g in e.flags)
    ]


def _guarded(sim: Simulation, site: Event, attr: str) -> list[Event]:
    """The events a new guard around ``site``'s statement would switch off: the statement's,
    and those of the statements right after it that read ``self.<attr>`` (the wrap moves
    them under the guard too)."""
    out = statement_events(sim, site)
    if not attr:
        return out
    frame = [e for e in sim.events if e.frame == site.frame and e.index > out[-1].index]
    seen = site.effect.stmt_span
    for e in frame:
        if e.effect.stmt_span == seen:
            continue
        seen = e.effect.stmt_span
        if e.kind != "touch" or attr not in e.effect.reads or e.effect.guard != site.effect.guard:
            break
        out += statement_events(sim, e)
    return out


def _reads_changed(sim: Simulation, first: Event, ev: Event) -> str | None:
    """Why the repeat is not the same computation: something it reads was written between
    the two (or the first one updates what it reads); None when it is the same."""
    mine, theirs = statement_events(sim, ev), statement_events(sim, first)
    read = reads(mine) | reads(theirs)
    between = sim.events[theirs[-1].index + 1 : mine[0].index]
    hit = meet(read, writes(between))
    what = f"`self.{ev.name}()`" if ev.kind == "call" else f"`{ev.name}`"
    if hit:
        name = sorted(hit)[0]
        writer = next(e for e in between if meet({name}, writes([e])))
        shown = "everything (`self` is passed on)" if name == EVERYTHING else f"`self.{name}`"
        return (
            f"{what} reads {shown}, which {_label(writer.fn)} writes in between "
            f"(line {writer.effect.span.line}): the second one is a different computation"
        )
    updated = (exposed_reads(theirs) & writes(theirs)) - {EVERYTHING}
    if updated:
        return f"{what} reads and updates `self.{sorted(updated)[0]}`: a second run differs"
    more = _walked(mine) - _walked(theirs)
    if more:
        return (
            f"{what} walks the object again and fills `self.{sorted(more)[0]}` too, "
            "which was made in between: deleting it would leave that tensor unfilled"
        )
    return None


def _walked(events: list[Event]) -> set[str]:
    """The tensors the passes among ``events`` fill (``for p in self.parameters():``)."""
    return {name for e in events if e.kind == "pass" for _, name, _ in e.covers}


def _wrap_line(fn: FunctionInfo, eff: Effect, attr: str) -> int:
    """Wrap the whole top-level `with` when it exists only to do this work (e.g. open+load)."""
    span = eff.stmt_span or eff.span
    if not eff.top_with:
        return span.line
    same = [e for e in fn.facts.effects if e.top_line == eff.top_line]
    only_this = all(
        e.kind in ("local", "touch")
        or (e.kind in ("assign", "buffer") and e.name == attr)
        or (e.kind == "call" and e.feeds)
        for e in same
    )
    return eff.top_line if only_this and attr else span.line


def _flag_for(sim: Simulation, site: Event) -> str:
    """A new flag's name, after the statement it guards (``site``, in the ancestor __init__):
    the attribute the statement assigns or registers (``self.pooler = self._build_pooler()``
    gives ``init_pooler``), else the method it calls (``self._build_cache()`` gives
    ``init_build_cache``). Not after the finding's own work, which may sit deeper in a call
    the statement makes (``_build_pooler`` building ``self.mlm_head``)."""
    own = [e for e in statement_events(sim, site) if e.frame == site.frame]
    named = next((e for e in own if e.kind in ("buffer", "assign") and e.name), None)
    if named is None:
        named = next((e for e in own if e.kind == "call" and e.name), site)
    base = re.sub(r"\W", "_", named.name.lstrip("_")) or "setup"
    return f"init_{base}"


def _label(fn: FunctionInfo) -> str:
    parts = fn.qualname.split(".")
    return ".".join(parts[-2:])


def _statement_source(ev: Event) -> str | None:
    span = ev.effect.stmt_span or ev.effect.span
    return source_lines(ev.fn.module.path, span.line, span.end_line)


def _statement_text(ev: Event) -> str | None:
    chunk = _statement_source(ev)
    return None if chunk is None else ast.dump(ast.parse(chunk))


def _writes(sim: Simulation, ev: Event) -> set[str]:
    """Names of buffers/attributes written by ``ev`` or by the frames it called."""
    if ev.kind in ("buffer", "assign"):
        return {ev.name}
    return {e.name for e in sim.inside(ev) if e.kind in ("buffer", "assign")}


def _written_between(sim: Simulation, first: Event, ev: Event) -> bool:
    names = _writes(sim, first) | _writes(sim, ev)
    skip = {first.index, ev.index}
    for e in sim.events[first.index + 1 : ev.index]:
        if e.shadow or e.index in skip or e.kind not in ("buffer", "assign"):
            continue
        if e.name in names and not _descends(sim, e, first):
            return True
    return False


def _descends(sim: Simulation, e: Event, root: Event) -> bool:
    p = e.parent
    while p is not None:
        if p == root.index:
            return True
        p = sim.events[p].parent
    return False


def _reads_locals(ev: Event) -> bool:
    text = _statement_source(ev)
    if text is None:
        return True
    facts = ev.fn.facts
    local = {p.name for p in facts.params[1:]} | {
        e.name for e in facts.effects if e.kind == "local"
    }
    loaded = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    return bool(loaded & local)


def _single_effect_statement(ev: Event) -> bool:
    """The statement is a bare expression statement holding just this effect."""
    eff = ev.effect
    span = eff.stmt_span
    return (
        span is not None
        and (span.line, span.col) == (eff.span.line, eff.span.col)
        and ((span.end_line, span.end_col) == (eff.span.end_line, eff.span.end_col))
    )

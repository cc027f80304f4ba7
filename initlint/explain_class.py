"""``initlint explain-class pkg.mod:Class``: the simulated construction of one class.

Prints every event of constructing the class, in order and indented by call depth, with its
site, the code that performed it, its guard status, its cost class and where it comes from,
and what it reads; then the rule decision for each piece of the class's own work: the
finding it gives, or why it gives none. It is the tool to debug a miss or a false finding.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from initlint.driver import analyze
from initlint.errors import ConfigError
from initlint.facts.model import BodyError
from initlint.index.records import ClassInfo
from initlint.options import PYTHON_OPTION, python_override
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.check import body_syntax_diag
from initlint.rules import REGISTRY, findings_of
from initlint.rules.base import DisabledFinding, RepeatFinding
from initlint.rules.refills import pass_walk
from initlint.rules.repeats import deletions, ruled_out_by_delete
from initlint.settings import with_overrides
from initlint.simulation.binding import DIFFER, own_defaults, same_args, why_different
from initlint.simulation.levels import COST_NAMES, NONE
from initlint.simulation.records import Event, Raise, Simulation, SimulationLimit, never_both
from initlint.simulation.values import MAYBE

EXIT_OK, EXIT_ERROR = 0, 2


def _find_class(analysis: Analysis, target: str) -> ClassInfo | None:
    module, sep, name = target.partition(":")
    if not sep:
        module, _, name = target.rpartition(".")
    index = analysis.index
    info = index.class_info(f"{module}.{name}")
    if info is None:
        mod = index.module(module) if index.has_module(module) else None
        if mod is not None:
            info = next((c for c in index.classes_of(mod) if c.facts.qualname == name), None)
    return info


def _numbers(sim: Simulation) -> dict[int, int]:
    """The number each shown event goes by. ``touch`` events (the statement reads or writes
    ``self`` attributes; the fix planner's read sets) are no work: not shown, not counted."""
    shown = (ev for ev in sim.events if ev.kind != "touch")
    return {ev.index: n for n, ev in enumerate(shown)}


def _depth(sim: Simulation, ev: Event) -> int:
    depth = 0
    parent = ev.parent
    while parent is not None:
        depth += 1
        parent = sim.events[parent].parent
    return depth


def _where(analysis: Analysis, ev: Event) -> str:
    return f"{analysis.display(ev.fn.module.path)}:{ev.effect.span.line}"


def _label(ev: Event) -> str:
    if ev.kind == "call":
        return f"call self.{ev.name}({ev.args_key})"
    if ev.kind == "super_init":
        if ev.callee is None:
            return "super().__init__ -> (outside the project: not simulated)"
        callee = ev.callee.qualname.rsplit(".", 2)
        return f"super().__init__ -> {'.'.join(callee[-2:])}"
    if ev.kind == "buffer":
        return f"{ev.effect.detail or 'buffer'} {ev.name}"
    if ev.kind == "mutate":
        return f"fill self.{ev.name}"
    if ev.kind == "delete":
        return f"delete self.{ev.name}"
    if ev.kind == "nested":
        return f"replace self.{ev.name}"
    if ev.kind == "init":
        return f"initialise self.{ev.name} in place"
    if ev.kind == "pass":
        filled = sorted({f"self.{name}" for _, name, _ in ev.covers}) or ["nothing for sure"]
        return f"{pass_walk(ev).replace('`', '')}: fills {', '.join(filled)}"
    if ev.kind == "local":
        return f"build into local {ev.name}"
    if ev.kind == "rerun" and ev.inner_fills:
        filled = sorted({f"self.{name}" for _, name, _, _ in ev.inner_fills})
        return f"run {ev.name}() again on a module built here: fills {', '.join(filled)}"
    if ev.kind == "rerun":
        return f"run {ev.name}() again on an object built here"
    if ev.kind == "dropped":
        return f"take part {ev.name} of an object built here, and drop the object"
    if ev.kind == "objattr":
        return f"replace {ev.name} (a part of a local's object)"
    if ev.kind == "fallback":
        return f"build {ev.constructs} for {ev.name}(...), which may pick {ev.args_key}"
    if ev.kind == "redrawn":
        return f"fill the whole local {ev.name} in place, made of random draws"
    return f"assign self.{ev.name}"


def _assumed(sym: str, test: str, holds: bool) -> str:
    if test == "truthy":
        return f"{sym} is {'true' if holds else 'false'}"
    return f"{sym} {'==' if holds else '!='} {test}"


def render_events(analysis: Analysis, sim: Simulation) -> list[str]:
    out = []
    num = _numbers(sim)
    raised = {r.event: r for r in sim.raises}
    for ev in sim.events:
        if ev.kind == "touch":
            if ev.index in raised:
                out.append(_raise_line(analysis, sim, ev, raised[ev.index]))
            continue
        guard = (
            "off (switched off by a flag)"
            if ev.shadow
            else ("unknown" if ev.status == MAYBE and not ev.possibly else "true")
        )
        part = "ancestor" if ev.ancestor else "own"
        bits = [f"guard {guard}", part]
        if ev.possibly:
            bits.append(f"possibly: {ev.possibly}")
        if ev.kind not in ("super_init",):
            bits.append(f"cost {COST_NAMES[ev.cost]}{_cost_source(analysis, sim, ev)}")
        if ev.reads:
            bits.append("reads " + ", ".join(sorted(ev.reads)))
        if ev.derived:
            bits.append("derived from its current value")
        if ev.copied_by:
            bits.append(f"its current value handed to {ev.copied_by}, which keeps only copies")
        if ev.flags:
            bits.append("flags " + ", ".join(f.param for f in ev.flags))
        if ev.assume:
            shown = ", ".join(_assumed(*a) for a in ev.assume)
            bits.append(f"assumes {shown}")
        indent = "  " * _depth(sim, ev)
        owner = ev.fn.qualname.rsplit(".", 2)
        out.append(
            f"  #{num[ev.index]:<3} {indent}{_label(ev)}  {_where(analysis, ev)}  "
            f"in {'.'.join(owner[-2:])}  [{'; '.join(bits)}]"
        )
        if ev.index in raised:
            out.append(_raise_line(analysis, sim, ev, raised[ev.index]))
    return out


def _cost_source(analysis: Analysis, sim: Simulation, ev: Event) -> str:
    """Where an event's cost comes from: the method a call runs; for a stored value, its
    costliest call and why (the construction simulated, what initlint knows of a library,
    or why it is unknown). "" for work that costs nothing."""
    if ev.cost == NONE:
        return ""
    if ev.kind == "call" and ev.callee is not None:
        return f": runs {ev.callee.qualname}"
    if ev.kind in ("assign", "buffer", "mutate", "nested"):
        level, why = analysis.simulator.cost.why_of(ev.effect.value, ev.fn.module, sim.mro)
        if why and ev.heavy_when:  # priced heavy on its heaviest path, light on its cheapest
            return f": {why}; {ev.heavy_when}"
        if why and level == ev.cost:
            return f": {why}"
        # (the cost came through what a name of the frame holds: a local, or an argument
        # bound to a class or a size)
        return ": from what the frame's locals and arguments hold"
    return ""


def _raise_line(analysis: Analysis, sim: Simulation, ev: Event, r: Raise) -> str:
    """Where a path raises: a read of an attribute nothing has set yet (AttributeError), a
    call Python refuses (TypeError)."""
    owner = ev.fn.qualname.rsplit(".", 2)
    rest = (
        "every construction stops here"
        if r.certain
        else "the path under its undecided guards stops here: what follows on it is not done"
    )
    why = (
        f"self.{r.what} is read before anything sets it"
        if r.error == "AttributeError"
        else f"the call's arguments do not bind to {r.what}'s parameters"
    )
    return (
        f"  !    {'  ' * _depth(sim, ev)}raises {r.error}: {why}  {_where(analysis, ev)}  "
        f"in {'.'.join(owner[-2:])}  [{rest}]"
    )


def _why_not(
    sim: Simulation, ev: Event, findings: dict[int, RepeatFinding], num: dict[int, int]
) -> str:
    """Why an own event of the class gives no finding."""
    if ev.shadow:
        return "switched off by a flag"
    if ev.kind == "delete":
        return "a deletion: it builds nothing (it shows which ancestor branch ran)"
    if ev.kind == "assign" and not ev.expensive:
        return "cheap value (constant, name, attribute read or None): not a rebuild"
    if ev.kind == "call" and not ev.expensive:
        return "the method does no costly work (or is memoised): not a repeat"
    if ev.derived:
        return f"computed from the current value of `{ev.name}`: the earlier build was used"
    if ev.kind == "nested":
        return _why_not_nested(ev, num)
    parent = ev.parent
    while parent is not None:
        if parent in findings:
            return f"inside the call #{num[parent]}, reported as {findings[parent].code}"
        parent = sim.events[parent].parent
    same = [
        e
        for e in sim.events
        if e.ancestor
        and not e.shadow
        and e.index < ev.index
        and (
            (ev.kind == "call" and e.kind == "call" and e.callee == ev.callee)
            or (ev.kind != "call" and e.kind in ("buffer", "assign") and e.name == ev.name)
        )
    ]
    if not same:
        return "the ancestors did not build it (no earlier build in the construction)"
    if all(never_both(e, ev) for e in same):
        return f"its guard excludes the ancestor's (#{num[same[-1].index]}): never both run"
    deletes, created = deletions(sim)
    gone = [d for e in same if (d := ruled_out_by_delete(e, ev, deletes, created)) is not None]
    if len(gone) == len(same):  # (``same`` is not empty)
        d = gone[-1]
        return (
            f"it deletes `{d.name}` first (#{num[d.index]}), which only an ancestor branch "
            f"that excludes #{num[same[-1].index]} builds: that build never ran"
        )
    if ev.kind == "call":
        defaults = own_defaults(sim.top_fn.facts.params)
        if all(same_args(e.arg_keys, ev.arg_keys, defaults) == DIFFER for e in same):
            last = same[-1]
            why = why_different(last.arg_keys, ev.arg_keys, defaults)
            return (
                f"called with other arguments than #{num[last.index]} ({why}): a different "
                "computation"
            )
    if ev.kind == "call":
        return "its result goes to another attribute, or only feeds a reported statement"
    return "the ancestor's value was cheap, or the statement is reported as another rule"


def _why_not_nested(ev: Event, num: dict[int, int]) -> str:
    holder, _, part = ev.name.partition(".")
    if not ev.expensive:
        return "cheap value (constant, name, attribute read or None): not a rebuild"
    if ev.holder is None:
        return f"nothing earlier in the construction assigned `self.{holder}`"
    if not ev.holder.ancestor:
        return f"`self.{holder}` is this class's own (#{num[ev.holder.index]}), not the ancestors'"
    if not ev.inner:
        return (
            f"building `self.{holder}` (#{num[ev.holder.index]}) built no costly `{part}` "
            "(or its class is not a project or dependency class initlint can simulate)"
        )
    return f"its guard excludes the one of `self.{holder}` (#{num[ev.holder.index]})"


def render_decisions(analysis: Analysis, sim: Simulation) -> list[str]:
    findings = findings_of(sim)
    by_event = {f.event.index: f for f in findings if isinstance(f, RepeatFinding)}
    # Builds a finding says are thrown away within the construction (its rule's
    # ``discards_first``), by the build's event.
    thrown = {
        f.first.index: f
        for f in findings
        if isinstance(f, RepeatFinding) and REGISTRY[f.code].discards_first and _own(sim, f.first)
    }
    also = {b.index: f for f in thrown.values() for b in f.alternatives}
    out = []
    num = _numbers(sim)
    for ev in sim.events:
        if ev.ancestor or ev.kind in ("super_init", "touch"):
            continue
        f = by_event.get(ev.index)
        if f is not None and REGISTRY[f.code].discards_first:
            out.append(_discard_line(analysis, sim, f, num))
        elif ev.index in thrown:
            g = thrown[ev.index]
            out.append(f"  #{num[ev.index]:<3} thrown away: {g.code} at #{num[g.event.index]}")
        elif ev.index in also:
            g = also[ev.index]
            out.append(
                f"  #{num[ev.index]:<3} replaces #{num[g.first.index]} too, on other paths "
                f"({g.code} at #{num[g.event.index]})"
            )
        elif f is not None:
            d = f.discarded
            maybe = " (possibly)" if f.confidence == "possible" else ""
            # a part of a submodule: the build is an event of the submodule's construction
            ref = f"#{num[d.index]} at " if f.holder is None else "the build at "
            alts = "".join(f" or #{num[b.index]} at {_where(analysis, b)}" for b in f.alternatives)
            out.append(
                f"  #{num[ev.index]:<3} {f.code} {f.severity}{maybe}: {f.what} repeats "
                f"{ref}{_where(analysis, d)}{alts} (cost {COST_NAMES[f.cost]}"
                f"{', the heaviest that may have run last' if alts else ''})"
            )
        else:
            out.append(f"  #{num[ev.index]:<3} no finding: {_why_not(sim, ev, by_event, num)}")
    for h in findings:
        if isinstance(h, DisabledFinding):  # at no statement of the class: its rule words it
            out.append(f"  {h.code} {h.severity}: {REGISTRY[h.code].decision(h)}")
    return out


def _own(sim: Simulation, e: Event) -> bool:
    """Whether ``e`` is an event of the construction ``sim`` (not of a held module's own
    construction, whose events a finding may name: a part it built)."""
    return e.index < len(sim.events) and sim.events[e.index] is e


def _discard_line(
    analysis: Analysis, sim: Simulation, f: RepeatFinding, num: dict[int, int]
) -> str:
    """A store that throws away a build of the same construction (IL005), as its rule
    words the decision."""
    maybe = " (possibly)" if f.confidence == "possible" else ""
    also = "".join(f", #{num[b.index]}" for b in f.alternatives if b.index in num)
    # a part of a submodule: the build is an event of the submodule's construction
    first = f"#{num[f.first.index]} at " if _own(sim, f.first) else "the build at "
    return (
        f"  #{num[f.event.index]:<3} {f.code} {f.severity}{maybe}: "
        f"{REGISTRY[f.code].decision(f)}: {first}{_where(analysis, f.first)}, "
        f"{'filled again' if f.event.kind in ('init', 'redrawn') else 'replaced'} here"
        f"{f' (and at {also[2:]})' if also else ''} (cost {COST_NAMES[f.cost]})"
    )


@click.command("explain-class")
@click.argument("target")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@click.option("--no-cache", is_flag=True, help="Neither read nor write .initlint_cache/.")
@PYTHON_OPTION
def explain_class(target: str, paths: tuple[Path, ...], no_cache: bool) -> None:
    """Print the simulated construction of TARGET (pkg.mod:Class) and each rule decision.

    Every event of constructing the class is listed in order, indented by call depth: its
    site, the method that performed it, whether its guard is true, unknown (a "possibly"
    finding) or switched off by a flag, whether it ran in the ancestor part (during
    super().__init__()) or the class's own, its cost class (none, light, unknown, heavy)
    and where that comes from (the construction initlint simulated, what it knows of a
    library, or why it is not known), the self attributes it reads, the flags that guard it
    and the arguments its guard assumes. Then, for each piece of the class's own work, the
    finding it gives or why it gives none.
    PATHS (default: the current folder) locate the project.

    \b
    Example:
      initlint explain-class pkg.models.llama:LlamaAttention src/
      initlint explain-class --python .venv pkg.models.llama:LlamaAttention
    """
    over = python_override({})  # the environment ``check --python`` would read
    try:
        analysis = analyze(
            list(paths) or [Path.cwd()],
            use_cache=not no_cache,
            overrides=(lambda settings: with_overrides(settings, over)) if over else None,
        )
    except ConfigError as exc:  # a bad --python or configuration, said as check says it
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    info = _find_class(analysis, target)
    if info is None:
        click.echo(f"error: no class {target!r} in the project at {analysis.root}", err=True)
        sys.exit(EXIT_ERROR)
    mro = analysis.index.mro(info.qualname)
    click.echo(
        f"class {info.qualname} ({analysis.display(info.module.path)}:{info.facts.span.line})"
    )
    click.echo("MRO: " + " -> ".join(mro.classes))
    try:
        sim = analysis.simulator.simulate(info)
    except SimulationLimit as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if isinstance(sim, BodyError):  # a body its construction reads does not parse
        diag = body_syntax_diag(analysis, sim)
        where = f"{diag.path}:{diag.line}:{diag.column}: " if diag is not None else ""
        click.echo(f"error: {where}cannot parse: {sim.msg}", err=True)
        sys.exit(EXIT_ERROR)
    if sim is None:
        click.echo("no __init__ to simulate (or no consistent MRO)")
        sys.exit(EXIT_OK)
    click.echo("events:")
    for line in render_events(analysis, sim):
        click.echo(line)
    click.echo("decisions:")
    for line in render_decisions(analysis, sim) or ["  (the class does no work of its own)"]:
        click.echo(line)

"""IL005's analysis: a value stored on ``self`` and replaced later in the same construction,
with nothing reading it in between, read from the ordered events of one simulation."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from initlint.diagnostics import Confidence
from initlint.facts.model import BodyError, Effect, Expr, handed_more_than
from initlint.facts.passes import TENSOR_READERS
from initlint.records import dataclass
from initlint.rules.base import RepeatFinding, confidence_of
from initlint.rules.repeats import built_name, part_of, tested_absent
from initlint.rules.shapes import relation, turn_ends_between
from initlint.simulation.arguments import param_of, without_self
from initlint.simulation.children import CHILDREN_LEFT
from initlint.simulation.levels import LIGHT, NONE, UNKNOWN
from initlint.simulation.records import (
    SOME_CHOICES,
    Event,
    Simulation,
    ended_paths,
    every_path,
    item_key,
    never_both,
    runs_whenever,
    shown_key,
    walk_machinery,
)
from initlint.simulation.torch_knowledge import (
    CONFIG_ATTRS,
    FROM_VALUES,
    SIZED_FACTORIES,
    TENSOR_FLAGS,
    parameter_data,
    positional_values,
)
from initlint.simulation.values import MAYBE

CODE = "IL005"
_STORES = ("assign", "buffer")
# What replaces a stored value: a store, or ``del self.x`` (it drops the value, as a store of
# ``None`` would; it is never a build itself).
_REPLACES = (*_STORES, "delete")
# Events that change or hand out the attribute's object in place: what they do to it may
# matter, so the value counts as used (``self.layers.append(x)``, ``self.a.b = c``).
_IN_PLACE = ("mutate", "nested")


@dataclass(frozen=True)
class Discard:
    """A build (``first``) that the construction replaces before anything reads it: the
    stores that replace it (``by``, in order), and whether they do on every path."""

    first: Event
    by: tuple[Event, ...]
    always: bool


def find_discards(sim: Simulation) -> list[RepeatFinding]:
    """IL005's findings on ``sim``: one per replacing store, about the heaviest build it
    throws away (the earliest among equals: both arms of an ``if`` may be replaced by one
    store after it)."""
    stores: dict[str, list[Event]] = {}
    uses: dict[str, list[Event]] = {}  # by name; "*": what may read every attribute
    # (``del self.x`` reads x only to drop it: its statement's touch is no use of x)
    # (nor is the read of a store that hands it to a class keeping only copies of it)
    dropped = {
        (e.frame, e.effect.stmt_span if e.kind == "delete" else e.effect.span, e.name)
        for e in sim.events
        if e.kind == "delete" or e.copied_by
    }
    # (torch's walk over the modules while ``apply`` runs a pass that only fills, or while a
    # loop runs a method of each again: the walk itself takes nothing out of the object)
    walking = walk_machinery(sim.events)
    for e in sim.events:
        if e.shadow:
            continue
        if e.kind in _REPLACES:
            stores.setdefault(e.name, []).append(e)
        elif _new_numbers(e):
            stores.setdefault(e.effect.name, []).append(e)
        flagged = e.kind == "nested" and e.effect.detail in TENSOR_FLAGS
        used = attribute_uses(e, sim.mro) if e.index not in walking and not flagged else ()
        filled = _in_place(e) if used and e.kind == "touch" else frozenset()
        if used and e.kind == "touch":
            # (``dev = self.freqs.device``, ``len(self.ups)``: what the value is, none of
            # its numbers: no use of it, as for a part; a test against None is a use here,
            # as what runs after it may depend on which value is there)
            filled |= e.effect.sized - e.effect.tested
        for name in used:
            if (e.frame, e.effect.span, name) not in dropped and name not in filled:
                uses.setdefault(name, []).append(e)
    found: dict[int, Discard] = {}
    for name, built in stores.items():
        if len(built) < 2:
            continue  # (most attributes are stored once: nothing else to look at)
        seen = sorted([*uses.get(name, ()), *uses.get("*", ())], key=lambda e: e.index)
        keys = [e.index for e in seen]
        for k, first in enumerate(built[:-1]):
            if first.kind in ("delete", "nested") or _placeholder(first):
                continue
            # the later stores of the name and what may use it, in the construction's order
            after = sorted(
                [*built[k + 1 :], *seen[bisect_right(keys, first.index) :]],
                key=lambda e: e.index,
            )
            got = _discard(sim, first, after)
            if got is None:
                continue
            known = found.get(got.by[0].index)
            if known is None or got.first.cost > known.first.cost:
                found[got.by[0].index] = got
    return sorted(
        [
            *(_finding(sim, found[k]) for k in found),
            *_part_discards(sim),
            *_local_discards(sim),
            *_reruns(sim),
            *_fallbacks(sim),
            *_redraws(sim),
            *_item_discards(sim),
        ],
        key=lambda f: f.event.index,
    )


def _new_numbers(e: Event) -> bool:
    """``self.w.data = v``: the tensor ``w`` holds takes other numbers whole (the object
    stays, what it held goes), from a value that reads nothing of ``w``."""
    if e.kind != "nested" or e.effect.detail != "data":
        return False
    return e.effect.name not in e.reads and "*" not in e.reads


def _in_place(touch: Event) -> frozenset[str]:
    """The attributes the statement ``touch`` heads only fills a tensor of in place
    (``nn.init.normal_(self.weight)``, ``self.weight[i].fill_(0)``), gives other numbers
    whole (``self.weight.data = w``) or sets a flag of (``self.weight.requires_grad =
    False``), or changes from its own numbers (``changed``): it writes into the value, which
    goes with it, and keeps nothing of it (what it reads of the value is its own use)."""
    changed = touch.effect.changed  # (``self.head.proj.weight.data.mul_(scale)``)
    return changed | frozenset(
        x.target.split(".")[0] if x.kind == "init" else x.name.split(".")[0]
        for x in _statement_effects(touch)
        if (x.kind == "init" and x.detail == "self" and x.target)
        or (x.kind == "nested" and x.detail in ("data", *TENSOR_FLAGS))
    )


def _statement_effects(touch: Event) -> list[Effect]:
    """The effects of the statement ``touch`` heads; [] where its body is not at hand."""
    span = touch.effect.stmt_span
    body = touch.fn.facts.load()
    if span is None or body is None or isinstance(body, BodyError):
        return []
    return [x for x in body.effects if x.stmt_span == span]


def _part_discards(sim: Simulation) -> Iterator[RepeatFinding]:
    """A part of an object the class's own code stored (``self.model = resnet50()``) or
    built into a local (``net = resnet50()``), replaced (``self.model.fc =
    nn.Linear(...)``, ``net.fc = ...``) or dropped (``= None``) before anything used the
    object: the part that object's own construction builds whatever it is given is thrown
    away. So is a part of an ancestor's object that the class drops (a rebuild of it is
    IL003's). Parts left behind with a dropped local: ``_local_discards``."""
    for e in sim.events:
        holder = e.holder
        if e.kind not in ("nested", "objattr") or holder is None or e.shadow or not e.inner:
            continue
        if e.derived or e.effect.detail == "__init__":
            continue
        if e.ancestor or holder.ancestor:
            if not (_handed_class(sim, holder, e) or (e.value_const and not e.ancestor)):
                continue
        if never_both(holder, e):
            continue
        # (the simulation only follows a local's object until it is first used)
        used_on_some: list[Event] = []
        if e.kind == "nested" and used_between(sim, holder, e, some=used_on_some):
            continue
        first = e.inner[-1]
        if _placeholder(first):
            continue  # (``self.conv = nn.Identity()`` in the object's class: a slot to fill)
        if first.status == MAYBE and first.possibly != SOME_CHOICES:
            # (the object was simulated with the arguments it was given unknown, and one
            # may leave the part out: ``nn.Linear(a, b, bias=flag)``; one of several
            # classes it may be builds the part: possibly thrown away)
            continue
        sliced = sliced_items(e)
        if e.kind == "nested":
            cls, place, what = part_of(e, holder)
            part = e.name.rpartition(".")[2] if CHILDREN_LEFT in e.kept else e.effect.detail
            where = f"{cls}'s own construction (the object {place})"
            argument = f"an argument of {cls}"
        else:
            cls = built_name(holder)
            part = e.name.partition(".")[2]
            local = f"the local `{holder.name}`"
            what = f"`{e.name}` (a part of the object `{cls}(...)` built into {local})"
            where = f"the construction of `{cls}(...)`"
            argument = "an argument there"
        if sliced:
            what = f"item{'s' if ',' in sliced else ''} {sliced} of {what}"
            no_fix = (
                f"the items of `{part}` are built by {where}: leaving some out needs "
                f"{argument} that does, which initlint does not propose"
            )
        else:
            no_fix = (
                f"`{part}` is built by {where}: building it without `{part}` needs "
                f"{argument} that switches the part off, which initlint does not propose"
            )
        at = project_call(sim, e) if not holder.fn.module.is_dependency else e
        yield RepeatFinding(
            CODE,
            sim,
            at,
            first,
            _part_confidence(sim, holder, e, first, used_on_some),
            what,
            cost=e.part_cost if sliced else _part_cost(first, holder),
            holder=holder,
            no_fix=no_fix,
            through=None if at is e else e,
        )


def _handed_class(sim: Simulation, holder: Event, e: Event) -> bool:
    """Whether an ancestor's code built ``holder`` by calling a class one of its parameters
    holds, given by the class's own super call (``super().__init__(ConvClass=nn.Conv2d)``),
    and then, in the same call, replaced a part of it (``e``): the ancestor's own simulation
    has that parameter unknown and cannot see the part, so the class that hands the class
    reports what its construction throws away."""
    if not (e.ancestor and holder.ancestor and e.frame == holder.frame) or holder.parent is None:
        return False
    value = holder.effect.value
    if value is None or value.kind != "call" or value.receiver is not None:
        return False
    body = holder.fn.facts.load()
    if body is None or isinstance(body, BodyError):
        return False
    if value.name not in {p.name for p in body.params}:
        return False
    call = sim.events[holder.parent]
    if call.kind != "super_init" or call.ancestor or call.callee is not holder.fn:
        return False
    args = call.effect.args
    params = without_self(body.params)
    return any(
        not a.star and (p := param_of(params, args, at)) is not None and p.name == value.name
        for at, a in enumerate(args)
    )


def project_call(sim: Simulation, e: Event) -> Event:
    """``e`` when the project's own code did it; else the call in the project's code that
    ran the installed dependency's code that did (``self.post_init()``)."""
    at = e
    while at.fn.module.is_dependency and at.parent is not None:
        at = sim.events[at.parent]
    return at


def sliced_items(e: Event) -> str:
    """For a part replaced by a slice of its own items (``self.vgg.classifier =
    nn.Sequential(*self.vgg.classifier[:-2])``): the numbers of the items left out, "5, 6";
    "" for any other replacement."""
    mark = next((k for k in e.kept if k.startswith("sliced:")), "")
    return mark.removeprefix("sliced:").replace(",", ", ")


def _part_cost(part: Event, holder: Event) -> int:
    """What building the part thrown away cost: its own build, at least light; never more
    than building the whole object did, when that is known to be light (a part of
    ``nn.Linear(width, 1)``, whose weight is a vector)."""
    if holder.cost == LIGHT and not holder.moved:
        return LIGHT
    return max(part.cost, LIGHT)


def _local_discards(sim: Simulation) -> Iterator[RepeatFinding]:
    """An object the class's own code built into a local (``net = resnet50()``) of which
    the frame took some parts (``self.body = net.layer4``) and then dropped the local,
    never handing the object on: the builds its construction made of the parts left, on
    every path, are thrown away. One finding per local, about the heaviest part left. The
    same for an object built only to take one part (``make(n).features``, a ``dropped``
    event): the rest goes at once."""
    for e in sim.events:
        if e.kind not in ("local", "dropped") or e.shadow or not e.inner:
            continue
        # (a part unpacked from the call that also made a part kept: that call's work is
        # not thrown away, only what the part holds, whose size is not known)
        priced = [min(p.cost, UNKNOWN) if _shares_its_call(p, e.kept) else p.cost for p in e.inner]
        cost = max(priced)
        first = e.inner[priced.index(cost)]  # (the earliest among equals)
        if cost <= LIGHT:
            continue  # a parameterless part left behind: nothing of weight lost
        cls = built_name(e)
        left = sorted({p.name for p, c in zip(e.inner, priced, strict=True) if c > LIGHT})
        named = ", ".join(f"`{n}`" for n in left[:3]) + (" and more" if left[3:] else "")
        yield RepeatFinding(
            CODE,
            sim,
            e,
            first,
            confidence_of(e, first),
            _left_what(e, named, cls),
            cost=cost,
            holder=e,
            no_fix=(
                f"{e.copied_by} keeps deep copies of `{cls}(...)`, not the object: build "
                f"the modules it needs directly, or let it keep the object as one of them"
                if e.copied_by
                else f"build `{cls}(...)` only on the paths that keep it"
                if e.kept_on_some
                else f"only some parts of the object `{cls}(...)` are kept: build those "
                f"parts alone, or give `{cls}(...)` an argument that leaves `{first.name}` out"
            ),
        )


def _fallbacks(sim: Simulation) -> Iterator[RepeatFinding]:
    """An object built as an argument of a call that may return another value instead
    (``default(proj, nn.Linear(d, d))``, a ``fallback`` event): Python builds it before the
    call, so it is thrown away whenever the call picks the other. Light ones are left out
    when the event is recorded."""
    for e in sim.events:
        if e.kind != "fallback" or e.shadow:
            continue
        yield RepeatFinding(
            CODE,
            sim,
            e,
            e,
            confidence_of(e),
            f"`{e.constructs}`",
            cost=e.cost,
            no_fix=_build_when_used(e.name),
        )


def _redraws(sim: Simulation) -> Iterator[RepeatFinding]:
    """A local made of random draws and filled whole before anything read it (a
    ``redrawn`` event, at the fill; its binding's event, where there is one, the first)."""
    for e in sim.events:
        if e.kind != "redrawn" or e.shadow:
            continue
        first = e.holder if e.holder is not None else e
        yield RepeatFinding(
            CODE,
            sim,
            e,
            first,
            confidence_of(e),
            f"the random values the local `{e.name}` was made with",
            cost=max(e.cost, LIGHT),
            no_fix=(
                "the tensor is drawn at random and then filled: make it with "
                "`torch.empty(...)`, which the fill overwrites anyway"
            ),
        )


def _item_discards(sim: Simulation) -> Iterator[RepeatFinding]:
    """``self.heads["a"] = A(...)`` and then ``self.heads["a"] = B(...)``, at a key written
    as the same constant, or the same name bound to nothing else in between (the facts
    number its bindings), with nothing reading the container in between: the first item is
    thrown away. (The statement that stores an item loads the container to do it, and
    reads nothing of it.)"""
    heads = {
        (t.frame, t.effect.stmt_span)
        for t in sim.events
        if t.kind == "mutate" and t.effect.detail == "item" and t.name not in t.reads
    }
    held: dict[tuple[str, str], Event] = {}
    for e in sim.events:
        if e.shadow:
            continue
        if e.kind == "mutate" and e.effect.detail == "item" and e.effect.target:
            key = (e.name, e.effect.target)
            first = held.get(key)
            if (
                first is not None
                and first.frame == e.frame  # (a name's binding is its frame's: one call's)
                and first.cost > LIGHT
                and e.name not in e.reads
                and not never_both(first, e)
                and relation(sim, first, e) in ("", "maybe")
                and not turn_ends_between(sim, first, e)
            ):
                yield RepeatFinding(
                    CODE,
                    sim,
                    e,
                    first,
                    confidence_of(e),
                    f"the item `self.{e.name}[{shown_key(e.effect.target)}]`",
                    cost=first.cost,
                    no_fix="the item is stored again at the same key: drop the first store",
                )
            held[key] = e
            continue
        if e.kind == "touch" and (e.frame, e.effect.stmt_span) in heads:
            continue
        used = set(attribute_uses(e, sim.mro)) | ({e.name} if e.kind in _REPLACES else set())
        if used:
            held = {k: v for k, v in held.items() if k[0] not in used and "*" not in used}


def _build_when_used(picker: str) -> str:
    """How to build a fallback only on the paths that use it, for a call named ``picker``."""
    if picker.endswith(".get"):
        return "build it only when the key is missing: `m[k] if k in m else ...`"
    if picker == "getattr":
        return "build it only when the attribute is missing: `getattr(o, n, None)`, then test"
    return (
        f"build it only where it is used: `x if x is not None else ...` instead of "
        f"`{picker}(x, ...)`, or pass {picker} a function that builds it"
    )


def _left_what(e: Event, named: str, cls: str) -> str:
    """How a finding of parts left names them: by the local the object was built into, the
    parameter of the ancestor's ``__init__`` it was built for, or the one part taken."""
    if e.kind == "dropped":
        return f"{named} of the object `{cls}(...)` whose `{e.name}` alone is taken"
    if e.copied_by:
        return f"{named} of the object `{cls}(...)`, which {e.copied_by} only copies"
    if e.effect.kind == "super_init":
        return f"{named} of the object `{cls}(...)` built for the base's __init__ as `{e.name}`"
    return f"{named} of the object `{cls}(...)` built into the local `{e.name}`"


def _shares_its_call(part: Event, kept: frozenset[str]) -> bool:
    """Whether ``part`` stores a local unpacked from one call with others (``betas, alphas,
    shb, sha = grid(...)``), one of which is stored as a part in ``kept``, the parts the
    frame took from the object."""
    value = part.effect.value
    body = part.fn.facts.load()
    if value is None or value.kind != "name" or isinstance(body, BodyError):
        return False
    effects = body.effects
    bound = next(
        (
            x
            for x in reversed(effects[: part.effect_index])
            if x.kind == "local" and x.name == value.name
        ),
        None,
    )
    if bound is None or bound.value is None or bound.value.kind != "call":
        return False
    siblings = {
        x.name
        for x in effects
        if x.kind == "local"
        and x.name != value.name
        and x.stmt_span == bound.stmt_span
        and x.value is bound.value
    }
    return any(
        x.kind in _STORES
        and x.name in kept
        and x.value is not None
        and x.value.kind == "name"
        and x.value.name in siblings
        for x in effects
    )


def _reruns(sim: Simulation) -> Iterator[RepeatFinding]:
    """A method run again on an object the class's own code built, whose construction ran
    it already (``self.xtts = Xtts(cfg)``, then ``self.xtts.init_models()``), before
    anything used the object: the parts that first run built are built anew, and the first
    ones thrown away. One finding per call, about the heaviest part."""
    for e in sim.events:
        holder = e.holder
        if e.kind != "rerun" or holder is None or e.shadow or not e.inner:
            continue
        used_on_some: list[Event] = []
        if never_both(holder, e) or used_between(sim, holder, e, some=used_on_some):
            continue
        first = max(e.inner, key=lambda p: p.cost)  # (the earliest among equals)
        if first.cost <= NONE:
            continue
        held, _, method = e.name.rpartition(".")
        item = "." in held  # (an item of a held container: the class of the items)
        cls = e.constructs.rpartition(".")[2] if item else built_name(holder)
        each = held.removesuffix(".*")
        if not cls:  # (items of one of several classes)
            cls, where = "item", f"each item in `self.{each}`"
        elif each != held:
            where = f"each {cls} in `self.{each}`"
        else:
            where = f"the {cls} in `self.{held}`"
        yield RepeatFinding(
            CODE,
            sim,
            e,
            first,
            confidence_of(e, holder, first, *used_on_some),
            f"`self.{held}.{first.name}` (a part of {where}, which its "
            f"construction's `{method}()` built and this `{method}()` builds again)",
            cost=max(first.cost, LIGHT),
            holder=holder,
            no_fix=(
                f"{cls}'s construction already runs `{method}()`: call it once, or build "
                f"the {cls} without it"
            ),
        )


def _part_confidence(
    sim: Simulation, holder: Event, e: Event, first: Event, used_on_some: list[Event]
) -> Confidence:
    """``possible`` when the part is replaced on some paths only, or the object is used
    before on some (``used_on_some``); ``definite`` also when the replacements on the arms
    of a branch together run on every path the object's build does (``if tie:
    self.emb.weight = p`` / ``else: self.emb.weight = q``), none of them after a use."""
    found = confidence_of(e, holder, first, *used_on_some)
    if found == "definite" or holder.status == MAYBE or first.status == MAYBE:
        return found
    if item_key(e.name):
        return found  # (an item by key: its own store's paths, not the container's, count)
    arms = [
        x
        for x in sim.events[holder.index + 1 :]
        if x.kind == "nested" and x.name == e.name and not x.shadow and not x.derived
    ]
    others = frozenset(x.index for x in arms)
    if any(used_between(sim, holder, x, others) for x in arms):
        return found
    return "definite" if covers(sim, holder, arms) else found


def used_between(
    sim: Simulation,
    holder: Event,
    e: Event,
    alternatives: frozenset[int] = frozenset(),
    some: list[Event] | None = None,
) -> bool:
    """Whether anything between storing ``holder`` and replacing its part ``e`` may use
    the object (a call on it, a read of it handed on); the statements that replace its
    parts read it only to reach them. ``alternatives``: the events of replacements on the
    other arms of a branch, passed over. ``some``: where given, a use that may not run
    where the replacement does (``if cfg.pruned_heads: self.prune_heads(...)``) is added to
    it instead: on the paths without it nothing used the object."""
    name = holder.name
    # (the statements that replace its parts, or store it back moved or cast in place,
    # ``self.fc = self.fc.half()``)
    # (and those that put a new module into it, ``self.layers.append(Block(d))``: they
    # read none it holds)
    parts = {
        (x.frame, x.effect.stmt_span)
        for x in sim.events
        if (x.kind in ("nested", "rerun") and x.name.split(".", 1)[0] == name)
        or (x.same_object and x.name == name)
        or (x.kind == "mutate" and x.name == name and _appended_build(x, name))
    }
    if item_key(e.name):
        # (a part of an item named by its key, ``self.embs[k].weight``: the items stored at
        # keys since the container was are new objects that read none it holds, the one
        # whose part is replaced among them; by number, an item stored at an index may be
        # the very one whose part is replaced)
        parts |= {
            (x.frame, x.effect.stmt_span)
            for x in sim.events
            if x.kind == "mutate" and x.name == name and x.effect.detail == "item"
            if name not in x.reads and "*" not in x.reads
        }
    reruns = {(x.frame, x.effect.stmt) for x in sim.events if x.kind == "rerun" and x.inner_fills}
    walking = walk_machinery(sim.events)
    # (the statements that run a pass or a method again over the modules: their walk's
    # reads are the pass's own)
    passes = {(x.frame, x.effect.stmt_span) for x in sim.events if x.kind in ("pass", "rerun")}
    for x in sim.events[holder.index + 1 : e.index]:
        if x.shadow or (x.kind in ("touch", "mutate") and (x.frame, x.effect.stmt_span) in parts):
            continue  # (the statement itself: a read on another branch of it is a use)
        if x.index in alternatives:
            continue  # (a replacement on another arm: never runs with this one)
        if x.index in walking:
            continue  # (torch's walk over the modules a method is run again on)
        if x.kind == "call" and (x.frame, x.effect.stmt) in reruns:
            continue  # (``for m in self.modules(): m.reset_parameters()``: the walk's head)
        if x.same_object and x.name == name:
            continue
        if x.kind == "touch" and _reads_configuration(x, name):
            continue  # ``d = self.model.fc.in_features``: how a part is shaped, no weight
        if x.kind == "touch" and _fills_only(x, name, e.name):
            continue  # ``normal_(self.emb.weight)``: the fill goes with the part replaced
        if x.kind == "nested" and x.name.split(".", 1)[0] == name:
            if x.name == e.name:
                return True  # replaced before: this replaces that one
            continue
        if x.kind in _REPLACES and x.name == name:
            return True  # another object there
        uses = set(attribute_uses(x, sim.mro))
        if x.kind == "touch":  # (``hasattr(self.vlm, "lm")``, ``len(self.layers)``: what it is)
            uses -= x.effect.sized | x.effect.tested
        if _walks_self(x) and (x.frame, x.effect.stmt_span) not in passes:
            uses.add("*")  # (``sum(m.weight.sum() for m in self.children())``: any it holds)
        if name in uses or "*" in uses:
            if some is None or runs_whenever(x, e):
                return True
            some.append(x)
    return False


def _walks_self(e: Event) -> bool:
    """Whether ``e`` is a call of one of torch's walks over the object, its state or its
    move (``self.children()``, ``self.state_dict()``, ``self.to(device)``): what it yields
    reaches every module the object holds. A walk whose items are only counted is walk
    machinery (``walk_machinery``), not such a call."""
    return e.kind == "call" and e.effect.detail == "self" and e.name in TENSOR_READERS


def _appended_build(e: Event, name: str) -> bool:
    """``self.layers.append(Block(d))`` (or a local built so, ``self.layers.append(layer)``):
    a new object put into the container ``name``, from values that read nothing it holds."""
    value = e.effect.value
    if e.effect.detail or value is None or value.kind not in ("call", "name"):
        return False
    return name not in e.reads and "*" not in e.reads  # (through locals too)


def _finding(sim: Simulation, found: Discard) -> RepeatFinding:
    first = found.first
    sure = found.always and not first.possibly
    confidence: Confidence = "definite" if sure else "possible"
    return RepeatFinding(
        CODE,
        sim,
        found.by[0],
        first,
        confidence,
        _what(first),
        cost=max(first.cost, LIGHT),
        alternatives=found.by[1:],
        no_fix=_no_fix(found),
    )


def _discard(sim: Simulation, first: Event, after: Sequence[Event]) -> Discard | None:
    """The stores replacing ``first`` before the first read of it that may run with it."""
    name = first.name
    by: list[Event] = []
    cut = False  # a ``return`` after ``first`` may end its frame before the store
    for e in after:
        if never_both(first, e):
            continue  # never runs in a construction where ``first`` ran
        if tested_absent(sim, first, e):
            continue  # runs only if nothing is there: never after ``first``
        if _new_numbers(e) and e in by:
            continue  # (listed as a store and as a use of the name)
        renumbered = _new_numbers(e) and e.effect.name == name and first.kind == "buffer"
        if (e.kind in _REPLACES and e.name == name) or renumbered:
            if e.derived:
                break  # computed from the value it replaces (``self.x = self.x = v``): a use
            how = relation(sim, first, e)
            if how in ("exclusive", "fallback"):
                continue  # another arm, or an ``except`` handler's store (the build failed)
            if how == "always":
                break  # whenever ``first`` runs, its frame returns before this store
            cut = cut or how == "maybe"
            by.append(e)
            if e.kind == "delete" and _runs_with(first, e):
                break  # the value is gone: what is stored after it replaces nothing

        elif e.kind not in _REPLACES:
            if _tests_presence(e, name, after):
                continue  # ``if self.x is not None: self.x = Wrap(...)``: no read of it
            break  # a use of the value (``after`` holds only stores of the name and uses)
    if not by or not _ours(sim, first, by[0]) or _aliased(first) or first.memo:
        # (a memoised factory's object lives on in its cache: shared, not thrown away)
        return None
    return Discard(first, tuple(by), not cut and covers(sim, first, by))


def _tests_presence(use: Event, name: str, after: Sequence[Event]) -> bool:
    """Whether ``use`` is the head of a statement that mentions ``self.<name>`` only to
    test it against None (or ask ``hasattr``), and holds a store or a deletion of it: asking
    whether an object is there reads nothing of it, and what replaces or drops it is the
    statement's own."""
    if use.kind != "touch" or name not in use.effect.tested or use.effect.stmt_span is None:
        return False
    outer = use.effect.stmt_span
    return any(
        e.kind in _REPLACES
        and e.name == name
        and e.frame == use.frame
        and outer.line <= e.effect.span.line
        and e.effect.span.end_line <= outer.end_line
        and e.effect.span != outer
        for e in after
    )


def _ours(sim: Simulation, first: Event, second: Event) -> bool:
    """Which pairs IL005 reports in this class's simulation: work of the class's own code
    replaced (by itself, or by the ancestors' afterwards); an ancestor's build replaced,
    during ``super().__init__()``, by the class's own code (an override of a hook the
    ancestor calls); and an ancestor's build that the class's own code drops for a constant
    (``self.head = None``) or another value that builds nothing. An ancestor's build rebuilt
    after ``super().__init__()`` is IL001-IL003's; one the ancestors replace themselves is
    reported on the ancestor that does it."""
    if not first.ancestor:
        return True
    owner = second.fn.owner
    if second.ancestor and owner is not None and owner.qualname == sim.cls.qualname:
        return True
    if second.ancestor:
        return False
    if second.kind == "delete":  # dropped; rebuilt after the ``del``, it is IL001-IL003's
        return not any(
            e.kind in _STORES and e.name == second.name and e.index > second.index
            for e in sim.events
            if not e.shadow
        )
    # (other storage given to a parameter or buffer an ancestor registered,
    # ``self.weight.data = qweight``: what the ancestor allocated and filled goes, whatever
    # the new numbers cost)
    if _new_numbers(second) and second.effect.name == first.name:
        return first.cost > LIGHT
    # (a registration replaced, by a constant too, is IL001's; a value that builds nothing
    # (``self.index = self.image.index``) drops the ancestor's build as a constant does)
    if first.kind != "assign" or second.kind != "assign":
        return False
    # (a light build dropped for another cheap value, ``self.init_cfg = dict(...)`` over a
    # copied config, is one setting for another: only more than light work is reported; a
    # build the ancestor only picks when no object is given, ``enc if enc is not None else
    # Linear(d, d)``, may be the very object stored again)
    if second.value_const:
        return True
    return not second.expensive and first.cost > LIGHT and not _picked(first.effect.value)


def _picked(value: Expr | None) -> bool:
    """Whether ``value`` picks between a name it is given and a build (``a if c else B()``,
    ``a or B()``): the object stored may be the one given."""
    if value is None or value.kind != "op" or value.name not in ("if", ""):
        return False
    parts = value.children[1:] if value.name == "if" else value.children
    return any(p.kind in ("name", "attr") for p in parts)


def attribute_uses(e: Event, mro: tuple[str, ...]) -> tuple[str, ...]:
    """The attributes ``e`` may read or keep the value of ("*": every attribute); the
    numbers of a tensor filled in place too (``refills.py``)."""
    if e.kind == "touch":
        return () if _torch_registration(e) else tuple(e.effect.reads - e.passed_on)
    if e.kind in _IN_PLACE:
        return (e.name.split(".", 1)[0],)
    # A call not followed (a recursion, or a method initlint cannot resolve) may read anything;
    # but not a ``super().__init__()`` into ``object`` or a torch module class not read from
    # an installed torch: those set up their own tables and read no attribute of a subclass.
    if e.kind in ("call", "super_init") and (e.unfollowed or e.callee is None):
        if e.kind == "super_init" and _next_in_mro(e, mro) in ("", "object", "builtins.object"):
            return ()
        if e.kind == "super_init" and _next_in_mro(e, mro).startswith("torch.nn."):
            return ()
        return ("*",)
    return ()


# torch.nn.Module's methods that register a value under a name: they look the name up
# (``hasattr(self, name)``) only to refuse a clash, and read no attribute's value.
_REGISTRATIONS = frozenset(
    {"add_module", "register_module", "register_buffer", "register_parameter"}
)


def _torch_registration(e: Event) -> bool:
    """Whether ``e`` ran in one of torch's registration methods, read from an installed
    torch."""
    fn = e.fn
    if not fn.module.is_dependency or not fn.qualname.startswith("torch."):
        return False
    return fn.qualname.rpartition(".")[2] in _REGISTRATIONS


def _next_in_mro(e: Event, mro: tuple[str, ...]) -> str:
    """The class after the one whose code ran ``e`` in the constructed class's MRO ("" for
    none: the last one's super is ``object``; "?" when its owner is not in it)."""
    owner = e.fn.owner
    if owner is None or owner.qualname not in mro:
        return "?"
    i = mro.index(owner.qualname)
    return mro[i + 1] if i + 1 < len(mro) else ""


def _placeholder(e: Event) -> bool:
    """A value that stands for "nothing yet": a constant (``None``), a value that costs
    nothing, a module that computes nothing (``nn.Identity()``) or a tensor with no
    elements (``torch.empty(0)``, also as a parameter)."""
    if e.value_const or e.cost <= NONE:
        return True
    value = e.effect.value
    if value is None or value.kind != "call":
        return False
    value = parameter_data(value)
    return _last(value.name) == "Identity" or _no_elements(value)


def _no_elements(call: Expr) -> bool:
    """A tensor factory given a size of 0, written out (``torch.zeros(0, width)``), or an
    array made from an empty display (``torch.tensor([])``, ``np.array([])``)."""
    if call.kind != "call":
        return False
    if _last(call.name) in _FROM_DATA:
        data = positional_values(call)[:1]
        return (
            bool(data)
            and data[0].kind == "op"
            and data[0].name == "tuple"
            and not (data[0].children)
        )
    if _last(call.name) not in SIZED_FACTORIES:
        return False
    sizes = list(positional_values(call))
    if len(sizes) == 1 and sizes[0].kind == "op" and sizes[0].name == "tuple":
        sizes = list(sizes[0].children)
    return any(s.kind == "const" and s.value == 0 and s.value is not False for s in sizes)


# The names those calls are written by (``np.array``, ``torch.tensor``).
_FROM_DATA = frozenset(name.rsplit(".", 1)[-1] for name in FROM_VALUES)


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _aliased(first: Event) -> bool:
    """The stored value is a local that the function uses elsewhere too (``h = Linear()``,
    ``self.h = h``, ``self.h2 = h``): the object lives on beyond the attribute."""
    value = first.effect.value
    if value is None or value.kind != "name" or not value.name:
        return False
    return handed_more_than(first.fn.facts.effects, value.name, 1)


def _runs_with(first: Event, e: Event) -> bool:
    """``e`` runs whenever ``first`` does, as far as its guards' literals say."""
    if e.status != MAYBE:
        return True
    return not e.unkeyed and set(e.literals) <= set(first.literals)


def covers(sim: Simulation, first: Event, by: Sequence[Event]) -> bool:
    """Some store of ``by`` runs on every path on which ``first`` runs: one that always
    runs with it, or branches whose extra conditions together always hold (``if``/``else``,
    or ``if``/``elif``/``else: raise``)."""
    if any(_runs_with(first, e) for e in by):
        return True
    known = set(first.literals)
    extras = [set(e.literals) - known for e in by if not e.unkeyed]
    return every_path(extras, ended_paths(sim, known))


def _what(e: Event) -> str:
    if e.kind == "buffer":
        return f"{e.effect.detail or 'buffer'} `{e.name}`"
    return f"`self.{e.name}`"


def _no_fix(found: Discard) -> str:
    """Why the discarded build cannot simply be deleted ("" when it may be: the fixer still
    checks that its statement does nothing else)."""
    first = found.first
    if first.ancestor:
        owner = first.fn.owner
        where = owner.qualname.rsplit(".", 1)[-1] if owner is not None else "an ancestor"
        return f"the build runs in {where}'s code, for its other users too: switch it off there"
    copied = found.by[0].copied_by
    if copied:
        return (
            f"{copied} keeps only deep copies of it: let {copied} keep the object it is "
            "handed, or build it there"
        )
    dropped = next((e for e in found.by if e.kind == "delete"), None)
    if dropped is not None:
        line = dropped.effect.span.line
        return f"`del self.{first.name}` (line {line}) drops it: remove the two together"
    if not found.always:
        return "the build is replaced on some paths only; it is used on the others"
    if first.possibly:
        return "what the build constructs is decided by the caller"
    return ""


def _fills_only(touch: Event, name: str, part: str) -> bool:
    """Whether the statement ``touch`` heads reads nothing of ``self.<name>`` but fills
    its ``part`` in place (``nn.init.normal_(self.emb.weight)`` for ``emb.weight``): the
    numbers it writes are thrown away with the part when the part is replaced. Any other
    mention of the object in it (``std=self.emb.weight.std()``, ``self.emb.init_std()``)
    reads it."""
    if touch.effect.reads - touch.passed_on != {name} or name not in _in_place(touch):
        return False
    # (``name`` set: a whole fill from nothing else the module holds, the arguments
    # mentioning none of it)
    fills = [x for x in _statement_effects(touch) if x.kind == "init"]
    return bool(fills) and all(x.detail == "self" and x.name == part for x in fills)


def _reads_configuration(touch: Event, name: str) -> bool:
    """Whether the statement of ``touch`` reads the object in ``self.<name>`` only for
    how its parts are configured (``self.model.fc.in_features``, ``.weight.shape``): every
    mention of it in the statement's values ends in one of torch's configuration
    attributes, and there is at least one."""
    body = touch.fn.facts.load()
    if isinstance(body, BodyError) or not body.params:
        return False
    prefix = f"{body.params[0].name}.{name}"
    found = [
        ok
        for eff in body.effects
        if eff.stmt == touch.effect.stmt and eff.kind != "touch"
        for x in (eff.value, *(a.expr for a in eff.args))
        if x is not None
        for ok in _mentions(x, prefix)
    ]
    return bool(found) and all(found)


def _mentions(x: Expr, prefix: str) -> Iterator[bool]:
    """For each mention of the dotted ``prefix`` in ``x``: whether it only reads a
    configuration attribute of a part below it."""
    if x.name == prefix or x.name.startswith(f"{prefix}."):
        yield x.kind == "attr" and x.name != prefix and x.attr in CONFIG_ATTRS
        return
    for child in (x.receiver, *x.children):
        if child is not None:
            yield from _mentions(child, prefix)

"""The records a simulation produces: the ``Simulation`` of one class's construction, its
ordered ``Event``s, the flags they carry, the reads that raise, and the builders it met
(docs/design.md, "The init simulation")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import field, replace
from itertools import product
from typing import Literal

from initlint.facts.function_reader import LOOP_COND
from initlint.facts.model import Effect, EffectKind, Expr, Param
from initlint.facts.reads import MODULE_WALKS
from initlint.index.records import ClassInfo, FunctionInfo
from initlint.records import dataclass
from initlint.simulation.assumptions import Assumption, exclusive, other_values
from initlint.simulation.binding import ArgKeys
from initlint.simulation.levels import NONE, UNKNOWN
from initlint.simulation.memo import Binding
from initlint.simulation.specs import BuilderShape
from initlint.simulation.torch_knowledge import MODULE_SELF_METHODS
from initlint.simulation.values import MAYBE, TRUE, Origin


class SimulationLimit(Exception):
    """A simulation reached MAX_DEPTH or MAX_FRAMES: the class was not fully analysed."""


def part_taken(value: Expr | None) -> tuple[Expr, str] | None:
    """The call and the part of ``Call(...).part`` (under more attributes or an index too:
    ``Call(...).part[:4]``; through torch's module methods that return the module itself,
    ``Call(...).eval().part.to(device)``): an object built only to take one part of it, and
    dropped at once. None for any other value."""
    node = unmoved(value)
    while node is not None and node.kind in ("attr", "subscript"):
        receiver = unmoved(node.receiver)
        if node.kind == "attr" and receiver is not None and receiver.kind == "call":
            called = receiver.name or receiver.callee is not None
            return (receiver, node.attr) if called and node.attr else None
        node = receiver
    return None


def unmoved(value: Expr | None) -> Expr | None:
    """``value`` without the calls of torch's module methods that return the module they
    are called on (``m.to(device).eval()``: ``m``)."""
    while (
        value is not None
        and value.kind == "call"
        and value.attr in MODULE_SELF_METHODS
        and value.receiver is not None
    ):
        value = value.receiver
    return value


# ``Event.possibly`` of a part that only some of the classes an object may be build.
SOME_CHOICES = "only some of the classes the object may be build it"
# ``Event.possibly`` of a fill that something reads, or may read, on some paths only
# before the construction ends: on the others nothing has.
READ_ON_SOME = "read on some paths before the construction ends"


def choices_of(holder: Event, item: Expr | None = None) -> tuple[str, ...]:
    """The classes the object ``holder`` stored (or ``item``, a call in its value) may be,
    when the name it calls holds one of several (``Event.choices``); () otherwise."""
    value = built_by(holder) if item is None else item
    if value is None or value.kind != "call":
        return ()
    return next((classes for name, classes in holder.choices if name == value.name), ())


def item_holder(name: str) -> bool:
    """Whether the name of what holds a replaced part is an item of a held container by
    number (``head.-1`` for ``self.head[-1].weight``), not a path of held objects
    (``expert.model`` for ``self.expert.model.embed_tokens``)."""
    return name.partition(".")[2].lstrip("-").isdigit()


def item_key(name: str) -> str:
    """The key of an item of a held container that a replaced part's holder names by key
    (``name#1`` of ``embs.name#1`` for ``self.embs[name].weight``, ``'a'`` of ``embs.'a'``);
    "" for a number or a path of held objects."""
    key = name.partition(".")[2]
    return key if key[:1] in ("'", '"') or "#" in key else ""


def shown_key(key: str) -> str:
    """An item's key as messages write it: a string as written, a name without the number
    of its binding (``name`` for ``name#1``)."""
    return key if key[:1] in ("'", '"') else key.partition("#")[0]


def built_by(holder: Event) -> Expr | None:
    """The value whose evaluation built the object ``holder`` stands for: what it stored,
    or for a ``dropped`` event the call whose part was taken."""
    if holder.built_from is not None:
        return built_by(holder.built_from)
    value = holder.effect.value
    if holder.kind == "dropped":
        taken = part_taken(value)
        return taken[0] if taken is not None else None
    # (``Linear(...).to(device)``: the module the call built, moved or cast in place)
    return unmoved(value) if holder.moved else value


# The start of the literal key of a test of a state outside the construction: files on
# disk, the environment, or what a file read gave (``if not os.path.exists(cache):``). The
# key then holds the frame and the test's text: ``world|<frame>:<text>``.
WORLD_KEY = "world|"
# A key of a test that every frame of one construction answers alike (the text of a test of
# argument-free calls or module-level names): ``call|<text>|<what each name is>``.
SHARED_KEY = "call|"


@dataclass(frozen=True)
class FlagRef:
    """A parameter of an ``__init__`` whose value guards some work."""

    function: FunctionInfo
    param: str
    off_value: bool  # the value that switches the work off


@dataclass(slots=True)
class Event:
    index: int
    # buffer | call | assign | mutate | super_init | delete (``del self.x``) | touch (reads and
    # writes self attrs) | nested (``self.attn.qkv = v``: name ``attn.qkv``) | local (an
    # object built into a local) | dropped (``Call(...).part``: name ``part``) | rerun
    # (``self.held.method()`` run again: name ``held.method``) | pass (an initialisation
    # pass over the object: ``fill``, ``covers``)
    kind: EffectKind
    name: str
    fn: FunctionInfo
    effect: Effect
    effect_index: int
    frame: int
    status: str  # true | unknown
    ancestor: bool  # performed during the super().__init__ part
    parent: int | None  # index of the call/super event whose frame performed this
    expensive: bool = False
    cost: int = NONE  # levels.NONE | LIGHT | HEAVY: what this work costs (mutations included)
    # Why a build heavy on some paths of its construction is priced unknown (``builds.py``).
    heavy_when: str = ""
    args_key: str = ""  # a call's argument text (for messages; IL002 compares arg_keys)
    # A call's parameters, bound to its arguments, as value keys of what they held in the
    # frame the call ran in (``binding.same_args``); None when they could not be bound.
    arg_keys: ArgKeys = None
    callee: FunctionInfo | None = None
    flags: tuple[FlagRef, ...] = ()
    value_const: bool = False  # a buffer/assign value that is a plain constant (e.g. None)
    # A buffer/assign whose new value is computed from the attribute's current value
    # (``inv = self.inv_freq`` then ``register_buffer("inv_freq", inv / f)``): the earlier
    # build was used, not discarded.
    derived: bool = False
    # An assign whose value hands the attribute's current value only to constructors that
    # keep deep copies of it (``self.x = Complexified(self.x)``): the first of those
    # classes. The value is copied, then dropped with the store: no use of it.
    copied_by: str = ""
    # A local the frame built on every path and keeps (stores or hands on) only on some:
    # on the others the whole object is dropped with the frame.
    kept_on_some: bool = False
    # A store of a local the frame built and did nothing else with (``lm = LM(cfg)``, then
    # ``self.language_model = lm``): the local's event. What it built is what is stored.
    built_from: Event | None = None
    reads: frozenset[str] = frozenset()  # the self attributes a buffer/assign value reads
    # A registration torch's own __init__ made (nn.Linear's weight): no project code did it,
    # ``fn`` names the torch class and ``effect`` is the super call that ran it.
    external: bool = False
    # What the unknown guards around this work assumed of the construction's arguments:
    # two pieces of work that assume opposite things never both run.
    assume: tuple[Assumption, ...] = ()
    shadow: bool = False  # work that a flag switched off (recorded for IL004)
    switched_off_by: tuple[Origin, ...] = ()
    unfollowed: bool = False  # a call whose body was not run (recursion): reads unknown
    # a call whose body ran, but none of its statements: each was under a guard found false
    # (``if hasattr(self, "gain"):`` during the base's ``__init__``), so it did no work
    idle: bool = False
    # Undecided conditions the event runs under: (key, truth). Two events assuming opposite
    # truths of one key never both run (C's `if cond:` and an ancestor's `if flag:` with
    # `flag=not cond` passed). Kept beside ``assume``: it keys guards by their text in a
    # frame, or by the symbolic truth a call passed, where ``assume`` keys them by argument.
    # A key that starts with ``WORLD_KEY`` keys a test of a state outside the construction.
    literals: tuple[tuple[str, bool], ...] = ()
    # An undecided guard of it (or of a call it runs in) has no literal: ``literals`` do not
    # say all it runs under (a rule that needs every path, IL005, cannot rely on them).
    unkeyed: bool = False
    # A ``nested`` event: the latest assignment of the attribute holding the object whose
    # part it replaces (``self.attn = Attention(...)``), and the builds of that part the
    # holder's construction made: events of the holder class's own simulation.
    holder: Event | None = None
    inner: tuple[Event, ...] = ()
    # A ``local`` or ``dropped`` event: the parts of the object the frame took (kept).
    kept: frozenset[str] = frozenset()
    # An assign of a module wrapped by one of torch's reparametrisations (``weight_norm(
    # nn.Conv1d(...))``, also through a function that returns it): the wrapper's name and
    # the part it recomputes (``weight``); a fill of that part is lost.
    recomputed: tuple[str, str] | None = None
    # An assign of a memoised factory's result (``self.rope = get_rope(...)``, also through
    # a plain wrapper): the factory each route reaches with the arguments bound there
    # (``simulation/memo.py``), and whether they differ from those of the attribute's
    # previous build: "" (equal: the cached object comes back, no cost), "yes", or "maybe"
    # (something they read was changed under an undecided guard, or a wrapper may have
    # taken another route).
    memo: tuple[Binding, ...] = ()
    memo_changed: str = ""
    # An assign or ``local`` event of a built object: the names its value reads that hold a
    # whole number where it ran (``hidden`` read at the class's default, an attribute set
    # to a number written in the code, ``self.dim``): the sizes its call gives the object.
    sizes: tuple[tuple[str, int], ...] = ()
    # A store of a torch container whose items are wrapped in a reparametrisation
    # (``nn.ModuleList([weight_norm(nn.Conv1d(...)), ...])``): (the item's key, the wrapper,
    # the part it computes anew), as ``recomputed`` says of a module stored itself.
    wraps: tuple[tuple[str, str, str], ...] = ()
    # A store of a torch container built of modules the object already holds
    # (``self.net = nn.Sequential(self.conv1, self.relu)``): those attributes. Putting a
    # module in a container keeps it as it is: it reads none of its numbers.
    holds: frozenset[str] = frozenset()
    # A store of a constructor's object handed attributes' tensors that its ``__init__``
    # keeps as they are (``self.cls = Head(cfg, self.bert.embeddings.word.weight)``, which
    # ties the weight in, ``simulation/handed.py``): those attributes. It reads none of their
    # numbers.
    handed: frozenset[str] = frozenset()
    # A touch's reads that only hand a part of the object on to code the simulation follows
    # with a name standing for that part (``part_refs.py``): what that code does through the
    # name is the use, not the handing.
    passed_on: frozenset[str] = frozenset()
    # A store of ``cls(...)`` where the name ``cls`` holds a class (a parameter's default, an
    # argument naming one): that class's qualified name.
    constructs: str = ""
    # The names the stored value calls that hold one of several classes (``Emb = A if warp
    # else B``, then ``self.emb = Emb(...)`` or ``nn.ModuleList(Emb(...) for ...)``), each
    # with their qualified names. What holds of each one's construction holds of the object.
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Why work whose guard holds is only possibly what it is (its status is then unknown):
    # the class it builds is the constructed class's own default, or a builder may return
    # something else.
    possibly: str = ""
    # A build from a spec (``build_module(submodules.linear_proj, ...)``,
    # ``submodules.core_attention(...)``): its keys (``simulation/specs.py``). A later build
    # whose keys meet them builds the same class again.
    spec: frozenset[str] = frozenset()
    # An assign of the object the attribute holds already, moved or cast in place
    # (``self.fc = self.fc.half()``): no other object, and no use of this one.
    same_object: bool = False
    # An assign of a module built and then moved or cast in place by torch's own methods
    # (``Linear(...).to(device)``): ``built_by`` is the constructor's call.
    moved: bool = False
    # A ``pass`` (an initialisation pass over the object; name: the walk, ``apply`` for
    # ``self.apply(fn)``): the fill it makes of each item (a ``pass`` effect, the
    # function's ``visit`` one for ``apply``), and the tensors it fills for sure: (the
    # event that stored each, its name as an ``init`` event names it, what filling it
    # costs) (``coverage.py``).
    fill: Effect | None = None
    covers: frozenset[tuple[int, str, int]] = frozenset()
    # The tensors it covers through a module that holds another's tensor (a tied weight):
    # (the tensor's name, the ``nested`` store that tied it). One ``apply`` fills such a
    # tensor once through each module.
    tied: frozenset[tuple[str, int]] = frozenset()
    # The tensors of held project modules it fills that their own constructions filled
    # (``pass_effects._inner_fills``): (store, name from the object, cost, that fill).
    inner_fills: tuple[tuple[int, str, int, Event], ...] = ()
    # An ``init`` of a part of a held module (``self.fc.weight``): what filling it costs,
    # the tensor as the module's store made it.
    part_cost: int = UNKNOWN


@dataclass(frozen=True)
class Builder:
    """A project function that builds an object from a class it receives (``shape``:
    ``simulation/specs.py``): ``spec`` is its ``return p(...)`` (the first such), ``sure``
    False when it may return something else."""

    fn: FunctionInfo
    params: tuple[Param, ...]
    spec: Expr
    sure: bool
    shape: BuilderShape


RaisedError = Literal["AttributeError", "TypeError"]


@dataclass(frozen=True)
class Raise:
    """Where a path of the construction raises, at the event numbered ``event``: an
    AttributeError, a read of ``self.<what>`` (a ``touch`` event) while nothing can have
    set it; a TypeError, a call of ``what`` (a ``super_init`` event) Python refuses.
    ``certain``: every path does (the class cannot be constructed); else only the paths
    under the undecided guards then."""

    event: int
    what: str
    certain: bool
    error: RaisedError = "AttributeError"


Literals = tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class RaiseStatement:
    """A ``raise`` statement (not inside a ``try`` or ``with``) that runs under undecided
    guards, in the frame numbered ``frame``: the paths those guards' ``literals`` take end
    there, with no object built, so no work on them is thrown away."""

    frame: int
    literals: Literals


@dataclass
class Simulation:
    cls: ClassInfo
    # (``field()``: with a bare annotation the dataclass takes ``type.mro``, which the class
    # finds on its metaclass, for this field's default)
    mro: tuple[str, ...] = field()
    top_fn: FunctionInfo  # the constructed class's first ``__init__`` (the run starts there)
    events: list[Event] = field(default_factory=list)
    top_frame: int = 0
    incomplete: bool = False  # stopped at a limit; ``stopped`` says which
    stopped: str = ""
    conflicts: int = 0  # calls that would pass one argument twice (a TypeError at runtime)
    # Reads of an attribute definitely unset at that point: the path raises AttributeError
    # there, and nothing after it on that path is done (``RaiseModel.raise_attribute_error``).
    raises: list[Raise] = field(default_factory=list)
    raise_statements: list[RaiseStatement] = field(default_factory=list)
    # What the layers above compute once per simulation and share (``rules/analyses.py``).
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def inside(self, call: Event) -> Iterator[Event]:
        """The events ``call`` made, at any depth: its frame's and those of the calls it
        ran, in order."""
        return events_inside(self.events, call)

    def frames_events(self, frame: int) -> dict[int, list[Event]]:
        out: dict[int, list[Event]] = {}
        for ev in self.events:
            if ev.frame == frame:
                out.setdefault(ev.effect_index, []).append(ev)
        return out


def walk_machinery(events: list[Event]) -> frozenset[int]:
    """The events torch's ``apply`` (or ``modules()``) made while it ran a pass (``Event.kind``
    ``pass``, whose fills are recorded at the call) or walked modules to run a method of
    each again (a ``rerun`` with fills), or while one of torch's walks ran whose items the
    statement only counts or asks the kind of (``len(list(self.parameters()))``, the walk
    among the touch's ``sized``): its walk over the modules, not work of the object's."""
    passes = {
        (e.frame, e.effect.stmt_span)
        for e in events
        if e.kind == "pass" or (e.kind == "rerun" and e.inner_fills)
    }
    counted = {
        (e.frame, e.effect.stmt_span, name)
        for e in events
        if e.kind == "touch"
        for name in e.effect.sized & MODULE_WALKS
    }
    out: set[int] = set()
    for e in events:
        if e.kind != "call":
            continue
        if (e.frame, e.effect.stmt_span) in passes:
            out.update(x.index for x in events_inside(events, e))
        elif (e.frame, e.effect.stmt_span, e.name) in counted and _torch_walk(e):
            out.add(e.index)  # (the call too: what it yields is counted, not used)
            out.update(x.index for x in events_inside(events, e))
    return frozenset(out)


def _torch_walk(call: Event) -> bool:
    """Whether the call ran torch's own ``nn.Module`` walk (not a class's override)."""
    callee = call.callee
    return (
        callee is not None
        and callee.module.is_dependency
        and callee.qualname.startswith("torch.nn.modules.module.Module.")
    )


def changed_since(events: list[Event], call: Event) -> bool:
    """Whether a second run of the method ``call`` ran may take another path than the first:
    an attribute one of the run's tests read (``Effect.decides``) that the run set after it
    (``if self.built: return`` ... ``self.built = True``), or that the construction changed
    after the call (``self.pretrained = True`` after a ``reset_parameters`` that fills only
    when it is false). A second run is then another computation, which may build or fill
    nothing. What no test reads (a counter, a log, a size) decides nothing; a fill inside
    the run changes numbers, not the path."""
    inside = list(events_inside(events, call))
    filling = {(e.frame, e.effect.stmt_span) for e in inside if e.kind in ("init", "pass")}
    decided: set[str] = set()
    for e in inside:
        if e.shadow:
            continue
        if e.kind != "touch":
            written = _state_written(e)
        elif (e.frame, e.effect.stmt_span) in filling:
            written = set()  # (``w.data.normal_()``: the tensor's numbers, not its place)
        else:
            written = set(e.effect.writes - e.effect.changed)
        if decided and ("*" in written or "*" in decided) or written & decided:
            return True  # (set after a test read it)
        if e.kind == "touch" and e.effect.decides:
            decided |= e.effect.reads
    if not decided:
        return False
    if "*" in decided:
        return True
    last = inside[-1].index if inside else call.index
    for e in events[last + 1 :]:
        if e.shadow:
            continue
        written = set(e.effect.writes) if e.kind == "touch" else _state_written(e)
        if "*" in written or written & decided:
            return True
    return False


def _state_written(e: Event) -> set[str]:
    """The attribute an event other than a touch sets, replaces or changes the contents of."""
    if e.kind in ("assign", "buffer", "delete", "nested", "mutate"):
        return {e.name.split(".")[0]}
    return set()


def events_inside(events: list[Event], call: Event) -> Iterator[Event]:
    """The events among ``events`` that ``call`` made, at any depth, in order (while the
    run is still recording them too)."""
    inside = {call.index}
    for ev in events[call.index + 1 :]:
        if ev.parent in inside:
            inside.add(ev.index)
            yield ev


def never_both(a: Event, b: Event) -> bool:
    """The two builds never both run in one construction: their guards exclude each other,
    by opposite assumptions of one argument or by values of it that share none (``mode ==
    "zeros"`` and ``mode == "orthogonal"``: two ``if``s; ``Event.assume``), or by opposite
    truths of one undecided condition (``Event.literals``)."""
    return (
        exclusive(a.assume, b.assume)
        or other_values(a.assume, b.assume)
        or literals_exclusive(a, b)
    )


def literals_exclusive(a: Event, b: Event) -> bool:
    """The two never both run: they assume opposite truths of one undecided condition."""
    if not a.literals or not b.literals:
        return False
    b_literals = set(b.literals)
    return any((key, not truth) in b_literals for key, truth in a.literals)


def runs_whenever(a: Event, b: Event) -> bool:
    """Whether ``a`` runs on every path ``b`` does, as far as can be told: ``a`` runs on
    every path; or, in one frame, its statement's guards enclose ``b``'s, a loop's body
    taken as run (``for blk in self.blocks:``: a loop over nothing is no path worth
    claiming); or the undecided conditions it runs under are among ``b``'s. One under a
    condition without a literal (a loop in a method it ran in) is taken as running."""
    if a.status == TRUE or a.unkeyed:
        return True
    outer = tuple(c for c in a.effect.guard if c != LOOP_COND)
    inner = tuple(c for c in b.effect.guard if c != LOOP_COND)
    if a.frame == b.frame and inner[: len(outer)] == outer:
        return True
    return set(a.literals) <= set(b.literals)


def after_read(fill: Event, read: Event) -> Event | None:
    """The fill ``fill`` once ``read`` has read its tensor: None where the read runs
    whenever the fill does (the fill is used); else a copy standing for it on the paths
    without the read, possibly (``if cfg.pruned_heads: self.prune_heads(...)``)."""
    if runs_whenever(read, fill):
        return None
    return replace(fill, status=MAYBE, possibly=READ_ON_SOME)


# Past this many undecided conditions, whether branches cover every path is not worked out.
MAX_COVER_KEYS = 8


def every_path(
    arms: Sequence[set[tuple[str, bool]]], ended: Sequence[set[tuple[str, bool]]]
) -> bool:
    """Whether on every path some arm runs: each arm and each ended path given by the
    literals it needs beyond those all share, every combination of the arms' conditions'
    truths either meets one arm's or is a path that a ``raise`` ended (``if``/``elif``/
    ``else: raise``). A raise that tests other conditions than the arms' (torch's own
    checks in ``Module.__init__``, met in every construction) is not weighed: enumerating
    its conditions too would spend the budget of keys on tests no arm makes."""
    if not arms:
        return False
    keys = sorted({k for lits in arms for k, _ in lits})
    if len(keys) > MAX_COVER_KEYS:
        return False
    named = set(keys)
    ends = [lits for lits in ended if {k for k, _ in lits} <= named]
    for truths in product((False, True), repeat=len(keys)):
        world = set(zip(keys, truths, strict=True))
        if not any(lits <= world for lits in (*arms, *ends)):
            return False
    return True


def ended_paths(sim: Simulation, known: set[tuple[str, bool]]) -> list[set[tuple[str, bool]]]:
    """The paths ``raise`` statements end that the ``known`` literals allow, each as the
    literals it needs beyond them."""
    out: list[set[tuple[str, bool]]] = []
    for r in sim.raise_statements:
        lits = set(r.literals)
        if not any((k, not t) in lits for k, t in known):
            out.append(lits - known)
    return out


# The events that make a tensor of random draws where a fill is looked for: a store, or an
# item appended to a tensor list (``torch_knowledge.drawn_value``).
DRAW_KINDS = frozenset({"assign", "buffer", "mutate"})
# The events that write the attribute they name (or a part of it).
ATTRIBUTE_WRITES = frozenset({"assign", "buffer", "delete", "mutate", "nested"})


def first_run(e: Event) -> bool:
    """Whether the ``rerun`` event ``e`` runs a method its modules' constructions never ran:
    what it fills again are the draws those constructions made, not a fill of that method."""
    return bool(e.inner_fills) and all(fill.kind in DRAW_KINDS for *_, fill in e.inner_fills)

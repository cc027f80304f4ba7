"""The state of one run of the simulation: the call being run (``Call``) and its ``Frame``,
one effect as its guards decided it (``EffectContext``), what a run asks of the simulator
that started it (``SimulatorServices``), and ``RunState``, what the run knows of the object
under construction so far, which each part of the interpreter (expressions, arguments,
events, guards, raises, builds, stores, calls) reads and updates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import NamedTuple, Protocol

from initlint.facts.model import Arg, Body, BodyError, Cond, Const, Effect, Expr, Param, Span
from initlint.index.project import ProjectIndex
from initlint.index.records import ClassInfo, FunctionInfo, Module, Target
from initlint.records import dataclass
from initlint.simulation.assumptions import Assumption
from initlint.simulation.binding import Key
from initlint.simulation.cost import CostModel
from initlint.simulation.levels import Priced
from initlint.simulation.part_refs import PartNames
from initlint.simulation.records import Builder, Event, FlagRef, Simulation
from initlint.simulation.values import Origin, Val


class SimulatorServices(Protocol):
    """What a run uses of the simulator that started it (``engine.Simulator``): the
    project, the cost model, the tables its runs share, and other classes' simulations."""

    index: ProjectIndex
    cost: CostModel
    # the guards' state keys (``GuardEval``), read once per guard: (guard, text, attributes,
    # getters called, plain names read), by the guard's identity
    state_tests: dict[int, tuple[Cond, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]
    getters: dict[tuple[str, str], str]  # ``EventLog.getter_of``'s resolutions

    def parts_built(
        self, holder: Event, part: str | None, item: Expr | None = None
    ) -> tuple[Event, ...] | BodyError: ...

    def construction_events(self, holder: Event) -> tuple[Event, ...] | BodyError | None: ...

    def class_factory(self, module: Module, dotted: str) -> Target | None: ...

    def rerun_builds(
        self, holder: Event, method: str, item: Expr | None = None
    ) -> tuple[Event, ...] | BodyError: ...

    def object_simulation(
        self, holder: Event, value: Expr | None = None, choice: str = ""
    ) -> Simulation | BodyError | None: ...

    def setter_names(self, mro: tuple[str, ...]) -> frozenset[str]: ...

    def class_built(self, function: str) -> str: ...

    def choice_made(self, choice: tuple[str, str]) -> str: ...

    def construction_cost(
        self, info: ClassInfo, bind: Callable[[tuple[Param, ...]], dict[str, Val] | None]
    ) -> Priced: ...

    def builder_of(self, module: Module, name: str) -> Builder | None: ...


@dataclass(slots=True)
class Call:
    """A call to run: the function, its bound arguments, and its place in the simulation."""

    fn: FunctionInfo
    env: dict[str, Val]
    ancestor: bool
    parent: int | None
    status: str
    flags: tuple[FlagRef, ...]
    depth: int
    shadow: tuple[Origin, ...]
    assume: tuple[Assumption, ...] = ()
    literals: tuple[tuple[str, bool], ...] = ()
    # The value keys of the parameters (``binding.expr_key``) as the caller's arguments held
    # them in its frame, or what to bind them from on first use (``ArgumentBinding``: the
    # caller's frame, the arguments, the parameters, skip_self); both None for the
    # constructed class's own frame (its ``env`` says).
    keys: dict[str, Key | None] | None = None
    key_args: KeyArgs | None = None
    unkeyed: bool = False  # (``Event.unkeyed``)
    # Objects built for this call alone, by parameter (``super().__init__(resnet18())``): the
    # callee follows each as a local it built (``local_builds.py``).
    lent: dict[str, LocalBuild] | None = None
    # What building each argument cost the caller, by parameter (``calls._given_costs``).
    given_cost: dict[str, int] | None = None
    # The parts of the object handed as arguments, by parameter (``part_refs.py``).
    given_parts: dict[str, str] | None = None


@dataclass
class Frame:
    """A call being run: its number in the simulation and what its locals cost to build."""

    id: int
    call: Call
    body: Body  # the function's parameters and effects (loaded when the frame is entered)
    local_cost: dict[str, int] = field(default_factory=dict)
    ran: bool = False  # some statement of the body ran (not all were under false guards)
    # the self attributes each local's value was computed from (through other locals)
    local_reads: dict[str, frozenset[str]] = field(default_factory=dict)
    # each name's latest rebinding or change in place: (events so far then, guard status)
    written: dict[str, tuple[int, str]] = field(default_factory=dict)
    # the names a loop that may run binds again: a test of one is no parameter's flag
    loop_bound: set[str] = field(default_factory=set)
    # each local's latest value (None: bound under an undecided guard), for memo keys
    local_values: dict[str, Expr | None] = field(default_factory=dict)
    # the names whose object changed in place since they were bound (``names.append(x)``,
    # ``cfg.x = 1``): their value is no longer the expression bound (IL002's value keys)
    changed: set[str] = field(default_factory=set)
    # the call events whose result feeds each effect (by effect index), and those of each
    # statement (a ``return`` is fed by the calls in its statement)
    fed: dict[int, list[int]] = field(default_factory=dict)
    stmt_calls: dict[Span | None, list[int]] = field(default_factory=dict)
    # The statements whose factory call the frame ran as a frame of its own (``factory_call``)
    factories: set[Span | None] = field(default_factory=set)
    # The raise model (``raises.py``): the frame that called this one, the effect being run
    # and the guards of it that were undecided, whether a raise ended the frame, and the
    # blocks a raise ended: (top statement, guard, events then), valid while the names the
    # guard reads are not written.
    caller: Frame | None = None
    current: Effect | None = None
    maybe: tuple[Cond, ...] = ()
    shadowed: bool = False
    dead: bool = False
    dead_blocks: list[tuple[int, tuple[Cond, ...], int]] = field(default_factory=list)
    # A ``return`` under undecided guards ran (``RaiseModel.return_from``): the rest of the
    # body runs only where it did not, and assumes so when one guard alone led there.
    returned: bool = False
    after_return: tuple[Assumption, ...] = ()
    after_return_literals: tuple[tuple[str, bool], ...] = ()
    # The locals this frame built by a call whose object it uses (``net = resnet50()``):
    # how it used each so far (``local_builds.py``).
    built: dict[str, LocalBuild] = field(default_factory=dict)
    # A built local bound again on a branch that never runs with the one before (``if fid:
    # net = A() else: net = B()``): the earlier object, on its own paths, used as the local
    # is from then on.
    shelved: dict[str, list[LocalBuild]] = field(default_factory=dict)
    # A built local bound again on every path (``net = nn.Sequential(*list(net.children())
    # [:-1])``): the earlier object is dropped there, used as it was until then.
    released: list[LocalBuild] = field(default_factory=list)
    # The locals that may hold what a file read gave (``meta = yaml.safe_load(f)``): a test
    # of one is a test of a state outside the construction.
    world: set[str] = field(default_factory=set)
    # The locals that hold a path (``root = Path(d)``, ``p = os.path.join(d, f)``): asking
    # one whether it exists asks the file system.
    paths: set[str] = field(default_factory=set)
    # The parameters and locals that stand for a part of the object (``part_refs.py``):
    # what is stored through one is stored into that part.
    parts: PartNames = field(default_factory=dict)

    @property
    def self_name(self) -> str:
        """The name the frame's function calls the object by (its first parameter); "" in
        a module-level function (a factory the construction runs), which has no object."""
        if self.call.fn.owner is None:
            return ""
        params = self.body.params
        return params[0].name if params else "self"


@dataclass(slots=True)
class LocalBuild:
    """An object a frame built into a local (``net = resnet50()``, its ``local`` event) and
    what the frame did with it since: the parts it took (``net.layer4``), the parts it
    replaced (``net.fc = ...``), whether it ran a method on it, whether it handed it on."""

    event: Event
    taken: set[str] = field(default_factory=set)
    # the parts among those taken that a use other than a whole fill in place took
    kept_out: set[str] = field(default_factory=set)
    patched: set[str] = field(default_factory=set)
    called: bool = False
    whole: bool = False
    lending: bool = False  # handed to an ancestor's ``__init__`` that may take it over
    copied: bool = False  # deep-copied (``copy.deepcopy(net)``): a new object, not it
    # slices of its children taken (``list(net.children())[:-2]``: (None, -2))
    children: list[tuple[int | None, int | None]] = field(default_factory=list)
    # the literals of each whole use (stored, handed on), None for one on every path or
    # under a guard that has none
    kept_where: list[tuple[tuple[str, bool], ...] | None] = field(default_factory=list)

    def used_otherwise(self) -> bool:
        """Whether the frame did more with the object than hand it on whole: a part taken
        or replaced, a method run, a copy or a slice of its children made, lent."""
        done = (self.taken, self.patched, self.called, self.lending, self.copied, self.children)
        return any(done)

    def stored_as_built(self) -> bool:
        """Whether the object is still as its build made it, but for fills of its parts in
        place (``nn.init.normal_(net.weight)``), which go where it is stored."""
        done = (self.kept_out, self.patched, self.called, self.lending, self.copied)
        return not any(done) and not self.children


# What a frame's parameter keys are bound from (``Call.key_args``): the caller's frame, the
# call's arguments, the callee's parameters, and whether the first one is ``self``.
KeyArgs = tuple[Frame, tuple[Arg, ...], tuple[Param, ...], bool]


class EffectContext(NamedTuple):
    """One effect as its guards decided it (``engine``), for its handler."""

    effect_index: int  # the effect's place in its frame's body
    effect: Effect
    status: str  # TRUE, or MAYBE when a guard (or the call's) is undecided
    flags: tuple[FlagRef, ...]  # the flag parameters its guards (and the call's) read
    # The origins of the values that made a guard false: the effect does not run with these
    # values, but would with others (shadow work, recorded for IL004).
    shadow: tuple[Origin, ...]
    assume: tuple[Assumption, ...]  # what its undecided guards assume
    literals: tuple[tuple[str, bool], ...]  # and their literal tests


class RunState:
    """What one run knows of the object under construction so far (the attributes every
    part of the interpreter shares)."""

    def __init__(self, simulator: SimulatorServices, sim: Simulation) -> None:
        self.simulator = simulator
        self.sim = sim
        self.frames = 0
        self.active: set[str] = set()  # functions on the stack (recursion is not followed)
        # Position of each class in the MRO (list.index would make deep chains cubic).
        self.position: dict[str, int] = {}
        for i, qual in enumerate(sim.mro):
            self.position.setdefault(qual, i)
        self.self_attrs: dict[str, Val] = {}
        # The attributes the construction last set to a number written in the code
        # (``self.inplanes = 64``): a size read from one is written out too.
        # A number stands only while nothing else may have written the attribute.
        self.written_attrs: set[str] = set()
        self.attr_cost: dict[str, int] = {}  # what each self attribute's value cost to build
        self.last_assign: dict[str, Event] = {}  # the latest assignment of each attribute
        self.inject: tuple[str, Const] | None = None
        self.assume: tuple[Assumption, ...] = ()  # the effect being applied's assumptions
        self.literals: tuple[tuple[str, bool], ...] = ()  # and its undecided guards' literals
        self.unkeyed = False  # and whether one of them has none (``Event.unkeyed``)
        # Something ran that the simulation did not follow (an unresolved call or super
        # call, a recursion): it may have set attributes, so ``hasattr(self, x)`` is open.
        self.opaque = False
        self.set_names: set[str] = set()  # set through a literal ``__setattr__`` call
        # The self attributes the values a call event's frame returned read (by event index):
        # ``inv = self._scaled(f)`` where ``_scaled`` returns ``self.inv_freq / f``.
        self.return_reads: dict[int, frozenset[str]] = {}
        # Every attribute any work so far may have set (stores, deletes, touch writes, torch's
        # registrations), and whether something may have set any (``self`` passed on,
        # ``self.__dict__`` written): a name outside both is definitely unset.
        self.ever_set: set[str] = set()
        self.wild = False
        # A call ran that the simulation did not follow and that may set any attribute (as
        # ``opaque``, less a classmethod whose own body shows what it sets: ``note_unfollowed``).
        self.blind = False
        # whether a class of the MRO may bind each name (``events.py``)
        self.bound_in_class: dict[str, bool] = {}
        # Builds from specs (``simulation/specs.py``): what the constructed class's own
        # arguments are annotated with (the holder of a spec's field), and each symbolic
        # value's latest change in place (events so far then).
        self.own_types: dict[str, tuple[Module, tuple[str, ...]]] = {}
        self.spec_writes: dict[str, int] = {}
        # What every later effect assumes after a raise under one undecided guard: that the
        # guard was false (the paths where it was true ended there).
        self.after_raise: tuple[Assumption, ...] = ()
        self.after_raise_literals: tuple[tuple[str, bool], ...] = ()
        # Writes of each self attribute so far, and of anything (the guards' state keys).
        self.attr_writes: dict[str, int] = {}
        self.epoch = 0
        # What each self attribute holds where storing it again stores the same object
        # (``EventLog._same_object``: ``self.pp_group = get_parallel().pp_group``,
        # ``self.config = config``), and the attribute's write count after that store.
        self.same_stores: dict[str, tuple[str, int]] = {}

"""Rule metadata, the rule registry, and the Finding a rule produces."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import ClassVar, Literal, Protocol

from initlint.diagnostics import Confidence, Severity
from initlint.records import dataclass
from initlint.rules.written import decided
from initlint.simulation.levels import HEAVY, LIGHT, UNKNOWN
from initlint.simulation.records import WORLD_KEY, Event, FlagRef, Simulation
from initlint.simulation.values import MAYBE, Origin

DOC_SECTIONS = ("What it does", "Why is this bad", "Example", "Use instead", "Fix safety")

# The fixer's strategies (docs/design.md, "Fixes"), which a rule allows for its findings:
# switch off an existing flag, thread or introduce one, delete an identical redo; or delete
# a build the same construction replaces unread (IL005).
FixStrategy = Literal["switch-off", "thread", "delete", "delete-discarded"]
ALL_FIXES: frozenset[FixStrategy] = frozenset({"switch-off", "thread", "delete"})

# What redone work shows as when a construction is traced (``initlint trace``): the kinds of
# ``runtime.model.EventKind`` (a buffer or parameter registered again, an attribute rebuilt,
# a method called again). Named here, as the rules sit below the runtime.
RuntimeKind = Literal["buffer", "parameter", "attribute", "call"]
STORAGE: frozenset[RuntimeKind] = frozenset({"buffer", "parameter", "attribute"})


def unknown_cost_why(finding: RepeatFinding | DisabledFinding) -> str:
    """Why a finding's build is only possibly heavy: its construction is heavy on some of its
    own paths only, or what it costs is not known here."""
    events = (finding.event, finding.first) if isinstance(finding, RepeatFinding) else ()
    for ev in events:
        if ev.heavy_when:
            return f"that build is {ev.heavy_when}"
    return "what that build costs is not known here"


class _Graded:
    """What every finding says of its cost class and of the build it is about."""

    cost: int
    first: Event

    @property
    def severity(self) -> Severity:
        """Heavy work is an ``error``, light work a ``warning`` (docs/design.md, "Cost
        classes"); heavy work that happens only in a state outside the construction (a cache
        file missing, an environment variable set) is a ``warning``: it is not the path every
        construction takes (docs/design.md, "Guards")."""
        return "error" if self.cost >= HEAVY and not self.world_test else "warning"

    @property
    def world_test(self) -> str:
        """The text of a test of a state outside the construction that the work, or the
        build it throws away, happens only under; "" when there is none. The build thrown
        away is so only when every build it may be is, and not on both sides of one such
        test (``if os.path.exists(p): A else: B``: the test only picks which is thrown away)."""
        settled = self._settled()
        for side in self._sides():
            tests = [[lit for lit in _world_literals(ev) if lit[0] not in settled] for ev in side]
            if not side or not all(tests):
                continue
            seen = {lit for found in tests for lit in found}
            if any((key, not truth) in seen for key, truth in seen):
                continue
            return tests[0][0][0].partition(":")[2]
        return ""

    def _sides(self) -> tuple[tuple[Event, ...], ...]:
        """The work, and the builds it may throw away: each a group of events that all run
        only under a world test for the finding to happen only there."""
        return ((self.first,),)

    def _settled(self) -> AbstractSet[str]:
        """World tests the construction itself decides (a file it wrote before the test)."""
        return frozenset()


@dataclass(frozen=True)
class RepeatFinding(_Graded):
    """A rule's verdict that a simulated class does ancestor work again (IL001-IL003, and
    rules like them): the statement that repeats it, and the ancestor's build."""

    code: str
    sim: Simulation
    event: Event  # the repeated statement
    first: Event  # where the ancestor chain did the work first
    confidence: Confidence
    what: str  # e.g. "buffer `cos_sin_cache`"
    flag: FlagRef | None = None  # an ancestor parameter that can switch the work off, if any
    cost: int = LIGHT  # cost class of the work the finding is about (levels.LIGHT | HEAVY)
    # The ancestor's build this class discards (the latest before ``event``), when an
    # intermediate class did the work again after ``first``; ``earlier``: the builds before it.
    nearest: Event | None = None
    earlier: tuple[Event, ...] = ()
    # A part of a submodule rebuilt (``self.attn.qkv = ...``): the ancestor's assignment of
    # the attribute holding the object whose construction built the part. ``first`` and
    # ``nearest`` are then events of that object's class's own simulation.
    holder: Event | None = None
    # Why no fix can be offered, when the rule knows it (the fixer plans none then).
    no_fix: str = ""
    # Other builds that may be the one discarded instead, on paths initlint cannot tell
    # apart (the ancestor's ``if``/``else`` on a condition it cannot match to the subclass's):
    # ``nearest`` is the heaviest of them (``repeats.discarded_build``).
    alternatives: tuple[Event, ...] = ()
    # The statement of an installed dependency that does the work ``event``, a call in the
    # project's own code, runs (``self.post_init()`` ties a weight the class built): the
    # finding sits where the project can act.
    through: Event | None = None

    @property
    def discarded(self) -> Event:
        """The build this class throws away: the nearest one, else the first."""
        return self.nearest if self.nearest is not None else self.first

    def _sides(self) -> tuple[tuple[Event, ...], ...]:
        return ((self.event,), (self.discarded, *self.alternatives))

    def _settled(self) -> AbstractSet[str]:
        return decided(self.sim, self.discarded, self.event).keys()


@dataclass(frozen=True)
class DisabledFinding(_Graded):
    """A rule's verdict that an argument the class passes switches off ancestor setup that
    nothing else in the construction performs (IL004)."""

    code: str
    sim: Simulation
    origin: Origin  # the argument that switched the work off (where the diagnostic points)
    first: Event  # the first piece of work it switched off
    confidence: Confidence
    what: str  # the attributes left unset, e.g. "`cache`, `table`"
    disabled: tuple[Event, ...]  # all the work it switched off, ``first`` first
    cost: int = LIGHT

    @property
    def discarded(self) -> Event:
        """The setup the class goes without (the messages name it as the repeats' build)."""
        return self.first


# A finding is one of the two; readers match on the kind (a repeat points at a statement,
# a switched-off setup at an argument) instead of testing optional fields.
Finding = RepeatFinding | DisabledFinding


def _world_literals(ev: Event) -> list[tuple[str, bool]]:
    """The undecided tests of a state outside the construction ``ev`` runs under."""
    return [(key, truth) for key, truth in ev.literals if key.startswith(WORLD_KEY)]


def confidence_of(*events: Event) -> Confidence:
    """``possible`` when one of the events happens only under an undecided condition."""
    return "possible" if any(e.status == MAYBE for e in events) else "definite"


def method_label(qualname: str) -> str:
    """``Class.method`` of a function's qualified name, as messages name it."""
    parts = qualname.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else qualname


class Analyses(Protocol):
    """The analyses of one simulation that several rules read, each computed once per
    simulation (``rules/analyses.py``)."""

    @property
    def repeats(self) -> list[RepeatFinding]:
        """Ancestor work the class does again (IL001-IL003), in the simulation's order."""
        ...


@dataclass(frozen=True)
class Wording:
    """What a rule's message may say about where the work was first done, as shown."""

    first_fn: str  # the ancestor method that did it, e.g. ``Base.__init__``
    first_where: str  # ``path:line``, with the distribution of an installed ancestor
    alternatives: tuple[str, ...] = ()  # ``path:line`` of Finding.alternatives
    # ``Finding.through``: the dependency's method and ``path:line (dist)`` that does it
    through: str = ""


class Rule:
    """Base class: one rule, in one module (``rules/il001_buffer.py`` is one). Subclasses set
    the class attributes, document themselves, detect their findings on a simulation and
    word their message, and declare what they can do (``fix_strategies``, ``runtime_repeats``,
    ``decision``): the pipeline, the reporters, the fixer, ``explain-class`` and the runtime
    link ask the rule object, never test its code.

    ``VALID`` and ``INVALID`` are single-file examples; the test suite checks that every
    INVALID example produces this rule's code and no VALID example does.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = "warning"
    summary: ClassVar[str]
    docs: ClassVar[dict[str, str]]
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()
    # The fixer's strategies for its findings (none: the fixer plans nothing for it). Only a
    # RepeatFinding can be fixed.
    fix_strategies: ClassVar[frozenset[FixStrategy]] = frozenset()
    # The runtime repeats its findings predict (none: they predict no repeat, and the trace
    # links none of them): a finding is compared with a repeat of these kinds.
    runtime_repeats: ClassVar[frozenset[RuntimeKind]] = frozenset()
    always_shown: ClassVar[bool] = False  # no selection or suppression hides it (IL902)
    # Where its diagnostic points: the repeated statement, or (False) the finding's
    # ``origin``, the argument that caused it (IL004).
    points_at_statement: ClassVar[bool] = True
    # The related notes of a repeat: at the build it is about, and at each of its
    # ``alternatives``.
    first_note: ClassVar[str] = "first done here"
    # Its findings are about a build the same construction throws away (``first``), at the
    # store that replaces it (IL005), rather than ancestor work done again.
    discards_first: ClassVar[bool] = False
    alternative_note: ClassVar[str] = "or done here instead, on other paths"

    def note_for(self, finding: Finding, first: Event) -> str:
        """The related note at the build a finding is about (``first_note``): a rule may
        word some builds its own way."""
        return self.first_note

    @property
    def fixable(self) -> bool:
        """The fixer plans fixes for its findings."""
        return bool(self.fix_strategies)

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        """This rule's findings on one simulated class (none for the internal rules)."""
        return []

    def decision(self, finding: Finding) -> str:
        """What ``initlint explain-class`` says of a finding that points at no statement of
        the class's own work (a DisabledFinding), after "<code> <severity>: ". (A repeat is
        shown at the statement that repeats, with the build it repeats.)"""
        return f"{finding.what}: {self.summary}"

    def message(self, finding: Finding, wording: Wording) -> str:
        """The diagnostic's message for ``finding``."""
        raise NotImplementedError(f"{self.code} reports no findings of its own")

    def explain(self) -> str:
        lines = [f"{self.code} ({self.name})", "", self.summary, ""]
        for section in DOC_SECTIONS:
            lines.append(f"## {section}")
            lines.append(self.docs[section].strip("\n"))
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"


class RepeatRule(Rule):
    """A rule about ancestor work the class does again (IL001-IL003): its findings are its
    code's share of the shared repeat analysis (``rules/repeats.py``)."""

    again: ClassVar[str]  # "registered again"
    did: ClassVar[str]  # "registered it"

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        return [f for f in shared.repeats if f.code == self.code]

    def again_for(self, finding: Finding) -> str:
        """How this finding's repeat is worded ("registered again"): a rule may word some
        repeats its own way."""
        return self.again

    def message(self, finding: Finding, wording: Wording) -> str:
        possibly = "possibly " if finding.confidence == "possible" else ""
        # (an ancestor's ``__init__`` the class itself called twice: the first call is the
        # class's own, not work done during it)
        during = "" if finding.first.kind == "super_init" else " during super().__init__()"
        message = (
            f"{finding.what} is {possibly}{self.again_for(finding)}: {wording.first_fn} already "
            f"{self.did} at {wording.first_where}{during}"
        )
        if finding.first.kind == "super_init" and isinstance(finding, RepeatFinding):
            message += ", and the second run rebuilds what the first built"
        if wording.alternatives:
            message += (
                f" (or, on paths initlint cannot tell apart, at {', '.join(wording.alternatives)}"
                "; the heaviest of these builds is reported)"
            )
        if finding.cost == UNKNOWN:
            # sure of the repeat, not of its cost: a warning (``explain-class`` says why)
            message += "; " + unknown_cost_why(finding)
        if isinstance(finding, RepeatFinding) and finding.flag is not None:
            message += (
                f"; flag `{finding.flag.param}` of "
                f"{method_label(finding.flag.function.qualname)} can switch that off"
            )
        return message


REGISTRY: dict[str, Rule] = {}


def runtime_repeats_of(code: str) -> frozenset[RuntimeKind]:
    """The runtime repeats that findings of rule ``code`` predict (none for a code no rule
    registered)."""
    rule = REGISTRY.get(code)
    return rule.runtime_repeats if rule is not None else frozenset()


def register(cls: type[Rule]) -> type[Rule]:
    if cls.code in REGISTRY:
        raise ValueError(f"duplicate rule code {cls.code}")
    REGISTRY[cls.code] = cls()
    return cls


def select_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str]:
    """Prefix selection, ruff style: ``IL0`` selects IL001-IL005; ``ALL`` selects all."""

    def hit(code: str, prefixes: tuple[str, ...]) -> bool:
        return any(p == "ALL" or code.startswith(p) for p in prefixes)

    chosen = {c for c in REGISTRY if hit(c, select)}
    return frozenset(c for c in chosen if not hit(c, ignore))

"""Rule metadata, the rule registry, and the Finding a rule produces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from initlint.diagnostics import Severity
from initlint.simulation.cost import HEAVY, LIGHT
from initlint.simulation.engine import Event, FlagRef, Simulation
from initlint.simulation.values import Origin

DOC_SECTIONS = ("What it does", "Why is this bad", "Example", "Use instead", "Fix safety")


@dataclass(frozen=True)
class Finding:
    """A rule's verdict on one simulated class, before it is located and rendered."""

    code: str
    sim: Simulation
    event: Event | None  # the repeated statement (None for IL004)
    first: Event | None  # where the ancestor chain did the work first
    confidence: str
    what: str  # e.g. "buffer `cos_sin_cache`"
    flag: FlagRef | None = None
    origin: Origin | None = None  # IL004: the argument that switched the work off
    disabled: tuple[Event, ...] = ()  # IL004: the work that was switched off
    cost: int = LIGHT  # cost class of the work the finding is about (cost.LIGHT | HEAVY)
    # The ancestor's build this class discards (the latest before ``event``), when an
    # intermediate class did the work again after ``first``; ``earlier``: the builds before it.
    nearest: Event | None = None
    earlier: tuple[Event, ...] = ()

    @property
    def severity(self) -> Severity:
        """Heavy work is an ``error``, light work a ``warning`` (DESIGN §3 "Cost classes")."""
        return "error" if self.cost >= HEAVY else "warning"

    @property
    def discarded(self) -> Event | None:
        """The build this class throws away: the nearest one, else the first."""
        return self.nearest if self.nearest is not None else self.first


class Rule:
    """Base class. Subclasses set the class attributes and document themselves.

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
    fixable: ClassVar[bool] = False

    def explain(self) -> str:
        lines = [f"{self.code} ({self.name})", "", self.summary, ""]
        for section in DOC_SECTIONS:
            lines.append(f"## {section}")
            lines.append(self.docs[section].strip("\n"))
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"


REGISTRY: dict[str, Rule] = {}


def register(cls: type[Rule]) -> type[Rule]:
    if cls.code in REGISTRY:
        raise ValueError(f"duplicate rule code {cls.code}")
    REGISTRY[cls.code] = cls()
    return cls


def select_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str]:
    """Prefix selection, ruff style: ``IL0`` selects IL001-IL004; ``ALL`` selects all."""

    def hit(code: str, prefixes: tuple[str, ...]) -> bool:
        return any(p == "ALL" or code.startswith(p) for p in prefixes)

    chosen = {c for c in REGISTRY if hit(c, select)}
    return frozenset(c for c in chosen if not hit(c, ignore))

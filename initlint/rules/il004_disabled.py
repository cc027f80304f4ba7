"""IL004 disabled-setup-not-replaced: ancestor setup switched off by a flag, never replaced."""

from __future__ import annotations

import ast

from initlint.facts.model import BodyError, Cond, Param
from initlint.index.records import ClassInfo
from initlint.rules.base import (
    Analyses,
    DisabledFinding,
    Finding,
    Rule,
    Wording,
    confidence_of,
    register,
)
from initlint.rules.examples import BASE
from initlint.rules.readers import no_plain_reads, reads_under, tests_around
from initlint.simulation.arguments import param_of
from initlint.simulation.levels import LIGHT
from initlint.simulation.records import Event, Simulation
from initlint.simulation.values import Origin


@register
class DisabledSetupNotReplaced(Rule):
    code = "IL004"
    points_at_statement = False  # at the argument that switches the setup off
    # No fix strategies (only the author knows whether the flag or the missing setup is the
    # mistake), and no runtime repeat: the work it is about never runs.
    name = "disabled-setup-not-replaced"
    summary = "A subclass switches off ancestor setup with a flag and never performs it itself."
    docs = {
        "What it does": """
Checks for a super call that passes a flag (e.g. `init_cache=False`) which switches off an
ancestor's buffer registration or expensive attribute setup, when nothing in the class's
construction performs that setup instead.

An attribute that no class in the MRO reads plainly (`self.x`) leaves nothing missing when it
is switched off, and is not reported: one that nothing reads, or that every reader reads only
through `getattr(self, "x", default)` or `hasattr(self, "x")`, or reads only in a method the
class overrides without calling it (an ancestor's `forward` that never runs on the object);
so is one read only under the test it is set up under (`if not self.lazy:` around the setup
and around every read, or around every call of a helper method that reads it). Nor is
setup in one arm of an `if` whose other arm the flag switches on, when that arm builds
something (`if deep_stem: self.stem = ... else: self.conv1 = ...`): the flag chose one of
the ancestor's two setups, and the class gets the other. Nor is a flag passed at the value
its parameter's default already has (`vr=False` where the ancestor declares `vr=False`):
every object the ancestor builds with its defaults lacks that setup too, so its readers
must do without it.

Severity: `error` when the missing setup is heavy work (a buffer, a module with parameters),
`warning` when it is light (see IL003 for what counts).
""",
        "Why is this bad": """
The object is left without a buffer or attribute its methods expect: the first forward pass
fails with an AttributeError, or silently uses a stale value.
""",
        "Example": """
```python
class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
```
""",
        "Use instead": """
```python
class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
```
""",
        "Fix safety": """
No automatic fix: only the author knows whether the flag or the missing setup is the mistake.
""",
    }
    VALID = (
        BASE
        + """

class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
        self.register_buffer("cache", torch.zeros(8, 4), persistent=False)
""",
    )
    INVALID = (
        BASE
        + """

class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
""",
    )

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        return find_disabled(sim)

    def decision(self, finding: Finding) -> str:
        return f"{finding.what} switched off and never set up"

    def message(self, finding: Finding, wording: Wording) -> str:
        if not isinstance(finding, DisabledFinding):  # (its detect makes no other kind)
            raise TypeError(f"{self.code} words switched-off setup, not a {finding.code} repeat")
        first, origin = finding.first, finding.origin
        param = origin.keyword or (first.flags[-1].param if first.flags else "")
        passed = f"{param}={origin.text}" if param else origin.text
        return (
            f"passing `{passed}` switches off {finding.what} set up in {wording.first_fn} "
            f"({wording.first_where}), and nothing in the construction sets it up instead"
        )


def find_disabled(sim: Simulation) -> list[Finding]:
    """IL004: C passes a flag that switches off ancestor setup nothing else performs."""
    performed = {(e.kind, e.name) for e in sim.events if not e.shadow}
    built = [e for e in sim.events if not e.shadow and e.kind in _BUILDS and e.cost >= LIGHT]
    by_origin: dict[Origin, list[Event]] = {}
    for e in sim.events:
        if not e.shadow or not e.ancestor:
            continue
        if e.kind == "buffer" or (e.kind == "assign" and e.expensive):
            origin = next((o for o in e.switched_off_by if o.frame == sim.top_frame), None)
            if origin is None:
                continue
            if ("buffer", e.name) in performed or ("assign", e.name) in performed:
                continue
            if any(_other_arm(e, x) for x in built):
                continue  # the flag picked the ancestor's other setup
            if _off_by_default(sim, origin):
                continue  # the ancestor's own defaults leave it off: its readers cope
            by_origin.setdefault(origin, []).append(e)
    if by_origin:
        classes = [c for q in sim.mro if (c := _class(sim, q)) is not None]
        for origin, evs in list(by_origin.items()):
            # An attribute the classes never read, or read only optionally, or only under
            # the test it is built under, is not missing where it is read.
            evs = [e for e in evs if not _never_missed(classes, e)]
            if evs:
                by_origin[origin] = evs
            else:
                del by_origin[origin]
    out: list[Finding] = []
    for origin, evs in by_origin.items():
        names = ", ".join(dict.fromkeys(f"`{e.name}`" for e in evs))
        out.append(
            DisabledFinding(
                "IL004",
                sim,
                origin,
                evs[0],
                confidence_of(*evs),
                names,
                tuple(evs),
                cost=max(LIGHT, *(e.cost for e in evs)),
            )
        )
    return out


_BUILDS = ("buffer", "assign")


def _off_by_default(sim: Simulation, origin: Origin) -> bool:
    """Whether the argument at ``origin`` passes the value the parameter it binds to (in
    the ``__init__`` the class's super call runs) already has by default (``vr=False``
    where that ``__init__`` declares ``vr=False``): every object built with that default
    lacks the setup as well, so its readers must do without it."""
    passed = _constant(origin.text)
    bound = _bound_param(sim, origin)
    if passed is _UNREAD or bound is None:
        return False
    default = bound.default
    if default is None or default.kind != "const" or default.name:
        return False  # (no default, or one the facts do not hold: ``...``)
    return default.value == passed and type(default.value) is type(passed)


def _bound_param(sim: Simulation, origin: Origin) -> Param | None:
    """The parameter of the called ``__init__`` that the argument at ``origin`` binds to:
    a keyword's by its name, a positional one's by its place (none after ``*args``)."""
    for e in sim.events:
        if e.kind != "super_init" or e.frame != origin.frame or e.callee is None:
            continue
        args = e.effect.args[1:] if e.effect.detail == "explicit" else e.effect.args
        at = next((i for i, a in enumerate(args) if a.span == origin.span), None)
        body = e.callee.facts.load()
        if at is None or isinstance(body, BodyError):
            continue
        return param_of(body.params[1:], args, at)
    return None


_UNREAD = object()


def _constant(text: str) -> object:
    """The constant a literal argument's text writes (read, never run); ``_UNREAD`` for
    anything else."""
    if len(text) > 100:  # (a flag is a short literal)
        return _UNREAD
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNREAD


def _other_arm(off: Event, on: Event) -> bool:
    """Whether ``on`` ran in the other arm of an ``if`` that switched ``off`` off: the same
    call of the same function, under the opposite of one of ``off``'s conditions."""
    if on.frame != off.frame or on.fn is not off.fn:
        return False
    conds = on.effect.guard
    return any(_opposite(c, d) for c in off.effect.guard for d in conds)


def _opposite(a: Cond, b: Cond) -> bool:
    return (a.op == "not" and a.args == (b,)) or (b.op == "not" and b.args == (a,))


def _never_missed(classes: list[ClassInfo], e: Event) -> bool:
    """Whether no read of what ``e`` sets up can find it missing: none reads it plainly,
    or every read sits under a test its setup sits under (``if not self.lazy:`` both)."""
    if no_plain_reads(classes, e.name):
        return True
    owner = e.fn.owner
    if owner is None:
        return False
    return reads_under(classes, e.name, tests_around(owner, e.effect.span.line))


def _class(sim: Simulation, qualname: str) -> ClassInfo | None:
    """The project class ``qualname`` of ``sim``'s MRO (the events know their functions)."""
    if sim.cls.qualname == qualname:
        return sim.cls
    for e in sim.events:
        owner = e.fn.owner
        if owner is not None and owner.qualname == qualname:
            return owner
    return None

"""IL005's analysis: a value stored on ``self`` and replaced later in the same construction,
with nothing reading it in between, read from the ordered events of one simulation."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator, Sequence
from itertools import product

from initlint.diagnostics import Confidence
from initlint.facts.model import Expr
from initlint.records import dataclass
from initlint.rules.base import RepeatFinding
from initlint.rules.repeats import never_both
from initlint.simulation.cost import LIGHT, NONE
from initlint.simulation.engine import Event, Simulation
from initlint.simulation.values import MAYBE
from initlint.sources import UnreadableError, read_source

CODE = "IL005"
_STORES = ("assign", "buffer")
# Events that change or hand out the attribute's object in place: what they do to it may
# matter, so the value counts as used (``self.layers.append(x)``, ``self.a.b = c``).
_IN_PLACE = ("mutate", "nested", "delete")
# Assumption tests that are not a comparison with one constant, and constants Python finds
# equal though they are written differently.
_NOT_VALUES = frozenset({"truthy"})
_EQUAL_REPRS = ({"1", "True"}, {"0", "False"}, {"1", "1.0"}, {"0", "0.0"})
# More undecided conditions than this among the replacements: not enumerated (a "possibly").
_MAX_KEYS = 8


@dataclass(frozen=True)
class Discard:
    """A build (``first``) that the construction replaces before anything reads it: the
    stores that replace it (``by``, in order), and whether they do on every path."""

    first: Event
    by: tuple[Event, ...]
    always: bool


def find_discards(sim: Simulation) -> list[RepeatFinding]:
    """IL005's findings on ``sim``: one per discarded build, at the first store replacing it."""
    events = [e for e in sim.events if not e.shadow]
    out: list[RepeatFinding] = []
    for i, first in enumerate(events):
        if first.kind not in _STORES or _placeholder(first):
            continue
        found = _discard(sim, first, events[i + 1 :])
        if found is None:
            continue
        event = found.by[0]
        confidence: Confidence = "definite" if found.always and not first.possibly else "possible"
        out.append(
            RepeatFinding(
                CODE,
                sim,
                event,
                first,
                confidence,
                _what(first),
                cost=max(first.cost, LIGHT),
                alternatives=found.by[1:],
                no_fix=_no_fix(found),
            )
        )
    return out


def _discard(sim: Simulation, first: Event, after: Sequence[Event]) -> Discard | None:
    """The stores replacing ``first`` before the first read of it that may run with it."""
    name = first.name
    by: list[Event] = []
    cut = False  # a ``return`` after ``first`` may end its frame before the store
    for e in after:
        if never_both(first, e) or _other_values(first, e):
            continue  # never runs in a construction where ``first`` ran
        if e.kind in _STORES and e.name == name:
            if _fallback(sim, first, e):
                continue  # an ``except`` handler's store: runs when the build failed
            ret = _return_between(sim, first, e)
            if ret == "always":
                break  # whenever ``first`` runs, its frame returns before this store
            cut = cut or ret == "maybe"
            by.append(e)
        elif _reads(e, name):
            break
    if not by or not _ours(first, by[0]) or _aliased(first):
        return None
    return Discard(first, tuple(by), not cut and _covers(first, by))


def _return_between(sim: Simulation, first: Event, e: Event) -> str:
    """Whether a ``return`` of ``first``'s function, after it, ends that frame before ``e``:
    "always" (it runs whenever ``first`` does: an ``if x: build; return`` block), "maybe"
    (under a guard of its own), or ""."""
    step: Event | None = e
    while step is not None and step.frame != first.frame:
        step = sim.events[step.parent] if step.parent is not None else None
    if step is None:
        return ""  # ``e`` runs after ``first``'s frame has ended, whichever way it did
    shape = _shape(sim, first)
    if shape is None:
        return "maybe"  # (the source cannot be read again: assume the worst)
    end = (step.effect.stmt_span or step.effect.span).line
    start = first.effect.stmt_span or first.effect.span
    mine = shape.block_of(start.line)
    verdict = ""
    for line, block in shape.returns:
        if start.end_line < line < end:
            if mine[: len(block)] == block:
                return "always"
            verdict = "maybe"
    return verdict


def _fallback(sim: Simulation, first: Event, e: Event) -> bool:
    """``e`` sits in an ``except`` handler of a ``try`` whose body holds ``first`` (``try:
    self.v = Version(s)`` / ``except ...: self.v = None``): the fallback for a build that
    raised, not a replacement of one that finished."""
    if e.frame != first.frame:
        return False
    shape = _shape(sim, first)
    if shape is None:
        return False
    mine = shape.block_of((first.effect.stmt_span or first.effect.span).line)
    theirs = shape.block_of((e.effect.stmt_span or e.effect.span).line)
    tries = {line for line, field in mine if field == "body"}
    return any(field == "handlers" and line in tries for line, field in theirs)


@dataclass(frozen=True)
class _Shape:
    """Where a function's statements sit: the blocks around each statement line (a path of
    (statement line, field) pairs from the body down), and its ``return``s with theirs."""

    blocks: dict[int, tuple[tuple[int, str], ...]]
    returns: tuple[tuple[int, tuple[tuple[int, str], ...]], ...]

    def block_of(self, line: int) -> tuple[tuple[int, str], ...]:
        return self.blocks.get(line, ())


def _shape(sim: Simulation, first: Event) -> _Shape | None:
    """The shape of ``first``'s function (the facts keep no bare ``return`` of an
    ``__init__``): read from its source, once per function and simulation."""
    memo = sim.memo.setdefault("il005-shapes", {})
    assert isinstance(memo, dict)
    key = first.fn.qualname
    if key not in memo:
        memo[key] = _read_shape(first)
    got = memo[key]
    return got if isinstance(got, _Shape) else None


def _read_shape(first: Event) -> _Shape | None:
    span = first.fn.facts.span
    try:
        text = read_source(first.fn.module.path).text
    except UnreadableError:
        return None
    lines = text.splitlines()[span.line - 1 : span.end_line]
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
    except SyntaxError:
        return None
    blocks: dict[int, tuple[tuple[int, str], ...]] = {}
    returns: list[tuple[int, tuple[tuple[int, str], ...]]] = []
    offset = span.line - 1

    def walk(stmts: list[ast.stmt], path: tuple[tuple[int, str], ...]) -> None:
        for st in stmts:
            blocks.setdefault(st.lineno + offset, path)
            if isinstance(st, ast.Return):
                returns.append((st.lineno + offset, path))
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue  # (its returns are its own)
            for name in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(st, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    walk(inner, (*path, (st.lineno + offset, name)))
                elif name == "handlers" and inner:
                    for h in inner:
                        walk(h.body, (*path, (st.lineno + offset, name)))

    if tree.body and isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        walk(tree.body[0].body, ())
    return _Shape(blocks, tuple(returns))


def _other_values(a: Event, b: Event) -> bool:
    """The two run only when one argument equals two different constants (``mode ==
    "dense"`` and ``mode == "sparse"``, two ``if``s rather than an ``if``/``else``)."""
    for sym, test, holds in a.assume:
        if not holds or test in _NOT_VALUES:
            continue
        for sym2, test2, holds2 in b.assume:
            if sym2 == sym and holds2 and test2 not in _NOT_VALUES and test2 != test:
                if {test, test2} not in _EQUAL_REPRS:
                    return True
    return False


def _ours(first: Event, second: Event) -> bool:
    """Which pairs IL005 reports in this class's simulation: work of the class's own code
    replaced (by itself, or by the ancestors' afterwards). An ancestor's build replaced after
    ``super().__init__()`` is IL001-IL003's; one the ancestors replace themselves is
    reported on the ancestor that does it."""
    return not first.ancestor


def _reads(e: Event, name: str) -> bool:
    """``e`` may read or keep the value of ``self.<name>`` (or of everything)."""
    if e.kind == "touch":
        return name in e.effect.reads or "*" in e.effect.reads
    if e.kind in _IN_PLACE:
        return e.name == name or e.name.split(".", 1)[0] == name
    # A call not followed (a recursion, or a method initlint cannot resolve) may read anything.
    return e.kind in ("call", "super_init") and (e.unfollowed or e.callee is None)


def _placeholder(e: Event) -> bool:
    """A value that stands for "nothing yet": a constant (``None``), a value that costs
    nothing, or a module that computes nothing (``nn.Identity()``)."""
    if e.value_const or e.cost <= NONE:
        return True
    value = e.effect.value
    return value is not None and value.kind == "call" and _last(value.name) == "Identity"


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _aliased(first: Event) -> bool:
    """The stored value is a local that the function uses elsewhere too (``h = Linear()``,
    ``self.h = h``, ``self.h2 = h``): the object lives on beyond the attribute."""
    value = first.effect.value
    if value is None or value.kind != "name" or not value.name:
        return False
    uses = 0
    for eff in first.fn.facts.effects:
        if eff.kind == "local" and eff.name == value.name:
            continue
        exprs = [eff.value, *(a.expr for a in eff.args)]
        uses += sum(1 for x in exprs if x is not None and value.name in _names(x))
        if uses > 1:
            return True
    return False


def _names(x: Expr) -> Iterator[str]:
    if x.kind == "name":
        yield x.name
    if x.receiver is not None:
        yield from _names(x.receiver)
    for c in x.children:
        yield from _names(c)


def _runs_with(first: Event, e: Event) -> bool:
    """``e`` runs whenever ``first`` does, as far as its guards' literals say."""
    if e.status != MAYBE:
        return True
    return not e.unkeyed and set(e.literals) <= set(first.literals)


def _covers(first: Event, by: Sequence[Event]) -> bool:
    """Some store of ``by`` runs on every path on which ``first`` runs: one that always
    runs with it, or branches whose extra conditions together always hold (``if``/``else``)."""
    if any(_runs_with(first, e) for e in by):
        return True
    known = set(first.literals)
    extras = [set(e.literals) - known for e in by if not e.unkeyed]
    keys = sorted({k for extra in extras for k, _ in extra})
    if not extras or len(keys) > _MAX_KEYS:
        return False
    for truths in product((False, True), repeat=len(keys)):
        world = set(zip(keys, truths, strict=True))
        if not any(extra <= world for extra in extras):
            return False
    return True


def _what(e: Event) -> str:
    if e.kind == "buffer":
        return f"{e.effect.detail or 'buffer'} `{e.name}`"
    return f"`self.{e.name}`"


def _no_fix(found: Discard) -> str:
    """Why the discarded build cannot simply be deleted ("" when it may be: the fixer still
    checks that its statement does nothing else)."""
    first = found.first
    if not found.always:
        return "the build is replaced on some paths only; it is used on the others"
    if first.possibly:
        return "what the build constructs is decided by the caller"
    if any(e.ancestor for e in found.by):
        return "the replacing build is an ancestor's, which other subclasses may rely on"
    return ""

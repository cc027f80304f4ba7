"""Abstract values for the init simulation: constants, unknowns, and *args/**kwargs packs."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from initlint.facts.model import Const, Span
from initlint.records import dataclass


@dataclass(frozen=True)
class Origin:
    """Where a constant argument was written: used to say who switched a flag off."""

    frame: int
    function: str
    path: Path
    span: Span
    keyword: str | None
    text: str


# What an abstract value is (see Val).
ValKind = Literal["const", "unknown", "args", "kwargs", "sym"]


@dataclass(frozen=True)
class Val:
    """kind: const | unknown | args (positional pack) | kwargs (keyword pack) | sym.

    ``sym``: the truth of a condition the simulation cannot decide, ``value`` its key (the
    frame that tests it and its text), ``positive`` False for its negation."""

    kind: ValKind
    value: Const = None
    items: tuple[Val, ...] = ()
    keys: tuple[tuple[str, Val], ...] = ()
    origin: Origin | None = None
    # A pack built from the top-level call: it holds what the caller must pass, unknown.
    open: bool = False
    # Keywords an open keyword pack surely does not hold: the named parameters of the
    # function whose ``**kw`` it is (they take those keywords), the keys popped from it.
    absent: tuple[str, ...] = ()
    # An open keyword pack this code (or a caller's) filled with keys it does not follow
    # (``kwargs.update(...)``, ``setdefault``, ``**{"n": 0, **kwargs}``): what it gives a
    # parameter is not the constructed class's caller's, so not that parameter's default.
    filled: bool = False
    # An unknown that came from the constructed class's argument ``sym`` (``config`` or
    # ``config.q_lora_rank``): two guards on one symbol can be told apart.
    sym: str = ""
    # Fields set on the object (``config.n_experts = None`` on a copied config).
    fields: tuple[tuple[str, Val], ...] = ()
    positive: bool = True
    # A value given by a name (a default such as ``attn_cls=Attention``, or an argument
    # naming a class): (the module it was written in, the dotted name). Calling the value
    # builds what the name is bound to there (``ProjectIndex.resolve_value``, asked only
    # then). ``maybe_ref``: only possibly that, the constructed class's own default, which
    # a caller initlint does not see may replace (docs/design.md, "Guards").
    ref: tuple[str, str] | None = None
    maybe_ref: bool = False
    # A value that is one of several such names (``A if cond else B``, an item of a tuple
    # of classes, what a function returning one of them gave): calling it builds one.
    choices: tuple[tuple[str, str], ...] = ()
    # A name bound to a torch vector of sizes written in the code (``t = torch.arange(64)``):
    # how many numbers it holds, the room of each in float32 numbers, and whether they are
    # integers (``CostModel.vector_total``).
    numel: tuple[int, int, bool] | None = None
    # An unknown that is the constructed class's own argument whose default is a number
    # written in the code (``hidden=128``): what a size it gives holds when the class is
    # built with its defaults (``sized``). Any other binding of the name drops it.
    default: int | None = None

    def field(self, name: str) -> Val | None:
        for k, v in self.fields:
            if k == name:
                return v
        return None

    def with_origin(self, origin: Origin | None) -> Val:
        if origin is None or self.kind != "const":
            return self
        return Val("const", self.value, origin=origin)

    def kw_get(self, key: str) -> Val | None:
        for k, v in self.keys:
            if k == key:
                return v
        return None

    def kw_without(self, key: str) -> Val:
        keys = tuple((k, v) for k, v in self.keys if k != key)
        return Val("kwargs", keys=keys, open=self.open, absent=self.absent, filled=self.filled)


UNKNOWN = Val("unknown")
EMPTY_ARGS = Val("args")
EMPTY_KWARGS = Val("kwargs")
OPEN_ARGS = Val("args", open=True)
OPEN_KWARGS = Val("kwargs", open=True)

TRUE, FALSE, MAYBE = "true", "false", "unknown"


def const(value: Const) -> Val:
    return Val("const", value)


def sized(v: Val) -> Val:
    """What ``v`` holds as a size read at the constructed class's defaults: the number its
    ``default`` is, or ``v`` itself."""
    return const(v.default) if v.default is not None else v


def forgotten(held: Val | None, rebound: bool) -> Val:
    """What a name holds once a binding not followed may have run: a value not known here
    where it was bound again; where only changed in place, the same pack or object, but
    no constant (``n += 1``), nor a known count of numbers (``t.resize_(n)``)."""
    if held is None or rebound or held.kind in ("const", "sym") or held.sym:
        return UNKNOWN
    if held.numel is not None:
        return UNKNOWN
    return held

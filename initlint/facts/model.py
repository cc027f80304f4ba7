"""Picklable, frozen records of what one file says about classes, imports and init effects."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import Literal, TypeVar

from initlint.records import dataclass, field_values

Const = bool | int | float | str | bytes | None
T = TypeVar("T")


def _by_fields(cls: type[T]) -> type[T]:
    """Pickle a frozen slots dataclass as ``cls(*fields)``. The default (``__setstate__``,
    which calls ``dataclasses.fields`` per object) made loading a warm cache slow."""
    values = field_values(cls)

    def __reduce__(self: T) -> tuple[type[T], tuple[object, ...]]:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[assignment,method-assign]
    return cls


@_by_fields
@dataclass(frozen=True, slots=True)
class Span:
    """1-based lines; 0-based columns in UTF-8 bytes, as the ``ast`` module reports them."""

    line: int
    col: int
    end_line: int
    end_col: int


# What an expression is (see Expr).
ExprKind = Literal["const", "name", "attr", "call", "op", "subscript", "other"]


@_by_fields
@dataclass(frozen=True, slots=True)
class Expr:
    """A small expression tree, enough for the cost model and for constant flow.

    kind: ``const`` | ``name`` | ``attr`` | ``call`` | ``op`` | ``subscript`` | ``other``.
    For ``call``: ``name`` is the dotted callee when it is a plain dotted path (else ""),
    ``attr`` the method name when the callee is an attribute, ``receiver`` the object the
    method is called on, ``children`` the argument values: ``value`` of them positional (all
    when it is None), then one per name in ``keywords`` (``""`` for ``**kw``; a leading
    ``"*"`` in ``keywords`` marks a starred positional argument, and names no child).
    For ``const``: ``name`` is the type of a constant ``value`` cannot hold (``...``,
    ``1j``), "" otherwise. For ``op`` ``comp`` (``[f(x) for x in xs]``, one plain loop):
    ``attr`` is the loop's name, ``children`` what it walks and what each item becomes.
    ``callee``: for a call of a value no dotted path names (``MODELS[arch](d)``), that value.
    """

    kind: ExprKind
    name: str = ""
    attr: str = ""
    value: Const = None
    receiver: Expr | None = None
    children: tuple[Expr, ...] = ()
    keywords: tuple[str, ...] = ()
    callee: Expr | None = None

    def is_attr_of(self, name: str, attr: str) -> bool:
        """Whether this is ``<name>.<attr>``, ``name`` a plain name (``self.skips``)."""
        recv = self.receiver
        return (
            self.kind == "attr"
            and self.attr == attr
            and recv is not None
            and recv.kind == "name"
            and recv.name == name
        )

    def mentions(self, name: str) -> bool:
        """Whether the plain name ``name`` appears anywhere in this tree (``layer``,
        ``self`` in ``self.fast``)."""
        return any(n.kind == "name" and n.name == name for n in self.nodes())

    def positional(self) -> tuple[Expr, ...]:
        """A call's positional arguments (``value`` counts them; the rest are keywords)."""
        if isinstance(self.value, int) and not isinstance(self.value, bool):
            return self.children[: self.value]
        return self.children

    def nodes(self) -> Iterator[Expr]:
        """This expression and every one inside it (receivers, callees and children)."""
        stack: list[Expr] = [self]
        while stack:
            cur = stack.pop()
            yield cur
            if cur.receiver is not None:
                stack.append(cur.receiver)
            if cur.callee is not None:
                stack.append(cur.callee)
            stack.extend(cur.children)


# What a guard condition is (see Cond).
CondOp = Literal[
    "const",
    "name",
    "selfattr",
    "not",
    "and",
    "or",
    "is",
    "isnot",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "arith",
    "hasattr",
    "isinstance",
    "unknown",
]


@_by_fields
@dataclass(frozen=True, slots=True)
class Cond:
    """A guard condition. op: const|name|selfattr|not|and|or|is|isnot|eq|ne|lt|le|gt|ge|
    arith|hasattr|unknown.

    ``lt``/``le``/``gt``/``ge``: an ordering test of two operands; ``arith``: an operand
    computed from two (``value`` the operator: ``+ - * // %``).

    ``hasattr``: ``hasattr(self, "<name>")`` with a literal name.

    ``isinstance``: ``isinstance(<name>, <classes>)``, the one argument a ``name`` test and
    ``value`` the classes' text (``name`` the whole test's, as for compound tests)."""

    op: CondOp
    args: tuple[Cond, ...] = ()
    value: Const = None
    name: str = ""


@_by_fields
@dataclass(frozen=True, slots=True)
class ItemTest:
    """A test an initialisation pass makes of the item it walks (``facts/passes.py``), held
    (``truth``) or not on the way to a fill. kind: ``isinstance`` (``names``: the classes,
    dotted as written) | ``dims`` (the number of dimensions compared by ``op``, gt ge eq ne
    lt le, with ``value``) | ``type`` (``names``: the item's own class is one of them,
    ``type(m) in {...}``) | ``name`` (the item's dotted name: ``op`` in, endswith or
    startswith, ``names`` the strings) | ``classname`` (the name of the item's class, as
    ``name``, or ``op`` eq) | ``present`` (``m.<names[0]> is not None``) | ``hasattr``
    (``hasattr(m, "<names[0]>")``). ``part``: for an ``isinstance`` or ``present`` test,
    the module of the item it asks about, when that is the one holding the tensor filled
    (``isinstance(block.proj[-1], nn.Linear)`` before ``init(block.proj[-1].weight)``:
    ``proj.-1``); "" for the item itself."""

    kind: Literal["isinstance", "type", "dims", "name", "classname", "present", "hasattr"]
    names: tuple[str, ...] = ()
    op: str = ""
    value: int = 0
    truth: bool = True
    part: str = ""


@_by_fields
@dataclass(frozen=True, slots=True)
class Arg:
    """One call argument. ``keyword`` is None for positional; ``star`` is 0, 1 (*x) or 2 (**x)."""

    expr: Expr
    text: str
    keyword: str | None = None
    star: int = 0
    span: Span | None = None


# What an effect is (see Effect).
EffectKind = Literal[
    "buffer",
    "call",
    "assign",
    "super_init",
    "local",
    "pop",
    "return",
    "raise",
    "mutate",
    "objattr",
    "nested",
    "delete",
    "touch",
    "held_call",
    "import",
    "init",
    "helper",
    "local_use",
    "dropped",
    "fallback",
    "redrawn",
    "rerun",
    "pass",
    "rerun_each",
    "write",
]
ParamKind = Literal["posonly", "pos", "vararg", "kwonly", "kwarg"]


@_by_fields
@dataclass(frozen=True, slots=True)
class Effect:
    """One init-relevant statement, in source order, with its guard (a conjunction).

    kind: ``buffer`` (name, detail buffer|parameter, value) | ``call`` (name = method, detail
    self|super, args) | ``assign`` (name = attribute, value) | ``super_init`` (detail
    super|super2|explicit, target = class expression, args) | ``local`` (name, value) |
    ``pop`` (name = key) | ``return`` (value) | ``raise`` (a ``raise`` statement: the path
    ends there) | ``mutate`` (name = attribute holding a
    container, value = what goes in: ``self.x.append(v)``, target the method or ``+=``;
    ``self.x[k] = v``, with detail ``item``) | ``objattr``
    (name = dotted target on a local or argument, value: ``config.n_experts = None``; or the
    bare name of a local whose object changes in place: ``scaling["type"] = v``,
    ``scaling.update(...)``, ``n += 1``) |
    ``nested`` (name = the ``self`` attribute holding an object, detail = the part of it
    replaced, value: ``self.attn.qkv = Linear(...)``; target ``del`` for ``del
    self.attn.qkv``, value None then, as for an ``objattr`` ``del net.fc``) | ``delete``
    (name = attribute: ``del self.x``) | ``touch`` (reads, writes, strict) |
    ``held_call`` (target = the ``self`` attribute holding an object, name = the method
    called on it for its effects, args: ``self.quant_method.create_weights(self, ...)`` as
    a statement) | ``import`` (an import
    in the function: name = the local it binds, target = the module, dots for its level,
    detail = the name imported from it; ``from .unquant import Method``) | ``init`` (an
    in-place initialisation as a statement, ``nn.init.xavier_uniform_(self.weight)``,
    ``p.data.normal_(0, 0.02)``: detail ``self`` and target = the attribute of ``self`` the
    tensor filled is part of, dotted down to the part when written so, ``fc.bias``, and name
    = the target again when the whole tensor is filled (no subscript picks a part); or
    name = the local or argument it is reached through, detail ``whole`` when one of
    torch's fills writes every number of that local itself, from nothing it holds) |
    ``helper`` (a function called by its name with ``self`` among its arguments, as a
    statement: name = the function, args: ``initialize(self, init_type)``) | ``local_use`` (a
    mention of a local the function built by a call, ``net = resnet50()``, or of a parameter
    of an ``__init__`` whose parts it reads: name = the local, target = how it is used,
    part | call | whole | drop | lend (handed to an ancestor's ``__init__``) | children (a
    slice of its children taken, ``list(net.children())[:-2]``) | copy (``deepcopy(net)``),
    detail = the dotted part
    read, the method called or the slice's bounds (``:-2``); ``facts/local_uses.py``) |
    ``rerun_each`` (a loop over modules the object holds that calls one method of each with
    no arguments, ``for layer in self.layers: layer.reset_parameters()``: name = the
    method, target = the walk, ``iter`` for the attribute itself, else ``modules`` or
    ``children``, detail = the ``self`` attribute walked, "" for the object, tests = the
    item tests leading to the call) | ``write`` (a call as a statement of a function named
    like one that writes a file, ``torch.save(obj, path)``: name = the function as written,
    args; which it is, and so which argument is the path, is decided where imports
    resolve).

    A ``touch`` comes first among the effects of a statement (or of an ``if``/loop/``with``
    head) that reads or writes ``self`` attributes: ``reads`` and ``writes`` name them
    (docs/design.md "Reads"), and ``tested`` the reads it makes only to test them against
    None (``if self.x is not None:``). A write is any store, ``del``, augmented
    assignment, item or attribute store through the attribute, or method call on it (it may
    mutate it). ``*`` stands for
    every attribute: ``self`` itself was passed somewhere.
    """

    kind: EffectKind
    span: Span
    guard: tuple[Cond, ...] = ()
    name: str = ""
    detail: str = ""
    target: str = ""
    args: tuple[Arg, ...] = ()
    value: Expr | None = None
    # For calls: indices of the effects in the same function that consume the result,
    # and whether the result is also used anywhere else.
    feeds: tuple[int, ...] = ()
    feeds_other: bool = False
    # Index of the enclosing top-level statement of the function body.
    stmt: int = 0
    # Span of the whole statement this effect sits in.
    stmt_span: Span | None = None
    # First line of the enclosing top-level statement of the body, and whether it is a `with`.
    top_line: int = 0
    top_with: bool = False
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    # A touch's reads that happen for sure when the statement runs, before anything could set
    # them (``facts.strict``): one that is definitely unset then raises AttributeError.
    strict: frozenset[str] = frozenset()
    # A touch's reads that the statement mentions only in an identity test against None
    # (``if self.norm is not None:``): whether an object is there, nothing read of it.
    tested: frozenset[str] = frozenset()
    # A touch's reads that the statement makes only of what the value is, not of its numbers:
    # its length or a tensor's shape and kind (``len(self.ups)``, ``self.w.shape[0]``,
    # ``self.proj.weight.size(1)``), or a None test. A fill before them is not used by them.
    sized: frozenset[str] = frozenset()
    # A touch's reads whose tensor the statement only changes in place from its own numbers
    # (``self.head.proj.weight.data.mul_(scale)``): work kept in the value, nothing of it
    # taken elsewhere.
    changed: frozenset[str] = frozenset()
    # A touch's reads that the statement makes only to hand a part of the object on whole,
    # to a method of it or as the value returned (``facts.reads.handed_reads``).
    handed: frozenset[str] = frozenset()
    # A touch's names that may stand for a part of the object (``facts.aliases.
    # part_name_candidates``) which the statement uses (``facts.reads.name_uses``); a touch
    # is recorded for such a statement even when it mentions nothing of ``self``. On a
    # ``local``: the name it binds, when that name is one of them.
    names: frozenset[str] = frozenset()
    # A touch's ``names`` that the statement mentions once, as a whole argument of a call
    # of a method of the object (``facts.reads.handed_names``).
    passes: frozenset[str] = frozenset()
    # Inside a ``try`` (body, handlers, else) or a ``with`` body: an exception raised here may
    # be caught, so it does not end the construction for sure.
    protected: bool = False
    # A touch of a test that decides what runs next (an ``if``'s or ``while``'s test, an
    # ``assert``, a ``match`` subject): its reads choose the path, not just values on it.
    decides: bool = False
    # An ``init`` that computes fans (``kaiming_normal_``, ``xavier_uniform_``,
    # ``orthogonal_``): torch raises for a tensor of fewer than two dimensions, so what it
    # fills is a 2-D weight or larger.
    fan: bool = False
    # A ``pass``: the tests on the item walked that lead to its fill (all hold).
    tests: tuple[ItemTest, ...] = ()
    # The loops around it, outermost first: each ``for``/``while`` as read (an unrolled
    # loop's copies are read apart), numbered in the function; the n-th is the one whose
    # ``loop`` condition is the n-th in ``guard``.
    loops: tuple[int, ...] = ()


def handed_more_than(effects: Iterable[Effect], name: str, times: int) -> bool:
    """Whether the local ``name`` is handed on (mentioned in a value or an argument) more
    than ``times`` times among ``effects``, the statements that bind it apart: ``h =
    Linear()``, ``self.h = h``, ``self.h2 = h`` hands it on twice."""
    seen = 0
    for eff in effects:
        if eff.kind == "local" and eff.name == name:
            continue
        exprs = [eff.value, *(a.expr for a in eff.args)]
        seen += sum(1 for x in exprs if x is not None and x.mentions(name))
        if seen > times:
            return True
    return False


@_by_fields
@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: ParamKind
    default: Expr | None = None
    has_default: bool = False
    # The classes the annotation names, as written: ``submodules: Subs`` and
    # ``Optional[Subs]``, ``Union[A, B]``, ``A | B`` (their members); () for anything else,
    # and for a parameter of any function but a method ``__init__``.
    annotation: tuple[str, ...] = ()
    # An ``__init__``'s parameter that its body mentions only as the one argument of calls
    # of the same callee, ``self.real = deepcopy(module)``: that callee, dotted as written
    # ("" for any other parameter). What the object keeps of such a value is a copy.
    copied_by: str = ""
    # The attributes of such a parameter the body reads besides, outside tests (``layer.size``
    # in ``nn.LayerNorm(layer.size)``): the parts of the object they may keep.
    copy_reads: tuple[str, ...] = ()
    # A ``*args`` or ``**kwargs`` of a plain function that its body mentions only spread
    # into calls (``Net(*args, **kwargs)``), or reads (``kwargs.get(k)``, ``k in kwargs``):
    # it carries on exactly what the caller gave it.
    spread_only: bool = False
    # A parameter that may stand for a part of the object (``facts.aliases.
    # part_name_candidates``): one handed ``self.lm_head`` does.
    part_name: bool = False


class SourceText:
    """A module's text, shared by the functions whose bodies are read on demand."""

    __slots__ = ("text", "_lines", "fresh")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        # Set when a body was read from this text in this process: the facts now hold more
        # than their cache entry, and the caller may store them again.
        self.fresh = False

    def lines(self) -> list[str]:
        """The lines, without their ends, numbered as the tokenizer numbers them: it reads
        ``\\r\\n`` and a lone ``\\r`` as ``\\n``, and nothing else as a line end."""
        if self._lines is None:
            text = self.text
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            self._lines = text.split("\n")
        return self._lines

    def lines_text(self) -> str:
        """The text with ``\\n`` for every line end, as :meth:`lines` splits it."""
        text = self.text
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def __reduce__(self) -> tuple[type[SourceText], tuple[str]]:
        return SourceText, (self.text,)


@dataclass(frozen=True)
class Body:
    """A function's parameters and effects, read."""

    params: tuple[Param, ...]
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class BodyError:
    """A body read on demand does not parse: the skeleton pass skipped it, and the whole
    text has a syntax error there. ``source`` is the module's text (by identity: the check
    finds the module it belongs to); the position is the whole-text parse's."""

    source: SourceText = field(repr=False)
    msg: str
    line: int
    col: int


class BodySyntaxError(Exception):
    """Raised by ``FunctionFacts.params``/``effects`` for a body that does not parse. Code
    that may meet a body not read yet asks ``FunctionFacts.load`` instead, which returns the
    error as a value; the simulator does, at its boundary (``Simulator.simulate``)."""

    def __init__(self, error: BodyError) -> None:
        super().__init__(error.msg)
        self.error = error
        self.source = error.source
        self.msg = error.msg
        self.line = error.line
        self.col = error.col


# Reads one function's body from its module's text: the parser's ``read_body``, which
# ``initlint.facts.extract`` registers when it is imported (it imports this module;
# importing ``initlint.facts``, as every use of this module does, imports it).
BodyReader = Callable[[SourceText, Span, bool], Body | BodyError]
_BODY_READER: list[BodyReader] = []


def register_body_reader(reader: BodyReader) -> None:
    """Make ``reader`` the one that reads lazily kept bodies (``initlint.facts.extract``)."""
    _BODY_READER[:] = [reader]


class FunctionFacts:
    """One function: name, parameters, decorators and its ordered effects.

    Only ``__init__`` bodies are read by the fact pass. Other functions keep a reference to the
    module's text and read their parameters and effects on first use (most methods,
    ``forward`` and the like, are never reached from a constructor). Either way the result is
    the same pure function of the file's bytes.

    A body that was read is pickled on its own, inside the module's pickle, and unpickled on
    first use: a warm run loads every cached module, but simulates only some constructors.
    ``calls_super_init`` travels outside that blob, for the test every class goes through.
    """

    __slots__ = (
        "name",
        "qualname",
        "span",
        "decorators",
        "_params",
        "_effects",
        "_source",
        "_method",
        "_blob",
        "_super",
    )

    def __init__(
        self,
        name: str,
        qualname: str,
        params: tuple[Param, ...] | None,
        effects: tuple[Effect, ...] | None,
        span: Span,
        decorators: tuple[str, ...] = (),
        *,
        source: SourceText | None = None,
        is_method: bool = False,
        blob: bytes | None = None,
        calls_super: bool | None = None,
    ) -> None:
        read = params is not None and effects is not None
        if not read and source is None and blob is None:
            raise ValueError("a function without params and effects needs its source")
        self.name = name
        self.qualname = qualname
        self.span = span
        self.decorators = decorators
        self._params = params
        self._effects = effects
        self._source = None if read or blob is not None else source
        self._method = is_method
        self._blob = None if read else blob
        self._super = calls_super

    def load(self) -> Body | BodyError:
        """The body: read (and kept) on first use, from the cache entry's pickle or from the
        module's text; a body that does not parse is returned as a ``BodyError`` and stays
        unread (every later load finds the same error)."""
        if self._params is not None and self._effects is not None:
            return Body(self._params, self._effects)
        if self._blob is not None:
            params, effects = pickle.loads(self._blob)
            self._params, self._effects, self._blob = params, effects, None
            return Body(params, effects)
        assert self._source is not None  # (__init__: no params, effects or blob needs it)
        body = _BODY_READER[0](self._source, self.span, self._method)
        if isinstance(body, Body):
            self._params, self._effects = body.params, body.effects
            self._source.fresh = True
        return body

    def read_for_cache(self) -> None:
        """Read a body kept in the module's text now, into the facts a cache entry is about
        to hold (so it does not count as read afresh). A body that does not parse stays
        unread: the check loads it again, and reports it."""
        if self._effects is not None or self._source is None:
            return
        try:
            body = self.load()
        except Exception:  # noqa: BLE001 - a cut that does not match its facts: left unread
            return
        if isinstance(body, Body):
            self._source.fresh = False

    def _strict(self) -> Body:
        body = self.load()
        if isinstance(body, BodyError):
            raise BodySyntaxError(body)
        return body

    @property
    def params(self) -> tuple[Param, ...]:
        """The parameters; raises BodySyntaxError for a body that does not parse (see
        ``load``)."""
        return self._params if self._params is not None else self._strict().params

    @property
    def effects(self) -> tuple[Effect, ...]:
        """The effects; raises BodySyntaxError for a body that does not parse (see ``load``)."""
        return self._effects if self._effects is not None else self._strict().effects

    def super_init_call(self) -> bool | BodyError:
        """Whether the body has a ``super_init`` effect (known without unpickling it), or
        the error of a body that does not parse."""
        if self._super is None:
            body = self.load()
            if isinstance(body, BodyError):
                return body
            self._super = any(e.kind == "super_init" for e in body.effects)
        return self._super

    @property
    def calls_super_init(self) -> bool:
        """``super_init_call`` for a body known to parse; raises BodySyntaxError if not."""
        found = self.super_init_call()
        if isinstance(found, BodyError):
            raise BodySyntaxError(found)
        return found

    def reads_from(self, source: SourceText) -> bool:
        """Whether this function's body, not read yet, is to be read from ``source``."""
        return self._source is source

    @property
    def is_lazy(self) -> bool:
        """True while the body has not been read (or unpickled) yet."""
        return self._effects is None

    @property
    def is_static(self) -> bool:
        return "staticmethod" in self.decorators

    @property
    def is_classmethod(self) -> bool:
        return "classmethod" in self.decorators

    def _key(self) -> tuple[object, ...]:
        return (self.name, self.qualname, self.span, self.decorators, self.params, self.effects)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, FunctionFacts):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.name, self.qualname, self.span))

    def __repr__(self) -> str:
        state = "lazy" if self.is_lazy else f"{len(self.effects)} effects"
        return f"FunctionFacts({self.qualname!r}, {state})"

    def __reduce__(self) -> tuple[object, ...]:
        # A body not read yet travels as the module text (shared by all of the module's
        # functions: pickle's memo stores it once); a read one as its own pickle.
        source, blob = self._source, self._blob
        if self._params is not None and self._effects is not None:
            source = None
            blob = pickle.dumps((self._params, self._effects), protocol=pickle.HIGHEST_PROTOCOL)
            self.calls_super_init  # noqa: B018 - computed now, while the effects are at hand
        return _function, (
            self.name,
            self.qualname,
            self.span,
            self.decorators,
            self._method,
            source,
            blob,
            self._super,
        )


def _function(
    name: str,
    qualname: str,
    span: Span,
    decorators: tuple[str, ...],
    method: bool,
    source: SourceText | None,
    blob: bytes | None,
    calls_super: bool | None,
) -> FunctionFacts:
    return FunctionFacts(
        name,
        qualname,
        None,
        None,
        span,
        decorators,
        source=source,
        is_method=method,
        blob=blob,
        calls_super=calls_super,
    )


@_by_fields
@dataclass(frozen=True, slots=True)
class ClassFacts:
    name: str
    qualname: str  # dotted within the module, e.g. Outer.Inner
    span: Span
    bases: tuple[Expr, ...]
    methods: tuple[FunctionFacts, ...]
    decorators: tuple[str, ...] = ()
    dynamic_bases: bool = False
    attrs: tuple[str, ...] = ()  # names the class body binds other than methods (``x = 1``)
    # The names among them whose last binding in the class body is a plain constant
    # (``build = False``, ``call_super_init: bool = False``), with that constant: what
    # ``self.<name>`` gives while nothing has set it on the instance.
    consts: tuple[tuple[str, Const], ...] = ()
    # Defined at module level where an import of its name failed or could not run (an
    # ``except`` handler, or the ``else`` of an ``if`` that imports it): a stand-in
    # (``ImportFacts.fallback``).
    fallback: bool = False
    # The metaclass its statement names (``metaclass=Meta``), dotted as written.
    metaclass: str = ""

    def method(self, name: str) -> FunctionFacts | None:
        found = None
        for m in self.methods:
            if m.name == name:
                found = m  # the last definition wins, as at runtime
        return found


@_by_fields
@dataclass(frozen=True, slots=True)
class ImportFacts:
    """``import a.b as c``: local c, module a.b. ``import a.b``: local a, module a.b, bind_top.

    ``from .x import Y as Z``: local Z, module x, name Y, level 1. Star: name ``*``.
    """

    local: str
    module: str
    name: str | None = None
    level: int = 0
    bind_top: bool = False
    line: int = 0
    # Bound in an ``except`` handler: the fallback Python takes only when the ``try`` block's
    # binding of the same name failed (``try: from fast import A`` / ``except ImportError:
    # from slow import A``); or in the ``else`` of an ``if`` whose body imports the name, the
    # stand-in for where that import cannot run (``if torch_available: from torch.nn import
    # Module`` / ``else: from .dummy import Dummy as Module``).
    fallback: bool = False


def import_of(eff: Effect) -> ImportFacts:
    """The ``import`` effect ``eff`` (an import inside a function) as the import it is."""
    module = eff.target.lstrip(".")
    level = len(eff.target) - len(module)
    if not eff.detail:  # ``import a.b as c`` (or ``import a``)
        return ImportFacts(eff.name, module, line=eff.span.line)
    return ImportFacts(eff.name, module, eff.detail, level, line=eff.span.line)


@_by_fields
@dataclass(frozen=True, slots=True)
class AliasFacts:
    """``Base = other.Name`` at module level, in code that runs (not under ``if
    TYPE_CHECKING:``): ``local`` is bound to what the dotted name ``target`` is bound to on
    ``line`` (a base class chosen for run time: ``else: _Base = LlamaDecoderLayer``)."""

    local: str
    target: str
    line: int
    # Bound in an ``except`` handler (``except ImportError: Base = BaseModule``), or the
    # ``else`` of an ``if`` that imports it: taken only where that import is not resolved
    # (``ImportFacts.fallback``).
    fallback: bool = False


@_by_fields
@dataclass(frozen=True, slots=True)
class TableFacts:
    """``MODELS = {"small": Small, "big": Big}`` (or a tuple or list of names) at module
    level: a table of classes or functions written out, ``values`` their dotted names as
    written. Kept only when the module binds the name once and its text never changes the
    table (an item stored, ``update``, ``register``...): a registry filled elsewhere in the
    module is no table written out."""

    name: str
    values: tuple[str, ...]
    line: int


@_by_fields
@dataclass(frozen=True, slots=True)
class FieldValueFacts:
    """``Holder(..., field=Name, ...)`` somewhere in the module's text (a function body
    included): ``callee`` and ``value`` are dotted names as written, the value's last part
    capitalised (a class, by Python's naming convention). What the project gives a spec
    object's field (``facts/field_values.py``); the index joins them (``field_classes``)."""

    callee: str
    field: str
    value: str
    line: int


@_by_fields
@dataclass(frozen=True, slots=True)
class ModuleFacts:
    imports: tuple[ImportFacts, ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    functions: tuple[FunctionFacts, ...] = ()
    # Other top-level names bound by assignment (for re-export lookups).
    names: frozenset[str] = field(default_factory=frozenset)
    error: str | None = None  # a syntax error: "message" ; error_line below
    error_line: int = 0
    error_col: int = 0
    # (line, comment) of initlint's own suppression comments (initlint.suppressions)
    suppressions: tuple[tuple[int, str], ...] = ()
    # ``Name = dotted.name`` bindings that run (what a later class statement's base may be).
    aliases: tuple[AliasFacts, ...] = ()
    # Names of classes given to a constructor's keyword (``facts/field_values.py``).
    field_values: tuple[FieldValueFacts, ...] = ()
    # Tables of classes or functions written out at module level.
    tables: tuple[TableFacts, ...] = ()
    # Attribute names the module may store on something other than ``self`` (a class
    # attribute changed outside its class body: ``module_reader.foreign_stores``).
    foreign_stores: frozenset[str] = field(default_factory=frozenset)


def has_fresh_bodies(facts: ModuleFacts) -> bool:
    """True when this process read a function body of ``facts`` that was not read before."""
    for fn in (*facts.functions, *(m for c in facts.classes for m in c.methods)):
        if fn._source is not None and fn._source.fresh:
            return True
    return False

"""Argument binding in a run: the constructed class's own parameters (``bind_top``), a
call's arguments bound to the callee's parameters as values (``bind_call``) and as value
keys of what they held in the caller's frame (``bind_keys``, which IL002 compares), both
through the one binder, ``binding.bind_args``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from initlint.facts.model import Arg, Expr, Param
from initlint.index.records import Module
from initlint.simulation.binding import (
    DEFAULTED,
    SYM,
    Key,
    bind_args,
    default_key,
    expr_key,
    fits,
)
from initlint.simulation.expressions import ExpressionEval
from initlint.simulation.run_state import Frame
from initlint.simulation.values import OPEN_ARGS, OPEN_KWARGS, UNKNOWN, Val, const

_T = TypeVar("_T")  # what a call's arguments are split into: Vals or value keys


class ArgumentBinding(ExpressionEval):
    """Binding a call's arguments to the callee's parameters, as values and as value keys."""

    # -- binding ---------------------------------------------------------------------------
    def bind_top(
        self, params: tuple[Param, ...], module: Module, at_defaults: bool = False
    ) -> dict[str, Val]:
        """The constructed class's own parameters come from callers initlint does not see:
        every one is unknown, a default included (docs/design.md, "Guards"), so a guard on one is
        a "possibly" rather than dead code. Ancestors' defaults still count (bind_call). A
        default that names a class (``attn_cls=Attention``) is what the argument possibly
        is: what calling it builds is a "possibly" too. With ``at_defaults`` (the class a
        report is about, not an object another builds with arguments of its own), a
        default that is a number sizes what the argument sizes (``Val.default``)."""
        env: dict[str, Val] = {}
        for i, p in enumerate(params):
            if i == 0 and p.kind in ("pos", "posonly"):
                continue  # self
            if p.kind == "vararg":
                env[p.name] = OPEN_ARGS
            elif p.kind == "kwarg":
                env[p.name] = replace(OPEN_KWARGS, absent=_named(params))
            else:
                ref = self.class_ref(module, p.default) if p.default is not None else None
                number = size_default(p) if at_defaults else None
                env[p.name] = Val(
                    "unknown", sym=p.name, ref=ref, maybe_ref=ref is not None, default=number
                )
                if p.annotation:
                    self.own_types[p.name] = (module, p.annotation)
        return env

    def bind_defaults(
        self, env: dict[str, Val], params: tuple[Param, ...], names: frozenset[str], module: Module
    ) -> None:
        """The parameters in ``names``, which a caller initlint sees left out, take their
        defaults in ``env`` (``bind_top`` leaves every one unknown)."""
        for p in params:
            if p.name in names and p.default is not None:
                env[p.name] = self._default(module, p)

    def _default(self, module: Module | None, p: Param) -> Val:
        """What a parameter left out holds: its default (a constant, or a class it names,
        resolved in the callee's ``module``); unknown otherwise, or without a default."""
        d = p.default
        if d is not None and d.kind == "const":
            return const(d.value)
        if d is not None and module is not None:
            ref = self.class_ref(module, d)
            if ref is not None:
                return Val("unknown", ref=ref)  # ``attn_cls=Attention``: that class
        return UNKNOWN

    def _open_default(self, context: tuple[Module | None, frozenset[str], bool], p: Param) -> Val:
        """What a parameter left out holds when an open ``**kw`` pack was passed: for one a
        keyword can name, any value (``_weight=`` in the pack); its default when the pack
        does not name it, which value keys remember (``_val_key``). A pack filled with keys
        not followed (``Val.filled``) gives a value of its own: unknown."""
        module, absent, filled = context
        d = p.default
        if d is None or not _pack_may_name(p, absent):
            return self._default(module, p)
        if filled:
            return UNKNOWN
        if d.kind == "const":
            return Val("unknown", d.value, sym=DEFAULTED + p.name)
        ref = self.class_ref(module, d) if module is not None else None
        # (``embed_layer=PatchEmbed``: possibly that class, unless the pack gives another)
        return UNKNOWN if ref is None else Val("unknown", ref=ref, maybe_ref=True)

    def _spread(
        self,
        frame: Frame,
        args: tuple[Arg, ...],
        plain: Callable[[Arg], _T],
        item: Callable[[Val], _T],
        conflicts: bool,
    ) -> tuple[list[_T], dict[str, _T], bool, bool, bool, frozenset[str]] | None:
        """A call's arguments split as Python passes them, for ``bind_args``: positional and
        keyword values (``plain`` of a written argument, ``item`` of a ``*``/``**`` pack's
        item), whether a ``*`` or ``**`` pack of unknown length is open, whether an open
        ``**`` pack was filled with keys not followed (``Val.filled``), and the keywords no
        open ``**`` pack holds (``Val.absent``). A keyword given
        twice (a TypeError at runtime) keeps the first ``**`` item or the last written one,
        and is counted in ``Simulation.conflicts`` when ``conflicts`` (``bind_call`` counts).
        None for an argument initlint cannot split (``star == -1``)."""
        positional: list[_T] = []
        keywords: dict[str, _T] = {}
        open_tail = open_kw = filled = False
        absent: set[str] | None = None
        for a in args:
            if a.star == -1:
                return None
            if a.star == 1:
                v = self.eval_arg(frame, a.expr, a)
                if v.kind == "args":
                    positional.extend(item(x) for x in v.items)
                    open_tail = open_tail or v.open
                else:
                    open_tail = True
            elif a.star == 2:
                v = self.eval_arg(frame, a.expr, a)
                if v.kind == "kwargs":
                    for key, kv in v.keys:
                        if key not in keywords:
                            keywords[key] = item(kv)
                        elif conflicts:
                            self.sim.conflicts += 1
                    open_kw = open_kw or v.open
                    filled = filled or (v.open and v.filled)
                    if v.open:  # (a name is surely not given when no open pack holds it)
                        held = set(v.absent)
                        absent = held if absent is None else absent & held
                else:
                    open_kw = filled = True  # (a pack of keys not followed)
                    absent = set()
            elif a.keyword is None:
                positional.append(plain(a))
            else:
                if conflicts and a.keyword in keywords:
                    self.sim.conflicts += 1
                keywords[a.keyword] = plain(a)
        return positional, keywords, open_tail, open_kw, filled, frozenset(absent or ())

    def bind_call(
        self,
        frame: Frame,
        args: tuple[Arg, ...],
        params: tuple[Param, ...],
        skip_self: bool,
        module: Module | None = None,
    ) -> dict[str, Val] | None:
        """The callee's parameters bound to ``args`` as evaluated in ``frame`` (by the one
        binder, ``binding.bind_args``); a parameter left out takes its default, a class it
        names resolved in the callee's ``module``."""
        spread = self._spread(frame, args, lambda a: self.eval_arg(frame, a.expr, a), _as_is, True)
        if spread is None:
            return None
        positional, keywords, open_tail, open_kw, filled, absent = spread
        params = without_self(params, skip_self)

        # A parameter left out takes its default, or is unknown (an open *args pack supplies
        # the required positionals only, docs/design.md, "The init simulation"; an open **kw
        # pack may supply any parameter a keyword can name).
        if open_kw:
            context = (module, absent, filled)
            bound = bind_args(positional, keywords, params, self._open_default, context)
        else:
            bound = bind_args(positional, keywords, params, self._default, module)
        env, _, star, extra, kw, extra_kw = bound
        if star:
            env[star] = Val("args", items=tuple(extra), open=open_tail)
        if kw:
            named = _named(params)
            env[kw] = Val(
                "kwargs", keys=tuple(extra_kw.items()), open=open_kw, absent=named, filled=filled
            )
        return env

    def refused(
        self, frame: Frame, args: tuple[Arg, ...], params: tuple[Param, ...], skip_self: bool
    ) -> bool:
        """Whether Python surely refuses the call (``binding.fits``): a required parameter
        left out, a surplus positional or an unknown keyword, with no ``*``/``**`` pack of
        unknown length passed that might make up for it, nor one changed in ways not followed
        (``kw.update(...)``, ``kw.clear()``: ``Val.filled``)."""
        for a in args:
            if a.star == 2 and self.eval_arg(frame, a.expr, a).filled:
                return False
        spread = self._spread(frame, args, _nothing, _nothing, False)
        if spread is None:
            return False
        positional, keywords, open_tail, open_kw, _, _ = spread
        if open_tail or open_kw:
            return False
        bound = bind_args(positional, keywords, without_self(params, skip_self), _nothing, None)
        return not fits(bound)

    def bind_keys(
        self, frame: Frame, args: tuple[Arg, ...], params: tuple[Param, ...], skip_self: bool
    ) -> dict[str, Key | None] | None:
        """The callee's parameters bound to ``args`` as ``bind_call`` binds them (the same
        binder), each as the value key of what its argument holds in ``frame`` (``_arg_key``;
        an item of a ``*``/``**`` pack by its value); None when ``bind_call`` binds none."""
        spread = self._spread(frame, args, lambda a: self._arg_key(frame, a.expr), _val_key, False)
        if spread is None:
            return None
        positional, keywords, open_tail, open_kw, _, absent = spread
        params = without_self(params, skip_self)
        left_out: Callable[[frozenset[str], Param], Key | None]
        left_out = _open_left_out_key if open_kw else _left_out_key
        bound = bind_args(positional, keywords, params, left_out, absent)
        keys, _, star, extra, kw, extra_kw = bound
        if star:
            keys[star] = None if open_tail else _pack_key("*", extra)
        if kw:
            items = sorted(extra_kw.items())
            packed = [None if v is None else ("kw", k, v) for k, v in items]
            keys[kw] = None if open_kw else _pack_key("**", packed)
        return keys

    def _frame_keys(self, frame: Frame) -> dict[str, Key | None] | None:
        """The value keys of ``frame``'s parameters, bound on first use: the caller's frame
        waits, unchanged, while this one runs. None for the constructed class's own frame (and
        one whose arguments were not kept): its values say."""
        call = frame.call
        if call.keys is None and call.key_args is not None:
            call.keys = self.bind_keys(*call.key_args)
            call.key_args = None
        return call.keys

    def _arg_key(self, frame: Frame, e: Expr) -> Key | None:
        """The value key of an argument ``e`` as ``frame`` holds it (``binding.expr_key``,
        exact): a parameter by its caller's argument, a local by the expression it was last
        bound to (None if bound under an undecided guard or changed in place since), any
        other name as a global. IL002 compares repeated calls by these keys."""
        visiting: set[str] = set()
        params = frame.body.params
        me = params[0].name if params and not frame.call.fn.facts.is_static else ""
        keys = self._frame_keys(frame)

        def name_key(name: str) -> Key | None:
            if name in frame.changed:
                return None
            if name in frame.local_values:  # a local: the value it was bound to
                value = frame.local_values[name]
                if value is None or name in visiting:
                    return None
                visiting.add(name)
                try:
                    return expr_key(value, name_key, me, exact=True)
                finally:
                    visiting.discard(name)
            if keys is not None and name in keys:
                return keys[name]
            v = frame.call.env.get(name)
            if v is None:
                return ("g", name)  # a global or builtin of the module
            return _val_key(v)

        return expr_key(e, name_key, me, exact=True)


def _nothing(*_: object) -> None:
    """No value: ``refused`` asks only how the arguments bind."""


def _as_is(v: Val) -> Val:
    """An item of a ``*``/``**`` pack as ``bind_call`` binds it: the value itself."""
    return v


def _val_key(v: Val) -> Key | None:
    """The value key of a value the simulation holds (an argument unpacked from a pack, a
    name bound in the frame): a constant by its value, the constructed class's argument by
    its name; None for any other (not known)."""
    if v.kind == "const":
        return ("c", repr(v.value))
    if v.kind == "unknown" and v.sym.startswith(DEFAULTED):
        return (SYM, (DEFAULTED, ("c", repr(v.value))))  # (``_open_default``)
    if v.kind == "unknown" and v.sym:
        return (SYM, v.sym)
    return None


def _left_out_key(_: object, p: Param) -> Key | None:
    """The key of a parameter left out (``bind_keys``): its default's; None without one."""
    return default_key(p.default) if p.has_default else None


# The kinds of parameter a keyword can name.
_BY_KEYWORD = ("pos", "kwonly")


def _named(params: Sequence[Param]) -> tuple[str, ...]:
    """The parameters a keyword can name: an open ``**kw`` pack of this function never
    holds them (the keywords bind to them)."""
    return tuple(p.name for p in params if p.kind in _BY_KEYWORD)


def _pack_may_name(p: Param, absent: frozenset[str]) -> bool:
    """Whether an open ``**kw`` pack may give ``p``: a keyword can name it, and the pack is
    not known to lack it (``absent``)."""
    return p.kind in _BY_KEYWORD and p.name not in absent


def _open_left_out_key(absent: frozenset[str], p: Param) -> Key | None:
    """The key of a parameter left out beside an open ``**kw`` pack: for one a keyword can
    name, what a caller may pass through the pack, its default when none does (as an
    argument of the constructed class is); else its default's."""
    default = _left_out_key(None, p)
    if default is None or not _pack_may_name(p, absent):
        return default
    return (SYM, (DEFAULTED, default))


def _pack_key(tag: str, items: Sequence[Key | None]) -> Key | None:
    """The key of what ``*args`` (``tag`` "*") or ``**kw`` ("**") takes; None if a part is
    not known."""
    if any(k is None for k in items):
        return None
    return (tag, *items)


def call_args(call: Expr) -> tuple[Arg, ...] | None:
    """A call Expr's arguments as Args (positional, keyword, ``**kw``); None when one is
    a starred positional (``f(*xs)``: the Expr does not say which)."""
    if call.keywords[:1] == ("*",):
        return None
    npos = call.value if isinstance(call.value, int) else len(call.children)
    args = [Arg(c, "") for c in call.children[:npos]]
    args += [
        Arg(v, "", keyword=k or None, star=0 if k else 2)
        for k, v in zip(call.keywords, call.children[npos:], strict=True)
    ]
    return tuple(args)


def without_self(params: tuple[Param, ...], skip_self: bool = True) -> tuple[Param, ...]:
    """A method's parameters past the object's own (``self``), when ``skip_self`` and the
    first one takes a positional argument."""
    if skip_self and params and params[0].kind in ("pos", "posonly"):
        return params[1:]
    return params


def param_of(params: Sequence[Param], args: Sequence[Arg], at: int) -> Param | None:
    """The parameter of ``params`` (``self`` left out) that argument number ``at`` of
    ``args`` binds to: a keyword's by its name, a positional one's by its place; None after
    a ``*args`` (its place is not known), or where no parameter takes it."""
    arg = args[at]
    if arg.keyword is not None:  # (by its name, whatever ``**kw`` passes beside it)
        return param_at(params, -1, arg.keyword)
    if any(a.star == 1 for a in args[:at]):
        return None
    return param_at(params, at, "")


def param_at(params: Sequence[Param], place: int, keyword: str) -> Param | None:
    """The parameter of ``params`` (``self`` left out) an argument passed as ``keyword``
    binds to, or for "" the one at ``place`` among the positional ones; None where none
    takes it."""
    if keyword:
        return next((p for p in params if p.name == keyword and p.kind != "posonly"), None)
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    return positional[place] if 0 <= place < len(positional) else None


def kwarg_name(params: tuple[Param, ...]) -> str:
    """The name of the ``**`` parameter among ``params``; "" when there is none."""
    return next((p.name for p in params if p.kind == "kwarg"), "")


def size_default(p: Param) -> int | None:
    """The default of ``p`` when it is a whole number written in the code (not a bool)."""
    d = p.default
    if d is None or d.kind != "const" or isinstance(d.value, bool):
        return None
    return d.value if isinstance(d.value, int) and d.value >= 0 else None

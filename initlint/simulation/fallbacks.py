"""Objects built as an argument that the call may not use (``self.proj = default(proj,
nn.Linear(d, d))``, ``kwargs.get("norm", nn.LayerNorm(d))``): Python evaluates every
argument before the call, so a fallback is built whether or not the call picks it, and it
is thrown away whenever the call returns the other value. A ``fallback`` event records it."""

from __future__ import annotations

import builtins

from initlint.facts.model import Body, BodyError, Expr
from initlint.simulation.arguments import call_args, param_of
from initlint.simulation.levels import LIGHT, UNKNOWN
from initlint.simulation.local_builds import LocalEffects, mentioned_only_at
from initlint.simulation.records import built_by, unmoved
from initlint.simulation.run_state import EffectContext, Frame
from initlint.simulation.torch_knowledge import positional_values
from initlint.simulation.values import FALSE, MAYBE, TRUE


class FallbackEffects(LocalEffects):
    """Following the fallbacks a frame builds for calls that pick one of their arguments."""

    def note_fallbacks(self, frame: Frame, ctx: EffectContext) -> BodyError | None:
        """Each object the effect's value builds as a fallback that a call may not pick: a
        ``fallback`` event naming the call (``name``), the value picked instead
        (``args_key``) and the build (``constructs``), priced as the build."""
        eff = ctx.effect
        if ctx.shadow or ctx.status == FALSE or frame.call.ancestor or eff.value is None:
            return None
        for call in eff.value.nodes():
            if call.kind != "call" or not any(c.kind in ("call", "name") for c in call.children):
                continue  # (no argument is built: nothing to throw away)
            found = self._fallback(frame, ctx, call)
            if found is None:
                continue
            picker, given, build, status = found
            cost = self.value_cost(frame, build)
            if isinstance(cost, BodyError):
                return cost
            if cost <= LIGHT or (cost == UNKNOWN and self._builtin(frame, build)):
                continue  # (a parameterless module, a plain object, a read: nothing of weight)
            status = ctx.status if status == TRUE else MAYBE
            ev = self.emit(
                frame, ctx.effect_index, eff, "fallback", picker, status, ctx.flags, (), cost=cost
            )
            ev.args_key = given
            ev.constructs = f"{build.name}(...)"
        return None

    def _builtin(self, frame: Frame, call: Expr) -> bool:
        """Whether ``call`` calls one of Python's builtins (``getattr(cfg, "theta", 1.0)``),
        not shadowed in its module: they read or convert, and build nothing of weight where
        initlint does not price them heavy (``open`` is)."""
        if not call.name or "." in call.name or not hasattr(builtins, call.name):
            return False
        return self.simulator.index.resolve(frame.call.fn.module, call.name) is None

    def _fallback(
        self, frame: Frame, ctx: EffectContext, call: Expr
    ) -> tuple[str, str, Expr, str] | None:
        """For a call that may return another value than the one built in its arguments:
        the call's name, what it returns instead, the build, and whether it surely does
        (TRUE) or may (MAYBE); None for any other call."""
        # (a build moved or cast by a module method that returns it, ``nn.Tanh().to(d)``,
        # is that build)
        given = tuple(unmoved(g) or g for g in positional_values(call))
        if call.name == "getattr" and len(call.children) == 3 and len(given) == 3:
            if given[2].kind == "call" and given[2].name:  # (``getattr(c, "n", Norm(d))``)
                return "getattr", "the attribute", given[2], MAYBE
            return None
        if call.attr == "get" and call.receiver is not None and len(call.children) == 2:
            if len(given) == 2 and given[1].kind == "call" and given[1].name:  # (``m.get(k, B())``)
                held = call.receiver.name or "the mapping"
                return f"{held}.get", "the key's value", given[1], MAYBE
            return None
        fn = self.plain_function(frame, call)
        if fn is None:
            return None
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return None
        picked = picked_params(body)
        args = call_args(call)
        if not picked or args is None:
            return None
        bound: dict[str, Expr] = {}
        for i, arg in enumerate(args):
            p = param_of(body.params, args, i)
            if p is not None and p.name in picked:
                bound[p.name] = arg.expr
        for name, given_expr in bound.items():
            build = (
                self._built_for(frame, ctx, given_expr)
                if given_expr.kind == "name"
                else unmoved(given_expr)
            )
            if build is None or build.kind != "call" or not build.name:
                continue
            others = [(n, v) for n, v in bound.items() if n != name]
            status = self._other_given(frame, [v for _, v in others])
            if status is not None and others:
                return call.name, _text(others[0][1]), build, status
        return None

    def _built_for(self, frame: Frame, ctx: EffectContext, name: Expr) -> Expr | None:
        """The call that built the local ``name`` on every path, when the frame mentions it
        only in the statement of ``ctx`` (``proj = nn.Linear(d, d)``, then ``self.proj =
        default(proj_given, proj)``): built for that call alone. Not what that statement
        binds it to (``size = default(size, n)`` rebinds the parameter the call is given)."""
        held = frame.built.get(name.name)
        if (
            held is None
            or held.event.status != TRUE
            or (held.event.frame == frame.id and held.event.effect.stmt == ctx.effect.stmt)
            or not mentioned_only_at(frame, ctx, name.name)
        ):
            return None
        return built_by(held.event)

    def _other_given(self, frame: Frame, others: list[Expr]) -> str | None:
        """Whether a value the call picks instead of the build is surely given (TRUE:
        something built or a constant other than None), may be (MAYBE: a value not known
        here), or never is (None: each is None)."""
        status = None
        for e in others:
            if e.kind == "call":
                return TRUE
            v = self.eval_arg(frame, e, None)
            if v.kind == "const":
                if v.value is not None:
                    return TRUE
                continue
            status = MAYBE
        return status


def picked_params(body: Body) -> frozenset[str]:
    """The parameters of a function that returns one of its arguments, as it picks
    (``def default(val, d): return val if exists(val) else d``; ``d()`` for a ``d`` it calls
    counts as ``d``): the ones it may return, when there are two or more and every
    ``return`` gives one of them (or None). Empty for any other function, and for one that
    does anything but return."""
    names = {p.name for p in body.params if p.kind in ("posonly", "pos", "kwonly")}
    picked: set[str] = set()
    returns = 0
    for e in body.effects:
        if e.kind in ("touch", "local_use"):
            continue
        if e.kind != "return" or e.value is None:
            return frozenset()
        got = _picks(e.value, names)
        if got is None:
            return frozenset()
        picked |= got
        returns += 1
    return frozenset(picked) if len(picked) > 1 and returns else frozenset()


def _picks(value: Expr, names: set[str]) -> set[str] | None:
    """The parameters a returned value may be: a parameter, a call of one with no
    arguments, None, or ``a if test else b`` of these; None for anything else."""
    if value.kind == "name" and value.name in names:
        return {value.name}
    if value.kind == "const" and value.value is None and not value.name:
        return set()
    if value.kind == "call" and value.name in names and not value.children:
        return {value.name}
    if value.kind == "op" and value.name == "if" and len(value.children) == 3:
        first, second = _picks(value.children[1], names), _picks(value.children[2], names)
        return None if first is None or second is None else first | second
    return None


def _text(e: Expr) -> str:
    """A short name for a value in messages: its dotted name, else "the other argument"."""
    return f"`{e.name}`" if e.kind in ("name", "attr") and e.name else "the other argument"

"""Expression evaluation in a frame: the value an argument or a name holds (``eval_arg``,
``dotted_value``), a class given by name (``class_ref``), what evaluating an expression costs
(``value_cost``), and the ``self`` attributes it reads (``self_reads``, ``fed_reads``)."""

from __future__ import annotations

from initlint.facts.model import Arg, Expr
from initlint.index.records import Module
from initlint.simulation.folding import compare
from initlint.simulation.levels import Priced
from initlint.simulation.run_state import Frame, RunState
from initlint.simulation.torch_knowledge import (
    Bound,
    unshadowed,
    whole_value,
    written_bound,
    written_only,
)
from initlint.simulation.values import UNKNOWN, Origin, Val, const


class ExpressionEval(RunState):
    """What expressions evaluate to in a frame of the run, what they cost and read."""

    def class_ref(self, module: Module, expr: Expr) -> tuple[str, str] | None:
        """Where a value given by a name (``Attention``, ``nn.LayerNorm``) was written: the
        module and the name, resolved only when the value is called (``Val.ref``). A
        ``functools.partial`` of a name (``partial(nn.LayerNorm, eps=1e-6)``) is that name:
        calling it builds what the name is bound to (its fixed arguments aside, as a class
        given by name is priced without the arguments it will get)."""
        fixed = self.simulator.index.partial_args(module, expr)
        if fixed is not None:
            expr = fixed[0]
        if expr.kind not in ("name", "attr") or not expr.name:
            return None
        return module.name, expr.name

    def eval_arg(self, frame: Frame, expr: Expr, arg: Arg | None) -> Val:
        if expr.kind == "const":
            origin = None
            if arg is not None and arg.span is not None:
                origin = Origin(
                    frame.id,
                    frame.call.fn.qualname,
                    frame.call.fn.module.path,
                    arg.span,
                    arg.keyword,
                    arg.text,
                )
            return Val("const", expr.value, origin=origin)
        if expr.kind == "name":
            found = frame.call.env.get(expr.name)
            if found is not None:
                return found
            ref = self.class_ref(frame.call.fn.module, expr)  # a class passed by name
            return UNKNOWN if ref is None else Val("unknown", ref=ref)
        if expr.kind == "op" and expr.name in ("not", "bool") and expr.attr:
            positive, cur = True, expr
            while cur.kind == "op" and cur.name in ("not", "bool") and cur.attr and cur.children:
                positive = positive if cur.name == "bool" else not positive
                text, cur = cur.attr, cur.children[0]
            inner = self.eval_arg(frame, cur, None)
            if inner.kind == "const":
                return const(bool(inner.value) == positive)
            if inner.kind == "sym":
                return Val("sym", inner.value, positive=inner.positive == positive)
            return Val("sym", f"{frame.id}:{text}", positive=positive)
        if expr.kind == "op" and (expr.name == "test" or expr.attr in ("and", "or")):
            return self._test_value(frame, expr)
        if expr.kind == "attr" and expr.receiver is not None and expr.receiver.name == "self":
            return self.self_attrs.get(expr.attr, UNKNOWN)
        if expr.kind == "attr" and expr.name:
            head = expr.name.partition(".")[0]
            if head != "self" and head not in frame.call.env:  # ``nn.LayerNorm``
                ref = self.class_ref(frame.call.fn.module, expr)
                if ref is not None:
                    return Val("unknown", ref=ref)
            return self.dotted_value(frame, expr.name)
        return UNKNOWN

    def _test_value(self, frame: Frame, expr: Expr) -> Val:
        """A test's truth where its operands are known (``transform is not None`` with
        ``transform`` None: False; ``a or b`` as Python picks the operand); unknown
        otherwise."""
        if expr.name == "test":
            if len(expr.children) != 2:
                return UNKNOWN
            left, right = (self.eval_arg(frame, c, None) for c in expr.children)
            if left.kind != "const" or right.kind != "const":
                return UNKNOWN
            same = compare(expr.attr, left.value, right.value)
            return UNKNOWN if same is None else const(same)
        for child in expr.children:  # (``and``: the first false operand, else the last)
            value = self.eval_arg(frame, child, None)
            if value.kind != "const":
                return UNKNOWN
            if bool(value.value) == (expr.attr == "or") or child is expr.children[-1]:
                return value
        return UNKNOWN

    def dotted_value(self, frame: Frame, dotted: str) -> Val:
        """``config.q_lora_rank``: unknown, named after the argument it was read from."""
        head, _, rest = dotted.partition(".")
        base = self.self_attrs.get(rest.partition(".")[0]) if head == "self" else None
        if head == "self":
            rest = rest.partition(".")[2]
        else:
            base = frame.call.env.get(head)
        if base is None or not rest:
            return UNKNOWN
        set_here = base.field(rest)
        if set_here is not None:
            return set_here
        if not base.sym:
            return UNKNOWN
        return Val("unknown", sym=f"{base.sym}.{rest}")

    def value_cost(self, frame: Frame, value: Expr | None) -> Priced:
        """What evaluating ``value`` in ``frame`` costs: its locals, the object's attributes
        and the arguments the frame was called with, and the attributes it set to numbers
        written in the code (``written_bound``)."""
        return self.simulator.cost.expr_cost(
            value,
            frame.call.fn.module,
            self.sim.mro,
            frame.local_cost,
            self.attr_cost,
            unshadowed(value, self.value_bound(frame)),
        )

    def value_bound(self, frame: Frame) -> Bound:
        """What the names a value in ``frame`` reads hold: its locals and arguments, and the
        object's attributes set to numbers written in the code (``written_bound``)."""
        bound: Bound = frame.call.env
        if self.written_attrs:
            bound = {**bound, **written_bound(self.self_attrs, self.written_attrs)}
        return bound

    def sizes_read(self, frame: Frame, value: Expr | None) -> tuple[tuple[str, int], ...]:
        """The names ``value`` reads (``n``, ``self.dim``) that hold a whole number in
        ``frame`` as a size reads it (``written_only``): what a call in it gives the object
        it builds."""
        if value is None:
            return ()
        bound = written_only(unshadowed(value, self.value_bound(frame)))
        if not bound:
            return ()
        out: dict[str, int] = {}
        for e in value.nodes():
            if e.kind == "name" or (e.kind == "attr" and e.name.startswith("self.")):
                n = whole_value(e, bound)
                if n is not None:
                    out[e.name] = n
        return tuple(sorted(out.items()))

    def self_reads(self, frame: Frame, value: Expr | None) -> frozenset[str]:
        """The ``self`` attributes ``value`` reads, directly or through the frame's locals."""
        if value is None:
            return frozenset()
        out: set[str] = set()
        stack = [value]
        while stack:
            cur = stack.pop()
            recv = cur.receiver
            if cur.kind == "attr" and recv is not None and recv.kind == "name":
                if recv.name == "self":
                    out.add(cur.attr)
                    continue
            if (
                cur.kind == "attr"
                and cur.attr != "data"
                and recv is not None
                and recv.kind == "attr"
                and recv.receiver is not None
                and recv.receiver.name == "self"
            ):
                continue  # self.backbone.config: a field of the value, not the value
            if cur.kind == "name":
                out.update(frame.local_reads.get(cur.name, ()))
                continue
            if cur.receiver is not None:
                stack.append(cur.receiver)
            stack.extend(cur.children)
        return frozenset(out)

    def field_reads(self, value: Expr | None) -> frozenset[str]:
        """The ``self`` attributes whose fields ``value`` reads (``self.spec.channels``)."""
        out: set[str] = set()
        stack = [value] if value is not None else []
        while stack:
            cur = stack.pop()
            recv = cur.receiver
            if (
                cur.kind == "attr"
                and recv is not None
                and recv.kind == "attr"
                and recv.receiver is not None
                and recv.receiver.kind == "name"
                and recv.receiver.name == "self"
            ):
                out.add(recv.attr)
                continue
            if recv is not None:
                stack.append(recv)
            stack.extend(cur.children)
        return frozenset(out)

    def fed_reads(self, frame: Frame, i: int) -> frozenset[str]:
        """What the values returned by the ``self`` method calls feeding effect ``i`` read
        (``inv = self._scaled(f)``, where ``_scaled`` returns ``self.inv_freq / f``)."""
        out: frozenset[str] = frozenset()
        for c in frame.fed[i]:
            out |= self.return_reads.get(c, frozenset())
        return out

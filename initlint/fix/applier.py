"""The fix ops applied to a libcst tree (``OpApplier``): a keyword set in a call, a parameter
added to a def, statements inserted, deleted or put under a new ``if`` in their block."""

from __future__ import annotations

import ast
import bisect
import textwrap
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from initlint.fix.layout import (
    header_width,
    line_break,
    line_limit,
    max_width,
    one_param_a_line,
    with_appended,
    wrap_calls_to_fit,
)
from initlint.fixplan import AddParam, DeleteStatement, InsertBefore, Op, SetKeyword, WrapInIf

# The ops that target a statement in its block (the others target a call or a def).
STATEMENT_OPS = (InsertBefore, DeleteStatement, WrapInIf)


def _char_col(lines: Sequence[str], line: int, byte_col: int) -> int:
    """The character column of UTF-8 byte column ``byte_col`` on 1-based ``line`` (an op's
    column is ``ast``'s, in bytes; libcst's positions count characters)."""
    if 1 <= line <= len(lines):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col


def _stmt_names(module: cst.Module, stmt: cst.CSTNode) -> tuple[set[str], set[str], set[str]]:
    """(locals stored, names loaded, self attributes loaded) of one statement."""
    code = textwrap.dedent(module.code_for_node(stmt))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set(), set()
    stored: set[str] = set()
    loaded: set[str] = set()
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            attrs.add(node.attr)
    return stored, loaded, attrs


def _binds_locals_only(module: cst.Module, stmt: cst.CSTNode) -> bool:
    """An ``if`` whose branches only bind locals (``if encoder is None: encoder = Enc()``),
    under tests that call nothing and bind nothing, the object not mentioned: it computes
    what a guarded statement after it reads, as a plain assignment does."""
    if not isinstance(stmt, cst.If):
        return False
    try:
        tree = ast.parse(textwrap.dedent(module.code_for_node(stmt)))
    except SyntaxError:
        return False
    if any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(tree)):
        return False
    return all(_binds_only(node) for node in tree.body)


def _binds_only(node: ast.stmt) -> bool:
    if isinstance(node, ast.If):
        if any(isinstance(n, ast.Call | ast.NamedExpr) for n in ast.walk(node.test)):
            return False  # (a test with effects of its own runs on every path)
        return all(_binds_only(n) for n in (*node.body, *node.orelse))
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) for t in targets)
    return False


class OpApplier(cst.CSTTransformer):
    """Applies its ops where a visit meets their targets; ``pending``: those not met yet."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, lines: Sequence[str], ops: Sequence[Op]) -> None:
        super().__init__()
        self.module = module
        # Lines before the visited tree: a top-level statement is visited on its own, in a
        # module of its own (see ``fix/transform.py``), and its positions count from its first line.
        self.line_offset = 0
        self.keywords: dict[tuple[int, int], list[SetKeyword]] = {}
        self.params: dict[tuple[int, str], list[AddParam]] = {}
        self.stmt_ops: dict[int, list[Op]] = {}
        self.pending: set[Op] = set(ops)
        self.limit = line_limit(lines)
        for op in ops:
            if isinstance(op, SetKeyword):
                key = (op.line, _char_col(lines, op.line, op.col))
                self.keywords.setdefault(key, []).append(op)
            elif isinstance(op, AddParam):
                self.params.setdefault((op.line, op.fn_name), []).append(op)
            else:
                self.stmt_ops.setdefault(op.line, []).append(op)
        self.targets = sorted({op.line for op in ops})

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Go down only into nodes whose lines hold an op's line: every op's target (a call,
        a def, a statement and the block around it) spans its op's line, and a node that
        holds no op is left as it is (its leave methods find no op for it either)."""
        rng = self.get_metadata(PositionProvider, node, None)
        if rng is not None:
            first, last = rng.start.line + self.line_offset, rng.end.line + self.line_offset
            at = bisect.bisect_left(self.targets, first)
            if at == len(self.targets) or self.targets[at] > last:
                return False
        return super().on_visit(node)

    # -- calls -----------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(updated_node.func, cst.Name) and updated_node.func.value == "super":
            return updated_node
        pos = self.get_metadata(PositionProvider, original_node).start
        ops = self.keywords.get((pos.line + self.line_offset, pos.column))
        if not ops:
            return updated_node
        before = updated_node
        for op in ops:
            if op in self.pending:
                updated_node = self._set_keyword(updated_node, op)
                self.pending.discard(op)
        width = max_width(self.module, updated_node)
        if pos.column + width > self.limit >= pos.column + max_width(self.module, before):
            comma = cst.Comma(whitespace_after=line_break(self.module.default_indent))
            end = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True))
            bare = cst.SimpleWhitespace("")
            args = [a.with_changes(whitespace_after_arg=bare) for a in updated_node.args]
            args = [a.with_changes(comma=comma) for a in args[:-1]] + [
                args[-1].with_changes(comma=end)
            ]
            updated_node = updated_node.with_changes(
                args=args, whitespace_before_args=line_break(self.module.default_indent)
            )
        return updated_node

    def _set_keyword(self, call: cst.Call, op: SetKeyword) -> cst.Call:
        value = cst.parse_expression(op.value)
        args = list(call.args)
        for i, arg in enumerate(args):
            if arg.keyword is not None and arg.keyword.value == op.name:
                args[i] = arg.with_changes(value=value)
                return call.with_changes(args=args)
        if op.positional is not None:
            positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
            if op.positional < len(positional):
                i = positional[op.positional]
                args[i] = args[i].with_changes(value=value)
                return call.with_changes(args=args)
        new = cst.Arg(
            value=value,
            keyword=cst.Name(op.name),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        return call.with_changes(args=with_appended(args, new))

    # -- signatures ------------------------------------------------------------------------
    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        line = self.get_metadata(PositionProvider, original_node.name).start.line
        ops = self.params.get((line + self.line_offset, original_node.name.value))
        if not ops:
            return updated_node
        params = updated_node.params
        for op in ops:
            if op not in self.pending:
                continue
            self.pending.discard(op)
            names = {p.name.value for p in (*params.params, *params.kwonly_params)}
            if op.name in names:
                continue
            typed = op.default in ("True", "False")
            new = cst.Param(
                name=cst.Name(op.name),
                annotation=cst.Annotation(
                    cst.Name("bool"), whitespace_before_indicator=cst.SimpleWhitespace("")
                )
                if typed
                else None,
                default=cst.parse_expression(op.default),
                equal=cst.AssignEqual()
                if typed
                else cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            has_star = isinstance(params.star_arg, cst.Param | cst.ParamStar)
            if op.kwonly or has_star:
                items = with_appended(params.kwonly_params, new)
                star = params.star_arg if has_star else cst.ParamStar()
                params = params.with_changes(star_arg=star, kwonly_params=items)
            else:
                params = params.with_changes(params=with_appended(params.params, new))
        fixed = updated_node.with_changes(params=params)
        col = self.get_metadata(PositionProvider, original_node).start.column
        if (
            col + header_width(self.module, fixed)
            > self.limit
            >= col + header_width(self.module, updated_node)
        ):
            # Formatted like its surroundings: one parameter a line, as ruff would.
            fixed = fixed.with_changes(
                params=one_param_a_line(fixed.params, self.module.default_indent),
                whitespace_before_params=line_break(self.module.default_indent),
            )
        return fixed

    # -- statements in blocks --------------------------------------------------------------
    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._body(original_node.body, updated_node.body)
        if body is None:
            return updated_node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._body(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _line_of(self, stmt: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, stmt).start.line + self.line_offset

    def _body(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement] | None:
        lines = [self._line_of(s) for s in original]
        if not any(line in self.stmt_ops for line in lines):
            return None
        out: list[cst.BaseStatement] = []
        wraps: dict[int, WrapInIf] = {}
        deletes: set[int] = set()
        inserts: dict[int, list[InsertBefore]] = {}
        for i, line in enumerate(lines):
            for op in self.stmt_ops.get(line, []):
                if op not in self.pending:
                    continue
                self.pending.discard(op)
                if isinstance(op, WrapInIf):
                    wraps[i] = op
                elif isinstance(op, DeleteStatement):
                    deletes.add(i)
                elif isinstance(op, InsertBefore):
                    inserts.setdefault(i, []).append(op)
        groups = self._wrap_groups(original, wraps)
        i = 0
        while i < len(updated):
            for ins in inserts.get(i, []):
                out.append(cst.parse_statement(ins.code))
            if i in deletes:
                i += 1
                continue
            if i in groups:
                end, cond = groups[i]
                first = updated[i]
                leading = getattr(first, "leading_lines", ())
                inner = [first.with_changes(leading_lines=()), *updated[i + 1 : end + 1]]
                col = self.get_metadata(PositionProvider, original[i]).start.column
                inner = [wrap_calls_to_fit(self.module, stmt, col, self.limit) for stmt in inner]
                out.append(
                    cst.If(
                        test=cst.parse_expression(cond),
                        body=cst.IndentedBlock(body=inner),
                        leading_lines=leading,
                    )
                )
                i = end + 1
                continue
            out.append(updated[i])
            i += 1
        return out

    def _wrap_groups(
        self, original: Sequence[cst.BaseStatement], wraps: dict[int, WrapInIf]
    ) -> dict[int, tuple[int, str]]:
        """For each wrapped statement: the contiguous run to put under the guard."""
        groups: dict[int, tuple[int, str]] = {}
        if not wraps:
            return groups
        names = [_stmt_names(self.module, s) for s in original]
        for t, op in sorted(wraps.items()):
            start, end = t, t
            group_stored = set(names[t][0])
            # Preceding statements that only compute locals the group reads.
            while start - 1 >= 0 and start - 1 not in wraps:
                stored, _, _ = names[start - 1]
                used_in_group = any(stored & names[k][1] for k in range(start, end + 1))
                computes = isinstance(
                    original[start - 1], cst.SimpleStatementLine
                ) or _binds_locals_only(self.module, original[start - 1])
                later = set().union(*(names[k][1] for k in range(end + 1, len(original))))
                if stored and used_in_group and computes and not (stored & later):
                    start -= 1
                    group_stored |= stored
                else:
                    break
            # Following statements that use what the group built.
            while end + 1 < len(original) and end + 1 not in wraps:
                _, loaded, attrs = names[end + 1]
                if attrs.intersection(op.attrs) or loaded & group_stored:
                    end += 1
                    group_stored |= names[end][0]
                else:
                    break
            groups[start] = (end, op.cond)
        # Runs under the same guard that touch are one block: one `if`, not several.
        merged: dict[int, tuple[int, str]] = {}
        last: int | None = None
        for start in sorted(groups):
            end, cond = groups[start]
            if last is not None and merged[last][0] + 1 == start and merged[last][1] == cond:
                merged[last] = (end, cond)
            else:
                merged[start] = (end, cond)
                last = start
        return merged

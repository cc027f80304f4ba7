"""Apply fix ops to one module with a libcst transformer (formatting and comments kept)."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.fix.ops import AddParam, DeleteStatement, InsertBefore, Op, SetKeyword, WrapInIf


class FixError(Exception):
    """An op could not be applied (its target was not found or is ambiguous)."""


def _char_col(lines: Sequence[str], line: int, byte_col: int) -> int:
    if 1 <= line <= len(lines):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col


def _with_appended(items: Sequence[cst.CSTNode], new: cst.CSTNode) -> list[cst.CSTNode]:
    """Append ``new`` to a comma-separated list, keeping the list's comma style."""
    out = list(items)
    if not out:
        return [new]
    last = out[-1]
    last_comma = getattr(last, "comma", cst.MaybeSentinel.DEFAULT)
    if len(out) >= 2 and isinstance(getattr(out[-2], "comma", None), cst.Comma):
        sep = out[-2].comma  # type: ignore[attr-defined]
    else:
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    out[-1] = last.with_changes(comma=sep)
    out.append(new.with_changes(comma=last_comma))
    return out


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


class _Applier(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, lines: Sequence[str], ops: Sequence[Op]) -> None:
        super().__init__()
        self.module = module
        self.keywords: dict[tuple[int, int], list[SetKeyword]] = {}
        self.params: dict[tuple[int, str], list[AddParam]] = {}
        self.stmt_ops: dict[int, list[Op]] = {}
        self.pending: set[Op] = set(ops)
        for op in ops:
            if isinstance(op, SetKeyword):
                key = (op.line, _char_col(lines, op.line, op.col))
                self.keywords.setdefault(key, []).append(op)
            elif isinstance(op, AddParam):
                self.params.setdefault((op.line, op.fn_name), []).append(op)
            else:
                self.stmt_ops.setdefault(op.line, []).append(op)

    # -- calls -----------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(updated_node.func, cst.Name) and updated_node.func.value == "super":
            return updated_node
        pos = self.get_metadata(PositionProvider, original_node).start
        ops = self.keywords.get((pos.line, pos.column))
        if not ops:
            return updated_node
        for op in ops:
            if op in self.pending:
                updated_node = self._set_keyword(updated_node, op)
                self.pending.discard(op)
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
        return call.with_changes(args=_with_appended(args, new))

    # -- signatures ------------------------------------------------------------------------
    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        line = self.get_metadata(PositionProvider, original_node.name).start.line
        ops = self.params.get((line, original_node.name.value))
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
            new = cst.Param(
                name=cst.Name(op.name),
                annotation=cst.Annotation(
                    cst.Name("bool"), whitespace_before_indicator=cst.SimpleWhitespace("")
                ),
                default=cst.Name("True"),
                equal=cst.AssignEqual(),
            )
            has_star = isinstance(params.star_arg, cst.Param | cst.ParamStar)
            if op.kwonly or has_star:
                if not has_star:
                    params = params.with_changes(star_arg=cst.ParamStar())
                items = _with_appended(params.kwonly_params, new)
                params = params.with_changes(kwonly_params=items)
            else:
                params = params.with_changes(params=_with_appended(params.params, new))
        return updated_node.with_changes(params=params)

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
        return self.get_metadata(PositionProvider, stmt).start.line

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
                is_assign = isinstance(original[start - 1], cst.SimpleStatementLine)
                later = set().union(*(names[k][1] for k in range(end + 1, len(original))))
                if stored and used_in_group and is_assign and not (stored & later):
                    start -= 1
                    group_stored |= stored
                else:
                    break
            # Following statements that use what the group built.
            while end + 1 < len(original) and end + 1 not in wraps:
                _, loaded, attrs = names[end + 1]
                if op.attr in attrs or loaded & group_stored:
                    end += 1
                    group_stored |= names[end][0]
                else:
                    break
            groups[start] = (end, op.cond)
        return groups


def apply_ops(source: str, ops: Sequence[Op]) -> str:
    """Return ``source`` with ``ops`` applied; raise FixError when an op finds no target."""
    module = cst.parse_module(source)
    lines = source.splitlines()
    applier = _Applier(module, lines, ops)
    new = MetadataWrapper(module, unsafe_skip_copy=True).visit(applier)
    if applier.pending:
        missing = ", ".join(sorted(type(o).__name__ for o in applier.pending))
        raise FixError(f"could not place edit(s): {missing}")
    return new.code

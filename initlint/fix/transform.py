"""Apply fix ops to one module with a libcst transformer (formatting and comments kept)."""

from __future__ import annotations

import ast
import bisect
import io
import re
import textwrap
import tokenize
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.fixplan import AddParam, DeleteStatement, InsertBefore, Op, SetKeyword, WrapInIf
from initlint.records import dataclass

MIN_LINE_LENGTH = 88


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
    new = new.with_changes(comma=last_comma)
    # The space between the last item and the closing bracket (a newline in a hanging
    # layout) moves with it to the new last item: no trailing whitespace is left behind.
    for name in ("whitespace_after_arg", "whitespace_after_param"):
        if hasattr(last, name):
            out[-1] = out[-1].with_changes(**{name: cst.SimpleWhitespace("")})
            new = new.with_changes(**{name: getattr(last, name)})
    out.append(new)
    return out


def line_limit(lines: Sequence[str]) -> int:
    """The line length a signature or call the fix lengthens must keep, else it is wrapped one
    item a line: the longest line of the file that holds no comment or string (a formatter
    cannot shorten those, so they say little about the file's line length; a line inside a
    triple-quoted string counts as a string line too), and 88 at least (the ruff and black
    default: a short file says little either)."""
    skip = _string_or_comment_lines(lines)
    code = (
        len(line)
        for i, line in enumerate(lines, 1)
        if i not in skip and "#" not in line and '"' not in line and "'" not in line
    )
    return max(MIN_LINE_LENGTH, max(code, default=0))


# The string and comment tokens, found by one C scan (tokenize, in Python, took longer than
# a fix's render on a large file). Outside strings and comments a quote or `#` can only
# start one of them, so matching each from its first character finds them all; a quote
# left over is a string that does not end, where tokenize fails.
_STRING_OR_COMMENT = re.compile(
    r"#[^\n]*"
    r'|"""(?:[^"\\]++|\\.|"(?!""))*+"""'
    r"|'''(?:[^'\\]++|\\.|'(?!''))*+'''"
    r'|"(?:[^"\\\n]++|\\.)*+"'
    r"|'(?:[^'\\\n]++|\\.)*+'"
    r"|[\"']",
    re.S,
)


def _string_or_comment_lines(lines: Sequence[str]) -> set[int]:
    """1-based lines a string or comment token covers (every line of a multi-line string);
    empty when a string does not end (then the quote test above is all there is)."""
    out: set[int] = set()
    source = "\n".join(lines) + "\n"
    line, pos = 1, 0
    for m in _STRING_OR_COMMENT.finditer(source):
        start, text = m.start(), m.group()
        if len(text) == 1 and text in "\"'":
            return set()
        line += source.count("\n", pos, start)
        pos = start
        out.update(range(line, line + text.count("\n") + 1))
    return out


def _header_width(module: cst.Module, fn: cst.FunctionDef) -> int:
    """The widest line of the ``def`` header (without decorators or body)."""
    code = module.code_for_node(
        fn.with_changes(
            decorators=(), leading_lines=(), body=cst.SimpleStatementSuite((cst.Pass(),))
        )
    )
    lines = code.rstrip("\n").split("\n")
    lines[-1] = lines[-1].removesuffix(" pass")
    return max(len(line) for line in lines)


def _max_width(module: cst.Module, node: cst.CSTNode) -> int:
    """The widest line of ``node``'s code (its continuation lines counted from the start of
    its first line, which is the indentation they are rendered with in a block)."""
    return max(len(line) for line in module.code_for_node(node).split("\n"))


def _newline(indent: str, last: str = "") -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=(),
        indent=True,
        last_line=cst.SimpleWhitespace(indent if not last else last),
    )


def _one_per_line(params: cst.Parameters, indent: str) -> cst.Parameters:
    """``params`` with one parameter a line and a trailing comma."""
    star = params.star_arg
    items: list[cst.CSTNode] = [*params.posonly_params]
    if isinstance(params.posonly_ind, cst.ParamSlash):
        items.append(params.posonly_ind)
    items += [*params.params]
    if isinstance(star, cst.Param | cst.ParamStar):
        items.append(star)
    items += [*params.kwonly_params]
    if isinstance(params.star_kwarg, cst.Param):
        items.append(params.star_kwarg)
    comma = cst.Comma(whitespace_after=_newline(indent))
    end = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True))
    bare = cst.SimpleWhitespace("")
    done: dict[int, cst.CSTNode] = {}
    for i, item in enumerate(items):
        new = item.with_changes(comma=end if i == len(items) - 1 else comma)
        if isinstance(new, cst.Param):
            new = new.with_changes(whitespace_after_param=bare)
        done[id(item)] = new

    def swap(node: cst.CSTNode) -> cst.CSTNode:
        return done.get(id(node), node)

    return params.with_changes(
        posonly_params=[swap(p) for p in params.posonly_params],
        posonly_ind=swap(params.posonly_ind)
        if isinstance(params.posonly_ind, cst.ParamSlash)
        else params.posonly_ind,
        params=[swap(p) for p in params.params],
        star_arg=swap(star) if isinstance(star, cst.Param | cst.ParamStar) else star,
        kwonly_params=[swap(p) for p in params.kwonly_params],
        star_kwarg=swap(params.star_kwarg)
        if isinstance(params.star_kwarg, cst.Param)
        else params.star_kwarg,
    )


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
        # Lines before the visited tree: a top-level statement is visited on its own, in a
        # module of its own (see rewrite), and its positions count from its first line.
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
        width = _max_width(self.module, updated_node)
        if pos.column + width > self.limit >= pos.column + _max_width(self.module, before):
            comma = cst.Comma(whitespace_after=_newline(self.module.default_indent))
            end = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True))
            bare = cst.SimpleWhitespace("")
            args = [a.with_changes(whitespace_after_arg=bare) for a in updated_node.args]
            args = [a.with_changes(comma=comma) for a in args[:-1]] + [
                args[-1].with_changes(comma=end)
            ]
            updated_node = updated_node.with_changes(
                args=args, whitespace_before_args=_newline(self.module.default_indent)
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
        return call.with_changes(args=_with_appended(args, new))

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
                items = _with_appended(params.kwonly_params, new)
                star = params.star_arg if has_star else cst.ParamStar()
                params = params.with_changes(star_arg=star, kwonly_params=items)
            else:
                params = params.with_changes(params=_with_appended(params.params, new))
        fixed = updated_node.with_changes(params=params)
        col = self.get_metadata(PositionProvider, original_node).start.column
        if (
            col + _header_width(self.module, fixed)
            > self.limit
            >= col + _header_width(self.module, updated_node)
        ):
            # Formatted like its surroundings: one parameter a line, as ruff would.
            fixed = fixed.with_changes(
                params=_one_per_line(fixed.params, self.module.default_indent),
                whitespace_before_params=_newline(self.module.default_indent),
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
                inner = [self._fit(stmt, col) for stmt in inner]
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

    def _fit(self, stmt: cst.BaseStatement, col: int) -> cst.BaseStatement:
        """``stmt``, moved from column ``col`` one level deeper under a new ``if``: when a line
        of it then passes the line limit and did not before, its calls are split as ruff
        splits them (outermost first: the arguments on one line of their own, else one
        argument a line with a trailing comma) until it fits."""
        room = self.limit - col - len(self.module.default_indent)
        if (
            _max_width(self.module, stmt) <= room
            or _max_width(self.module, stmt) + col > self.limit
        ):
            return stmt
        k = 0
        while _max_width(self.module, stmt) > room:
            splitter = _SplitCall(k)
            split = stmt.visit(splitter)
            if splitter.seen <= k:
                break  # no call left to split
            assert isinstance(split, cst.BaseStatement)
            if splitter.hugged and _max_width(self.module, split) > room:
                # the arguments on a line of their own are still too long: one a line
                splitter = _SplitCall(k, hug=False)
                split = stmt.visit(splitter)
                assert isinstance(split, cst.BaseStatement)
            stmt = split
            k += 1
        return stmt

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


class _SplitCall(cst.CSTTransformer):
    """Split the ``index``-th call (outermost first) whose arguments sit on one line: a call
    written flat, on no continuation line, gets its arguments on a line of their own
    (``hug``), else one argument a line with a trailing comma; a call whose arguments are
    already on a line of their own gets one argument a line, at that line's indentation."""

    def __init__(self, index: int, hug: bool = True) -> None:
        super().__init__()
        self.index = index
        self.hug = hug
        self.seen = 0  # candidate calls met
        self.hugged = False
        self._open = 0  # enclosing calls written over several lines
        self._chosen: cst.Call | None = None

    def visit_Call(self, node: cst.Call) -> bool:
        shape = _call_shape(node)
        if shape == "hugged" or (shape == "flat" and not self._open):
            if self.seen == self.index:
                self._chosen = node
            self.seen += 1
        if _has_newline(node):
            self._open += 1
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if _has_newline(original_node):
            self._open -= 1
        if original_node is not self._chosen:
            return updated_node
        call = updated_node
        last = call.args[-1]
        before = call.whitespace_before_args
        if isinstance(before, cst.ParenthesizedWhitespace):
            inner, close = before.last_line.value, last.whitespace_after_arg
        else:
            inner = "    "
            close = cst.ParenthesizedWhitespace(indent=True)
            if self.hug:
                self.hugged = True
                return call.with_changes(
                    whitespace_before_args=_newline(inner),
                    args=[*call.args[:-1], last.with_changes(whitespace_after_arg=close)],
                )
        comma = cst.Comma(whitespace_after=_newline(inner))
        bare = cst.SimpleWhitespace("")
        args = [a.with_changes(comma=comma, whitespace_after_arg=bare) for a in call.args[:-1]]
        args.append(
            last.with_changes(comma=cst.Comma(whitespace_after=close), whitespace_after_arg=bare)
        )
        return call.with_changes(args=args, whitespace_before_args=_newline(inner))


def _call_shape(call: cst.Call) -> str:
    """ "flat": ``f(a, b)`` on one line; "hugged": ``f(`` / ``a, b`` / ``)``; else ""."""
    if not call.args or any(_has_newline(a) for a in call.args[:-1]):
        return ""
    last = call.args[-1]
    if _has_newline(last.value) or isinstance(last.comma, cst.Comma):
        return ""
    before, after = call.whitespace_before_args, last.whitespace_after_arg
    if isinstance(before, cst.SimpleWhitespace) and isinstance(after, cst.SimpleWhitespace):
        return "flat"
    if (
        isinstance(before, cst.ParenthesizedWhitespace)
        and isinstance(after, cst.ParenthesizedWhitespace)
        and not before.empty_lines
        and before.first_line.comment is None
    ):
        return "hugged"
    return ""


def _has_newline(node: cst.CSTNode) -> bool:
    return "\n" in cst.Module(body=[]).code_for_node(node)


@dataclass
class _Parsed:
    """A source parsed once for every plan that edits it (libcst parses are slow)."""

    module: cst.Module
    lines: list[str]
    # The code of each header line, body statement and footer line, in order, when they add
    # up to the source exactly (None: no per-statement edits for this source, see rewrite).
    parts: list[str] | None = None
    # starts[i]: the lines before body statement i's code (its leading lines included);
    # starts[-1]: the lines before the footer.
    starts: list[int] = field(default_factory=list)
    wrappers: dict[int, MetadataWrapper] = field(default_factory=dict)
    full: MetadataWrapper | None = None

    def statement(self, i: int) -> MetadataWrapper:
        """Body statement ``i`` alone in a module of its own (same indent and newline)."""
        wrapper = self.wrappers.get(i)
        if wrapper is None:
            alone = self.module.with_changes(body=(self.module.body[i],), header=(), footer=())
            wrapper = self.wrappers[i] = MetadataWrapper(alone, unsafe_skip_copy=True)
        return wrapper

    def whole(self) -> MetadataWrapper:
        if self.full is None:
            self.full = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return self.full


_PARSED: OrderedDict[str, _Parsed] = OrderedDict()
_PARSED_KEEP = 16  # sources kept parsed: the files of the plans being checked one after another


def _parse(source: str) -> _Parsed:
    parsed = _PARSED.get(source)
    if parsed is not None:
        _PARSED.move_to_end(source)
        return parsed
    module = cst.parse_module(source)
    parsed = _Parsed(module, source.splitlines())
    _split(parsed, source)
    _PARSED[source] = parsed
    while len(_PARSED) > _PARSED_KEEP:
        _PARSED.popitem(last=False)
    return parsed


def _split(parsed: _Parsed, source: str) -> None:
    """Fill ``parts`` and ``starts`` when the module's code is exactly the sum of its
    top-level parts, each ending a line (LF newlines only, so that line numbers agree with
    ``ast``'s); else leave ``parts`` None."""
    module = parsed.module
    if "\r" in source or not module.has_trailing_newline or not module.body:
        return
    code = module.code_for_node
    head = [code(h) for h in module.header]
    body = [code(s) for s in module.body]
    foot = [code(f) for f in module.footer]
    parts = [*head, *body, *foot]
    if "".join(parts) != source or not all(p.endswith("\n") for p in parts):
        return
    line = sum(p.count("\n") for p in head)
    starts = [line]
    for p in body:
        line += p.count("\n")
        starts.append(line)
    parsed.parts, parsed.starts = parts, starts


_STATEMENT_OPS = (InsertBefore, DeleteStatement, WrapInIf)


def _apply_per_statement(
    parsed: _Parsed, ops: Sequence[Op]
) -> tuple[str, list[str], set[Op]] | None:
    """Visit only the top-level statements holding an op, each in a module of its own, and
    splice their new code between the others' unchanged code. Same result as visiting the
    whole module: every node an op targets (a call, a def, a statement in a block) lies in
    the top-level statement whose lines hold the op's line. None when an op targets a
    top-level statement itself (its neighbours matter, e.g. for a wrap): visit the module."""
    if parsed.parts is None:
        return None
    starts = parsed.starts
    count = len(starts) - 1
    at: dict[int, list[Op]] = {}
    for op in ops:
        i = bisect.bisect_left(starts, op.line) - 1
        if 0 <= i < count:  # else in the header or the footer: no target, left pending
            at.setdefault(i, []).append(op)
    applier = _Applier(parsed.module, parsed.lines, ops)
    head = len(parsed.parts) - len(parsed.module.footer) - count
    parts = list(parsed.parts)
    changed = []
    for i in sorted(at):
        wrapper = parsed.statement(i)
        alone = wrapper.module
        first = wrapper.resolve(PositionProvider)[alone.body[0]].start.line + starts[i]
        if any(isinstance(op, _STATEMENT_OPS) and op.line == first for op in at[i]):
            return None
        applier.line_offset = starts[i]
        new = wrapper.visit(applier)
        code = "".join(alone.code_for_node(s) for s in new.body)
        if code != parts[head + i]:
            parts[head + i] = code
            changed.append(code)
    return "".join(parts), changed, applier.pending


@dataclass(frozen=True)
class _Split:
    """A source cut by ``ast`` into top-level parts, each a whole number of lines: the lines
    after the previous top-level statement up to the end of the next one (statements that
    share a line go in one part), then the lines after the last statement."""

    parts: tuple[str, ...]
    starts: tuple[int, ...]  # lines before each part
    lines: list[str]  # the source's lines, as _Parsed has them (byte -> char columns)
    indent: str  # the default indent libcst would detect for the whole source
    # For a part that is one class statement: (first line, def line, last line) of each
    # method defined directly in its body (first line: its first decorator's); else None.
    methods: tuple[tuple[tuple[int, int, int], ...] | None, ...] = ()


_SPLITS: OrderedDict[str, _Split | None] = OrderedDict()
_PARTS: OrderedDict[tuple[str, str], tuple[MetadataWrapper, frozenset[int]]] = OrderedDict()
_SPLITS_KEEP = 16
_PARTS_KEEP = 64


def _first_indent(source: str) -> str | None:
    """What libcst detects as the default indent: the first INDENT token's text (its
    fallback, four spaces, when there is none); None when tokenize fails before one."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.INDENT:
                return tok.string
    except (tokenize.TokenError, SyntaxError):
        return None
    return "    "


def _split_source(source: str) -> _Split | None:
    if source in _SPLITS:
        _SPLITS.move_to_end(source)
        return _SPLITS[source]
    split = None
    indent = _first_indent(source) if "\r" not in source and source.endswith("\n") else None
    if indent is not None and "\t" not in indent:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None and tree.body:
            lines = [line + "\n" for line in source.split("\n")[:-1]]
            ends: list[int] = []
            for stmt in tree.body:
                first = min([stmt.lineno, *(d.lineno for d in _decorators(stmt))])
                end = stmt.end_lineno or stmt.lineno
                if ends and first <= ends[-1]:
                    ends[-1] = max(ends[-1], end)  # shares a line with the previous one
                else:
                    ends.append(end)
            parts, starts, before = [], [], 0
            for end in ends:
                parts.append("".join(lines[before:end]))
                starts.append(before)
                before = end
            if before < len(lines):
                parts.append("".join(lines[before:]))
                starts.append(before)
            if "".join(parts) == source:
                methods = _class_methods(tree.body, starts)
                split = _Split(tuple(parts), tuple(starts), source.splitlines(), indent, methods)
    _SPLITS[source] = split
    while len(_SPLITS) > _SPLITS_KEEP:
        _SPLITS.popitem(last=False)
    return split


def _class_methods(
    body: list[ast.stmt], starts: Sequence[int]
) -> tuple[tuple[tuple[int, int, int], ...] | None, ...]:
    """Per part: the methods of the one class statement it holds (see _Split.methods)."""
    at: dict[int, list[ast.stmt]] = {}
    for stmt in body:
        first = min([stmt.lineno, *(d.lineno for d in _decorators(stmt))])
        at.setdefault(bisect.bisect_right(starts, first - 1) - 1, []).append(stmt)
    out: list[tuple[tuple[int, int, int], ...] | None] = []
    for i in range(len(starts)):
        stmts = at.get(i, [])
        if len(stmts) != 1 or not isinstance(stmts[0], ast.ClassDef):
            out.append(None)
            continue
        out.append(
            tuple(
                (min([m.lineno, *(d.lineno for d in m.decorator_list)]), m.lineno, m.end_lineno)
                for m in stmts[0].body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                and m.end_lineno is not None
            )
        )
    return tuple(out)


def _decorators(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return list(stmt.decorator_list)
    return []


def _parse_part(code: str, indent: str) -> tuple[MetadataWrapper, frozenset[int]]:
    """A part parsed alone, wrapped with its positions resolved (visits reuse them: each
    plan that edits the class visits it again), and the first lines of its statements."""
    key = (code, indent)
    known = _PARTS.get(key)
    if known is None:
        config = cst.PartialParserConfig(default_indent=indent, default_newline="\n")
        wrapper = MetadataWrapper(cst.parse_module(code, config=config), unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        firsts = frozenset(positions[stmt].start.line for stmt in wrapper.module.body)
        known = _PARTS[key] = (wrapper, firsts)
        while len(_PARTS) > _PARTS_KEEP:
            _PARTS.popitem(last=False)
    else:
        _PARTS.move_to_end(key)
    return known


def _rewrite_parts(source: str, ops: Sequence[Op]) -> tuple[str, list[str], set[Op]] | None:
    """Like _apply_per_statement, without a libcst parse of the whole source: libcst parses
    only the parts that hold an op, each alone, with the whole source's default indent and
    newline (so that new code is laid out as in the whole module). The ops' targets lie in
    the top-level statement whose lines hold them, so the result is the same. None when a
    part cannot be parsed alone or an op targets a top-level statement itself: then the
    whole source is parsed, as before."""
    split = _split_source(source)
    if split is None or not ops:
        return None
    at: dict[int, list[Op]] = {}
    for op in ops:
        i = bisect.bisect_right(split.starts, op.line - 1) - 1
        if 0 <= i < len(split.parts):
            at.setdefault(i, []).append(op)
    applier: _Applier | None = None
    parts = list(split.parts)
    changed = []
    for i in sorted(at):
        pieces = _method_pieces(split, i, at[i])
        if pieces is None:
            pieces = [(split.starts[i], split.parts[i], "")]  # the whole part
        lines = parts[i].split("\n")[:-1] if len(pieces) > 1 or pieces[0][2] else []
        done = []
        for start, code, header in pieces:
            try:
                wrapper, firsts = _parse_part(code, split.indent)
            except Exception:  # noqa: BLE001 - not parseable alone: the whole source decides
                return None
            module = wrapper.module
            if any(isinstance(op, _STATEMENT_OPS) and op.line - start in firsts for op in at[i]):
                return None
            if applier is None:
                applier = _Applier(module, split.lines, ops)
            applier.module = module
            applier.line_offset = start
            new = wrapper.visit(applier).code
            if not new.startswith(header):
                return None
            if new != code:
                changed.append(new)
            done.append((start, code, new[len(header) :]))
        if not lines:
            parts[i] = done[0][2]
            continue
        # Each method's new code in place of its lines, the class's other lines kept.
        for start, code, new in reversed(done):
            first = start + 1 - split.starts[i]  # the method's first line, 0-based in the part
            lines[first : first + code.count("\n") - 1] = [new.removesuffix("\n")]
        parts[i] = "\n".join(lines) + "\n"
    if applier is None:
        return None
    return "".join(parts), changed, applier.pending


# The line a method is parsed under, alone (see _method_pieces).
PIECE_HEADER = "class _Part:\n"


def _method_pieces(split: _Split, i: int, ops: Sequence[Op]) -> list[tuple[int, str, str]] | None:
    """When part ``i`` is a class and every op lies inside one of its methods (not on a
    method's decorator or def lines, for a statement op), the methods holding ops, each
    alone under a class header of its own: (lines before the piece, its code, the header).
    libcst then parses and visits a method, not the whole class (a large class's positions
    cost seconds), and the result is the same: an op's target lies in its method, and the
    method's lines keep their indentation and columns. None: the whole part is visited."""
    methods = split.methods[i] if i < len(split.methods) else None
    if not methods:
        return None
    firsts = [m[0] for m in methods]
    holding: dict[int, tuple[int, int, int]] = {}
    for op in ops:
        k = bisect.bisect_right(firsts, op.line) - 1
        if k < 0 or op.line > methods[k][2]:
            return None  # outside every method
        if isinstance(op, _STATEMENT_OPS) and op.line <= methods[k][1]:
            return None  # on the method statement itself: its neighbours matter
        holding[k] = methods[k]
    lines = split.parts[i].split("\n")
    out = []
    for first, _, last in sorted(holding.values()):
        a, b = first - 1 - split.starts[i], last - split.starts[i]
        if a < 1 or b > len(lines) - 1:
            return None
        code = PIECE_HEADER + "\n".join(lines[a:b]) + "\n"
        out.append((first - 2, code, PIECE_HEADER))
    return out


def rewrite(source: str, ops: Sequence[Op]) -> tuple[str, list[str] | None]:
    """``source`` with ``ops`` applied, and the new code of what changed, each piece one that
    parses alone (None: the whole module was visited): a top-level statement, or a method
    under a ``PIECE_HEADER`` line. Raise FixError when an op finds no target.

    The source's libcst parse is kept for the next plans that edit it."""
    fast = _rewrite_parts(source, ops)
    if fast is not None and not fast[2]:
        return fast[0], fast[1]
    parsed = _parse(source)
    done = _apply_per_statement(parsed, ops)
    if done is None:
        applier = _Applier(parsed.module, parsed.lines, ops)
        code, changed, pending = parsed.whole().visit(applier).code, None, applier.pending
    else:
        code, changed, pending = done
    if pending:
        missing = ", ".join(sorted(type(o).__name__ for o in pending))
        raise FixError(f"could not place edit(s): {missing}")
    return code, changed


def apply_ops(source: str, ops: Sequence[Op]) -> str:
    """Return ``source`` with ``ops`` applied; raise FixError when an op finds no target."""
    return rewrite(source, ops)[0]

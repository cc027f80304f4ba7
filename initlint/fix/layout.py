"""New code laid out like the code around it: the file's line limit (``line_limit``), an
item appended in a list's own comma style (``with_appended``), one parameter a line
(``one_param_a_line``), and a statement's calls split as ruff splits them until it fits
(``wrap_calls_to_fit``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

MIN_LINE_LENGTH = 88


def with_appended(items: Sequence[cst.CSTNode], new: cst.CSTNode) -> list[cst.CSTNode]:
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
    skip = string_or_comment_lines(lines)
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


def string_or_comment_lines(lines: Sequence[str]) -> set[int]:
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


def header_width(module: cst.Module, fn: cst.FunctionDef) -> int:
    """The widest line of the ``def`` header (without decorators or body)."""
    code = module.code_for_node(
        fn.with_changes(
            decorators=(), leading_lines=(), body=cst.SimpleStatementSuite((cst.Pass(),))
        )
    )
    lines = code.rstrip("\n").split("\n")
    lines[-1] = lines[-1].removesuffix(" pass")
    return max(len(line) for line in lines)


def max_width(module: cst.Module, node: cst.CSTNode) -> int:
    """The widest line of ``node``'s code (its continuation lines counted from the start of
    its first line, which is the indentation they are rendered with in a block)."""
    return max(len(line) for line in module.code_for_node(node).split("\n"))


def line_break(indent: str) -> cst.ParenthesizedWhitespace:
    """A newline inside brackets, the next line indented by ``indent``."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=(),
        indent=True,
        last_line=cst.SimpleWhitespace(indent),
    )


def one_param_a_line(params: cst.Parameters, indent: str) -> cst.Parameters:
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
    comma = cst.Comma(whitespace_after=line_break(indent))
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


def wrap_calls_to_fit(
    module: cst.Module, stmt: cst.BaseStatement, col: int, limit: int
) -> cst.BaseStatement:
    """``stmt``, moved from column ``col`` one level deeper under a new ``if``: when a line
    of it then passes the line limit and did not before, its calls are split as ruff
    splits them (outermost first: the arguments on one line of their own, else one
    argument a line with a trailing comma) until it fits."""
    room = limit - col - len(module.default_indent)
    if max_width(module, stmt) <= room or max_width(module, stmt) + col > limit:
        return stmt
    k = 0
    while max_width(module, stmt) > room:
        splitter = _SplitCall(k)
        split = stmt.visit(splitter)
        if splitter.seen <= k:
            break  # no call left to split
        assert isinstance(split, cst.BaseStatement)
        if splitter.hugged and max_width(module, split) > room:
            # the arguments on a line of their own are still too long: one a line
            splitter = _SplitCall(k, hug=False)
            split = stmt.visit(splitter)
            assert isinstance(split, cst.BaseStatement)
        stmt = split
        k += 1
    return stmt


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
                    whitespace_before_args=line_break(inner),
                    args=[*call.args[:-1], last.with_changes(whitespace_after_arg=close)],
                )
        comma = cst.Comma(whitespace_after=line_break(inner))
        bare = cst.SimpleWhitespace("")
        args = [a.with_changes(comma=comma, whitespace_after_arg=bare) for a in call.args[:-1]]
        args.append(
            last.with_changes(comma=cst.Comma(whitespace_after=close), whitespace_after_arg=bare)
        )
        return call.with_changes(args=args, whitespace_before_args=line_break(inner))


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

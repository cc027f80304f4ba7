"""A file's skeleton: the same text with the bodies of functions other than ``__init__``
blanked, so that the fact pass parses only what it reads eagerly (docs/design.md, "Performance").

Lines and columns stay where they were: a blanked body becomes one ``pass`` line and empty
lines. A body is blanked only when the text around it is unambiguous: its header closes
its brackets and ends with ``:``, the body is found by indentation, and the blanked lines
hold balanced brackets, an even number of each triple quote and no trailing backslash
(so the cut cannot fall inside a string or a continued line). Anything else keeps its
body, which is always correct, only slower. The caller parses the skeleton and falls back
to the whole text when that parse fails.

A blanked body's signature goes too (``def f():`` and empty lines) when it holds no
string, comment or backslash, the only things that could have thrown the bracket count
off: its parameters are read with the body, and annotations were much of what was left
to parse.
"""

from __future__ import annotations

import re

_DEF = re.compile(r"def[ \t]+(\w+)")  # a literal prefix: far faster than a ^-anchored one
_MAX_HEADER_LINES = 80


# A line indented with a tab. Led by a literal newline (the first line is matched apart): a
# ``^``-anchored pattern under re.M is tried at every position, and took a tenth of this pass.
_TAB_INDENT = re.compile(r"\n *\t")
_TAB_FIRST = re.compile(r" *\t")


def _tab_indented(text: str) -> bool:
    return "\t" in text and (
        _TAB_FIRST.match(text) is not None or _TAB_INDENT.search(text) is not None
    )


def _depth(text: str) -> int:
    count = text.count  # spelled out: a sum over map() costs more than the counting
    return count("(") + count("[") + count("{") - count(")") - count("]") - count("}")


def _code(line: str) -> str:
    """The line without a trailing comment, when that is certain (no quotes on it)."""
    if "#" in line and "'" not in line and '"' not in line:
        return line.split("#", 1)[0]
    return line


def _header_end(lines: list[str], start: int) -> int | None:
    """Index of the line whose ``:`` ends the ``def`` header that starts at ``start``."""
    depth = 0
    for j in range(start, min(len(lines), start + _MAX_HEADER_LINES)):
        code = _code(lines[j])
        depth += _depth(code)
        if depth < 0:
            return None
        if depth == 0:  # the header ends here; a one-line def (`-> int: ...`) has no body
            return j if code.rstrip().endswith(":") else None
    return None


_DEDENT: dict[int, re.Pattern[str]] = {}


def _dedent(indent: int) -> re.Pattern[str]:
    """A code line indented no deeper than ``indent`` spaces: where a body at it ends."""
    pattern = _DEDENT.get(indent)
    if pattern is None:
        # Led by a literal newline, which the regex engine finds fast; the match starts at
        # the newline that ends the line before.
        pattern = _DEDENT[indent] = re.compile(rf"\n {{0,{indent}}}(?=[^ \t\n#])")
    return pattern


def _is_code(line: str) -> bool:
    stripped = line.lstrip(" \t")
    return bool(stripped) and not stripped.startswith("#")


def _blankable(region: str, last_line: str) -> bool:
    return (
        region.count('"""') % 2 == 0
        and region.count("'''") % 2 == 0
        and _depth(region) == 0
        and not last_line.rstrip().endswith("\\")
    )


def _plain(signature: str) -> bool:
    """A signature whose brackets were counted exactly: no string, comment or backslash."""
    return not any(c in signature for c in "'\"#\\")


def skeleton(text: str) -> tuple[str, dict[int, tuple[int, int]]] | None:
    """``(skeleton text, {def line: (its ``pass`` line, last body line)})`` with 1-based
    lines, or None when nothing could be blanked (parse ``text`` itself then). ``text`` uses
    ``\\n`` line ends."""
    if "\x0c" in text or _tab_indented(text):  # columns the dedent pattern can't count
        return None
    lines = text.split("\n")
    ends: dict[int, tuple[int, int]] = {}
    pieces: list[str] = []
    done = 0  # text[:done] is in pieces
    skip_to = -1  # lines up to here are inside a body already blanked or kept whole
    line = 0
    pos = 0
    for m in _DEF.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        prefix = text[start : m.start()]
        word = prefix.strip(" \t")
        if word and (word != "async" or prefix[-1] not in " \t"):
            continue  # not a def statement
        line += text.count("\n", pos, start)
        pos = start
        if line <= skip_to:
            continue
        indent = len(prefix) - len(prefix.lstrip(" \t"))
        header = _header_end(lines, line)
        if header is None:
            continue
        # The body: from the line after the header to the last code line before a dedent.
        if header == line:  # most headers: one line
            body_at = pos + len(lines[line]) + 1
        else:
            body_at = pos + sum(len(x) + 1 for x in lines[line : header + 1])
        found = _dedent(indent).search(text, body_at - 1) if body_at < len(text) else None
        stop_at = found.start() + 1 if found is not None else len(text) + 1
        last = header + text.count("\n", body_at, stop_at) + (found is None)
        trailing = 0  # blank and comment lines between the body and the dedent
        while last > header and not _is_code(lines[last]):
            last -= 1
            trailing += 1
        if m.group(1) == "__init__":
            skip_to = last  # read eagerly, nested functions included
            continue
        if last == header:
            continue  # a one-line def: nothing to blank
        end_at = stop_at - 1 - sum(len(x) + 1 for x in lines[last + 1 : last + 1 + trailing])
        region = text[body_at:end_at]
        if not _blankable(region, lines[last]):
            continue
        first = next(k for k in range(header + 1, last + 1) if _is_code(lines[k]))
        body_ws = lines[first][: len(lines[first]) - len(lines[first].lstrip(" \t"))]
        params_at = m.end()  # the parameter list's "(", right after the name
        if text.startswith("(", params_at):
            # the header's last line starts len(line) + 1 before the body; it ends with ":"
            colon = body_at - 1 - len(lines[header]) + len(lines[header].rstrip()) - 1
            signature = text[params_at:colon]
            if _plain(signature):
                pieces += (text[done:params_at], "():", "\n" * signature.count("\n"))
                done = colon + 1
        pieces += (
            text[done:body_at],
            "\n" * (first - header - 1),
            body_ws,
            "pass",
            "\n" * (last - first),
        )
        done = end_at
        ends[line + 1] = (first + 1, last + 1)
        skip_to = last
    if not ends:
        return None
    pieces.append(text[done:])
    return "".join(pieces), ends

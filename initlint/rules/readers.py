"""Whether a class's code reads an attribute plainly (``self.x``), rather than only
optionally (``getattr(self, "x", None)``, ``hasattr(self, "x")``) or not at all. IL004 uses
it: setup switched off for an attribute nothing reads plainly leaves nothing missing.

Read from the source text of the classes in the MRO (IL004 is rare, so this runs seldom).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator

from initlint.index.records import ClassInfo
from initlint.sources import UnreadableError, decode, read_bytes

_LINES: dict[str, list[str]] = {}


def _class_text(info: ClassInfo) -> str:
    key = str(info.module.path)
    lines = _LINES.get(key)
    if lines is None:
        try:
            lines = decode(read_bytes(info.module.path))[0].splitlines()
        except UnreadableError:
            lines = []
        _LINES[key] = lines
    facts = info.facts
    end = max([facts.span.end_line, *(m.span.end_line for m in facts.methods)])
    return "\n".join(lines[facts.span.line - 1 : end])


def no_plain_reads(classes: list[ClassInfo], attr: str) -> bool:
    """True when the classes (an MRO, first class first) never read ``self.<attr>`` plainly
    in a method the object runs: only through getattr/hasattr, only in a method a class
    before it overrides, or not at all. Assignments and registrations are not reads."""
    trees = _live_trees(classes)
    if trees is None:  # (a class's text does not parse: any mention may read it)
        name = re.escape(attr)
        # self.x = ... (an assignment) and self.x: T (an annotation) are not reads
        plain = re.compile(rf"\bself\.{name}\b(?!\s*(?:=(?!=)|:))")
        return not any(plain.search(_class_text(info)) for info in classes)
    return not any(node.attr == attr for tree in trees for node, _, _ in _loads(tree, _NONE, ""))


def _live_trees(classes: list[ClassInfo]) -> list[ast.AST] | None:
    """Each class's parsed text without the methods a class before it in the MRO
    overrides: an object of the first class never runs those. None when a text does not
    parse."""
    trees: list[ast.AST] = []
    overridden: set[str] = set()
    for info in classes:
        try:
            tree = ast.parse(textwrap.dedent(_class_text(info)))
        except SyntaxError:
            return None
        cls = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)), None)
        if cls is None:
            return None
        methods = [s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        cls.body = [s for s in cls.body if s not in methods or s.name not in overridden]
        cls.body = cls.body or [ast.Pass()]
        # (a method that calls the one it overrides, ``super().forward(x)``, keeps it run)
        overridden |= {m.name for m in methods if not _calls_overridden(m)}
        trees.append(tree)
    return trees


def _calls_overridden(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method calls its own name on anything but ``self``
    (``super().forward(x)``, ``Base.forward(self, x)``)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr != fn.name:
                continue
            receiver = node.func.value
            if not (isinstance(receiver, ast.Name) and receiver.id == "self"):
                return True
    return False


_NONE: frozenset[str] = frozenset()


def reads_under(classes: list[ClassInfo], attr: str, tests: frozenset[str]) -> bool:
    """True when every plain read of ``self.<attr>`` in the classes (``self.x += 1`` too)
    sits where all of ``tests`` hold (in the body of an ``if`` with each test, or the
    ``else`` of its negation), or in a method whose every use is a call ``self.m(...)`` made
    where they hold: an attribute built under those tests and read only under them is never
    missing where it is read. False when a class's text does not parse."""
    if not tests:
        return False
    trees = _live_trees(classes)
    if trees is None:
        return False
    outside: set[str] = set()  # methods holding a read where the tests may not hold
    for tree in trees:
        for node, held, method in _loads(tree, frozenset(), ""):
            if node.attr == attr and not tests <= held:
                if not method or method.startswith("__"):
                    return False  # (a special method runs without a call written here)
                outside.add(method)
    return all(_called_only_under(trees, method, tests) for method in outside)


def _called_only_under(trees: list[ast.AST], method: str, tests: frozenset[str]) -> bool:
    """Whether ``self.<method>`` is used somewhere, and only as a call made where all of
    ``tests`` hold (one level: a call inside another method must itself sit under them)."""
    used = False
    for tree in trees:
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node, held, _ in _loads(tree, frozenset(), ""):
            if node.attr != method:
                continue
            if id(node) not in called or not tests <= held:
                return False
            used = True
    return used


def tests_around(info: ClassInfo, line: int) -> frozenset[str]:
    """The tests that hold at ``line`` of the class's text (its module's line numbers): each
    ``if`` around it, as written for its body, ``not (...)`` for its ``else``."""
    try:
        tree = ast.parse(textwrap.dedent(_class_text(info)))
    except SyntaxError:
        return frozenset()
    local = line - info.facts.span.line + 1
    for node, held in _statements(tree, frozenset()):
        if node.lineno == local:
            return held
    return frozenset()


def _statements(node: ast.AST, held: frozenset[str]) -> Iterator[tuple[ast.stmt, frozenset[str]]]:
    for child, inner in _children(node, held):
        if isinstance(child, ast.stmt):
            yield child, inner
        yield from _statements(child, inner)


def _loads(
    node: ast.AST, held: frozenset[str], method: str
) -> Iterator[tuple[ast.Attribute, frozenset[str], str]]:
    """Each ``self.<x>`` read under ``node``, with the tests that hold there and the
    function it is read in ("" outside any)."""
    for child, inner in _children(node, held):
        if isinstance(child, ast.Attribute) and _self_read(node, child):
            yield child, inner, method
        within = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else method
        yield from _loads(child, inner, within)


def _self_read(parent: ast.AST, node: ast.Attribute) -> bool:
    """``self.x`` read: loaded, or the target of ``self.x += 1``."""
    if not isinstance(node.value, ast.Name) or node.value.id != "self":
        return False
    augmented = isinstance(parent, ast.AugAssign) and parent.target is node
    return isinstance(node.ctx, ast.Load) or augmented


def _children(node: ast.AST, held: frozenset[str]) -> Iterator[tuple[ast.AST, frozenset[str]]]:
    """``node``'s children, each with the tests that hold in it."""
    if isinstance(node, ast.If):
        test = ast.unparse(node.test)
        yield node.test, held
        for stmt in node.body:
            yield stmt, held | {test}
        for stmt in node.orelse:
            yield stmt, held | {_negated(node.test)}
        return
    for child in ast.iter_child_nodes(node):
        yield child, held


def _negated(test: ast.expr) -> str:
    """The text of ``not <test>``, without a double negation."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.unparse(test.operand)
    return ast.unparse(ast.UnaryOp(op=ast.Not(), operand=test))

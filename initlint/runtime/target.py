"""Turn a CLI target 'module:Class(args...)' into a zero-argument factory."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from collections.abc import Callable
from typing import Any

from initlint.records import dataclass

_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
FILENAME = "<initlint target>"


class TargetError(Exception):
    """A target that cannot be turned into a factory; the message is one line."""


@dataclass(frozen=True)
class Target:
    module: str
    expression: str


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def parse_target(spec: str) -> Target:
    module, sep, expression = spec.partition(":")
    module, expression = module.strip(), expression.strip()
    if not sep or not expression or not _MODULE.fullmatch(module):
        raise TargetError(f"target must look like 'module:Class(args...)', got {spec!r}")
    return Target(module, expression)


def _callee_root(node: ast.expr) -> str | None:
    """The first name of the called expression: 'Rope' in Rope(...), 'pkg' in pkg.Rope(...)."""
    if isinstance(node, ast.Call):
        node = node.func
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def make_factory(target: Target, torch: Any) -> Callable[[], object]:
    """Import the module and compile the expression; the call itself runs in the factory.

    A bare ``Class`` (no call) is called with no arguments.
    """
    try:
        tree = ast.parse(target.expression, FILENAME, mode="eval")
    except SyntaxError as exc:
        raise TargetError(f"invalid target expression {target.expression!r}: {exc.msg}") from None
    if not isinstance(tree.body, ast.Call):
        tree.body = ast.Call(func=tree.body, args=[], keywords=[])
        ast.fix_missing_locations(tree)
    code = compile(tree, FILENAME, "eval")
    try:
        module = importlib.import_module(target.module)
    except ImportError as exc:
        raise TargetError(f"cannot import module {target.module!r}: {exc}") from None
    except Exception as exc:  # the module's own code failed
        raise TargetError(f"cannot import module {target.module!r}: {one_line(exc)}") from None
    namespace: dict[str, Any] = {**vars(module), "torch": torch}
    root = _callee_root(tree.body)
    if root is not None and root not in namespace and not hasattr(builtins, root):
        raise TargetError(f"module {target.module!r} has no attribute {root!r}")

    def factory() -> object:
        return eval(code, namespace)

    return factory

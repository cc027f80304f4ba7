"""A fix plan as data: the edit operations it is made of. Positions are ``ast`` ones (1-based
line, byte col). Below the pipeline, so that a run's analysis holds its plans typed; the fixer
(``initlint.fix``) makes them, renders them and writes them."""

from __future__ import annotations

from pathlib import Path

from initlint.diagnostics import Applicability
from initlint.records import dataclass


@dataclass(frozen=True)
class SetKeyword:
    """In the call starting at (line, col): set ``name=value``.

    An existing keyword ``name`` gets the new value; else the positional argument at
    ``positional`` (0-based, self excluded) is replaced when given; else ``name=value`` is
    appended as the last argument.
    """

    path: Path
    line: int
    col: int
    name: str
    value: str
    positional: int | None = None


@dataclass(frozen=True)
class InsertBefore:
    """Insert the statement ``code`` before the statement that starts on ``line``."""

    path: Path
    line: int
    code: str


@dataclass(frozen=True)
class AddParam:
    """Add ``name: bool = True`` to the function ``fn_name`` defined on ``line`` (or ``name=
    <default>``, annotated ``bool`` where the default is one: a flag threaded through keeps
    the default of the parameter it reaches)."""

    path: Path
    line: int
    fn_name: str
    name: str
    kwonly: bool
    default: str = "True"


@dataclass(frozen=True)
class WrapInIf:
    """Put the statement on ``line`` under ``if cond:``, with the statements that feed it
    locals and the ones that depend on ``self.<attr>`` for an attr of ``attrs`` (the
    attributes the guarded work builds: one statement can build several) or on those locals
    (same block)."""

    path: Path
    line: int
    cond: str
    attrs: tuple[str, ...]


@dataclass(frozen=True)
class DeleteStatement:
    path: Path
    line: int


Op = SetKeyword | InsertBefore | AddParam | WrapInIf | DeleteStatement


def op_site(op: Op) -> tuple[Path, str, int]:
    """Ops on the same site conflict unless they are equal."""
    kind = "stmt" if isinstance(op, WrapInIf | DeleteStatement) else type(op).__name__
    if isinstance(op, SetKeyword):
        return op.path, f"{kind}:{op.col}:{op.name}", op.line
    if isinstance(op, AddParam):
        return op.path, f"{kind}:{op.name}", op.line
    if isinstance(op, InsertBefore):
        return op.path, f"{kind}:{op.code}", op.line  # several inserts may share a place
    return op.path, kind, op.line


@dataclass(frozen=True)
class FixPlan:
    applicability: Applicability
    message: str
    ops: tuple[Op, ...]
    strategy: int

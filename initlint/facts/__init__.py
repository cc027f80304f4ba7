"""Per-file facts: a pure function of a file's bytes (docs/design.md, "The pipeline")."""

from initlint.facts.extract import extract_facts
from initlint.facts.model import (
    Arg,
    ClassFacts,
    Cond,
    Effect,
    Expr,
    FunctionFacts,
    ImportFacts,
    ModuleFacts,
    Param,
    Span,
)

__all__ = [
    "Arg",
    "ClassFacts",
    "Cond",
    "Effect",
    "Expr",
    "FunctionFacts",
    "ImportFacts",
    "ModuleFacts",
    "Param",
    "Span",
    "extract_facts",
]

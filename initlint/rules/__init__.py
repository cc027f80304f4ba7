"""Rules read the simulation; importing this package registers every rule."""

from initlint.rules import catalog as _catalog  # noqa: F401  (registers the rules)
from initlint.rules.base import DOC_SECTIONS, REGISTRY, Finding, Rule, select_codes

__all__ = ["DOC_SECTIONS", "REGISTRY", "Finding", "Rule", "select_codes"]

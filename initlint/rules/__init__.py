"""The rules: one module each (``il001_buffer.py`` ... ``il004_disabled.py``, ``internal.py``
for IL900-IL902), registered in :data:`REGISTRY` when imported here."""

from initlint.rules import (  # noqa: F401  (importing a rule's module registers it)
    il001_buffer,
    il002_call,
    il003_attribute,
    il004_disabled,
    internal,
)
from initlint.rules.analyses import findings_of
from initlint.rules.base import DOC_SECTIONS, REGISTRY, Finding, Rule, select_codes

__all__ = ["DOC_SECTIONS", "REGISTRY", "Finding", "Rule", "findings_of", "select_codes"]

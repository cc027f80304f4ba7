"""The rules: one module each, named for its code (``il001_buffer.py`` ... ``il004_disabled.py``;
``il900_internal.py`` holds IL900-IL902). Importing this package imports every ``il*``
module in it, in name order, and so registers each rule in :data:`REGISTRY`: a new rule is
a new module here, and nothing else."""

import importlib
import pkgutil

from initlint.rules.analyses import analyses_of, findings_of
from initlint.rules.base import (
    DOC_SECTIONS,
    REGISTRY,
    DisabledFinding,
    Finding,
    RepeatFinding,
    Rule,
    select_codes,
)

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module.startswith("il"):
        importlib.import_module(f"{__name__}.{_module}")

__all__ = [
    "DOC_SECTIONS",
    "REGISTRY",
    "DisabledFinding",
    "Finding",
    "RepeatFinding",
    "Rule",
    "analyses_of",
    "findings_of",
    "select_codes",
]

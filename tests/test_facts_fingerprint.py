"""The facts cache is named by the code that makes facts: every module of ``initlint.facts``
that extracting a file's facts imports must be in ``EXTRACTOR_MODULES``, or editing it would
leave stale facts in a cache made before the edit."""

from __future__ import annotations

import subprocess
import sys

from initlint.facts.cache import EXTRACTOR_MODULES


def test_every_module_extraction_runs_names_the_cache() -> None:
    code = (
        "import sys, initlint.facts.extract as e; e.extract_facts('class A:\\n    pass\\n'); "
        "print('\\n'.join(m for m in sys.modules if m.startswith('initlint.facts.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    imported = {m.removeprefix("initlint.facts.") for m in out.split()}
    assert imported - {"cache", "load"} <= set(EXTRACTOR_MODULES)

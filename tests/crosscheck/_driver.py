"""Construct every class of some checker fixtures under ``trace_init``; write the results as JSON.

Usage: ``python _driver.py OUT.json CASE_DIR...``. Runs in its own process (torch is imported
once for all cases). Each case directory goes first on ``sys.path`` while its classes are
constructed; afterwards every module loaded from it is unimported, so the next case can reuse
package names such as ``pkg``. Constructor arguments come from ``specs.py`` next to this file.

Output: ``{case: {"module:Class": {"status": "ok", "repeated": [...], "events": [...]}
                   | {"status": "skip", "reason": ...} | {"status": "error", "reason": ...}}}``
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # leave no __pycache__ in tests/fixtures

from specs import PART_CASES, SPECS, Made, Named, Skip, TextFile  # noqa: E402

from initlint.runtime import trace_init, trace_model  # noqa: E402

# trace_init runs gc.collect() before each construction; with torch loaded that takes ~0.2 s.
# Freezing what is alive now (torch, initlint) makes it cheap without changing what is traced.
gc.freeze()


def module_name(case: Path, path: Path) -> str:
    parts = list(path.relative_to(case).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def classes_of(case: Path) -> list[str]:
    """``module:Class`` for every top-level class in the case's parseable files."""
    found = []
    for path in sorted(case.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except SyntaxError:
            continue
        mod = module_name(case, path)
        found.extend(f"{mod}:{n.name}" for n in tree.body if isinstance(n, ast.ClassDef))
    return found


def materialize(value: Any, tmp: Path) -> Any:
    if isinstance(value, TextFile):
        path = tmp / f"data{len(list(tmp.iterdir()))}.txt"
        path.write_text(value.content)
        return str(path)
    if isinstance(value, Named | Made):
        mod, _, name = value.target.partition(":")
        found = getattr(importlib.import_module(mod), name)
        if isinstance(value, Named):
            return found
        return found(*materialize(value.args, tmp), **materialize(value.kwargs, tmp))
    if isinstance(value, tuple):
        return tuple(materialize(v, tmp) for v in value)
    if isinstance(value, dict):
        return {k: materialize(v, tmp) for k, v in value.items()}
    return value


def unimport(case: Path) -> None:
    root = str(case) + os.sep
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        spec = getattr(module, "__spec__", None)
        locations = list(getattr(spec, "submodule_search_locations", None) or ())
        if file.startswith(root) or any(str(p).startswith(root) for p in locations):
            del sys.modules[name]
    importlib.invalidate_caches()


def run_case(case: Path, tmp: Path) -> dict[str, Any]:
    specs = SPECS.get(case.name, {})
    names = classes_of(case)
    results: dict[str, Any] = {}
    for stale in sorted(set(specs) - set(names)):
        results[stale] = {"status": "error", "reason": "specs.py names a class that is not here"}
    sys.path.insert(0, str(case))
    try:
        for name in names:
            spec = specs.get(name, ((), {}))
            if isinstance(spec, Skip):
                results[name] = {"status": "skip", "reason": spec.reason}
                continue
            args, kwargs = materialize(spec, tmp)
            mod, _, cls_name = name.partition(":")
            try:
                cls = getattr(importlib.import_module(mod), cls_name)
                factory = functools.partial(cls, *args, **kwargs)
                trace = trace_init(factory, project_roots=[case])
            except Exception as exc:  # noqa: BLE001 - reported per class
                last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                results[name] = {"status": "error", "reason": last}
                continue
            results[name] = {
                "status": "ok",
                "class": trace.class_name,
                "repeated": [
                    {"kind": r.kind, "name": r.name, "count": r.count, "bytes": r.bytes}
                    for r in trace.repeated
                ],
                "events": [[e.kind, e.name] for e in trace.events],
            }
            if case.name in PART_CASES:  # repeats on submodules: [path, name] of each
                model = trace_model(factory, project_roots=[case], static=False)
                results[name]["parts"] = [[r.path, r.repeat.name] for r in model.repeats if r.path]
    finally:
        sys.path.remove(str(case))
        unimport(case)
    return results


def main(argv: list[str]) -> int:
    out, *cases = argv
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in map(Path, cases):
            results[case.name] = run_case(case.resolve(), Path(tmp))
    Path(out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

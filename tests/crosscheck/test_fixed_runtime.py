"""Issue 4: the fixes remove the repeated work without dropping state, as construction shows.

For every fix fixture that uses torch (tests/fixtures/fix/<case>/ whose in/ imports torch), every
class of the in/ tree and of the out/ tree is constructed under ``trace_init`` (arguments from
``specs.py``: the in/ trees are copies of the checker fixtures, and the fixes only add flag
parameters with defaults). For each class:

- out/ repeats nothing: the trace has no repeated buffer, parameter, attribute or call;
- the fix only removed work: the out/ events are a sub-multiset of the in/ events;
- the object ends in the same state: the same buffers and tensor attributes (dtype, shape and
  bytes), parameters (dtype and shape: initial values are random) and submodule names. Bytes
  are compared only where they do not depend on the random stream (which shifts when work is
  skipped): the traced construction is seeded with ``torch.manual_seed(0)``, and a value that
  differs in a second construction seeded with 1 counts as "random".

The same is checked for the rope packages tests/fixtures/autofix/deepseek_v4_before, fixed_rope
and a copy of the former fixed by ``run_fix(unsafe=True)``: same state in all three, a bitwise
equal fp32 ``cos_sin_cache``, and no repeats after the fix.

The non-torch fix fixtures (io_dataset_reload, project_class_construction) are not constructed:
the tracer sees tensor work only.

Construction runs in one subprocess: this file run as a script (``python test_fixed_runtime.py
OUT.json JOBS.json``), which reuses ``_driver.py`` (class discovery, temporary data files,
unimporting a tree so the next one can reuse its package names) and ``specs.py``. The pytest
process never imports torch.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIX = REPO / "tests" / "fixtures" / "fix"
BEFORE = REPO / "tests" / "fixtures" / "autofix" / "deepseek_v4_before"
FIXED_ROPE = REPO / "fixed_rope"
V4 = "deepseek:DeepseekV4ScalingRotaryEmbedding"
ROPE_SIDES = ("before", "fixed_rope", "autofixed")
# specs.PROBES: other arguments for some classes of a fix fixture (the pytest process does not
# import specs.py, which imports torch; the two must list the same probes).
PROBES = {
    "discarded_build_deleted@kind=local": ["pkg.layers:Decoder"],
    "discarded_build_deleted@cached=False": ["pkg.layers:Rotary"],
    "redo_inside_if@n=2": ["pkg.child:Child"],
    "redo_under_param_condition@fp32=False": ["pkg.prec:PrecChild"],
    "redo_under_negated_condition@learn_scale=True": ["pkg.norms:FrozenNorm"],
}

Result = dict[str, Any]


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _classes(root: Path) -> list[str]:
    """``module:Class`` for each top-level class below ``root`` (``_driver.classes_of``)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except SyntaxError:
            continue
        mod = _module_name(root, path)
        found.extend(f"{mod}:{n.name}" for n in tree.body if isinstance(n, ast.ClassDef))
    return found


def _imports_torch(root: Path) -> bool:
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            if any(n == "torch" or n.startswith("torch.") for n in names):
                return True
    return False


def _torch_cases() -> list[str]:
    return sorted(
        p.name
        for p in FIX.iterdir()
        if (p / "in").is_dir() and (p / "out").is_dir() and _imports_torch(p / "in")
    )


def _params() -> list[Any]:
    return [
        pytest.param(case, cls, id=f"{case}/{cls}")
        for case in _torch_cases()
        for cls in _classes(FIX / case / "in")
    ]


# ---- the driver (this file run as a script, in a subprocess) ----------------------------------


def _state(obj: object) -> dict[str, Any]:
    """Buffers, parameters, tensor attributes and submodules of a constructed object."""
    import hashlib

    import torch

    def describe(t: torch.Tensor, values: bool) -> list[Any]:
        out: list[Any] = [str(t.dtype), list(t.shape)]
        if values:
            raw = bytes(t.detach().cpu().contiguous().flatten().view(torch.uint8).tolist())
            out.append(hashlib.sha256(raw).hexdigest()[:16])
        return out

    assert isinstance(obj, torch.nn.Module), "the torch fix fixtures construct nn.Modules"
    return {
        "buffer": {n: describe(b, True) for n, b in obj.named_buffers()},
        "tensor": {n: describe(v, True) for n, v in vars(obj).items() if torch.is_tensor(v)},
        "parameter": {n: describe(p, False) for n, p in obj.named_parameters()},
        "module": sorted(n for n, _ in obj.named_modules() if n),
    }


def _construct(made: list[object], cls: type, args: Any, kwargs: Any) -> object:
    obj = cls(*args, **kwargs)
    made.append(obj)
    return obj


def _run_job(job: dict[str, Any], tmp: Path) -> dict[str, Result]:
    import functools
    import importlib
    import traceback

    import _driver
    import specs
    import torch

    from initlint.runtime import trace_init

    root, entry = Path(job["root"]), Path(job["path"])
    table: dict[str, Any] = getattr(specs, job["table"])
    if job["entry"] is not None:
        table = table.get(job["entry"], {})
    names = _driver.classes_of(root)
    if job["table"] == "PROBES":
        names = [n for n in names if n in table]
    results: dict[str, Result] = {}
    for stale in sorted(set(table) - set(names)):
        results[stale] = {"status": "error", "reason": "specs.py names a class that is not here"}
    sys.path.insert(0, str(entry))
    try:
        for name in names:
            spec = table.get(name, ((), {}))
            if isinstance(spec, specs.Skip):
                results[name] = {"status": "skip", "reason": spec.reason}
                continue
            args, kwargs = _driver.materialize(spec, tmp)
            mod, _, cls_name = name.partition(":")
            made: list[object] = []
            try:
                cls = getattr(importlib.import_module(job["prefix"] + mod), cls_name)
                torch.manual_seed(0)
                factory = functools.partial(_construct, made, cls, args, kwargs)
                trace = trace_init(factory, project_roots=[root])
                state = _state(made[0])
                torch.manual_seed(1)  # values that change with the seed are random: not compared
                reseeded = _state(cls(*args, **kwargs))
            except Exception as exc:  # noqa: BLE001 - reported per class
                last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                results[name] = {"status": "error", "reason": last}
                continue
            for kind in ("buffer", "tensor"):
                for n, desc in state[kind].items():
                    if reseeded[kind].get(n) != desc:
                        desc[2] = "random"
            results[name] = {
                "status": "ok",
                "repeated": [[r.kind, r.name, r.count] for r in trace.repeated],
                "events": [[e.kind, e.name] for e in trace.events],
                "state": state,
            }
    finally:
        sys.path.remove(str(entry))
        _driver.unimport(root)
    return results


def _drive(argv: list[str]) -> int:
    import tempfile

    out, jobs_file = argv
    jobs = json.loads(Path(jobs_file).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        results = {job["key"]: _run_job(job, Path(tmp)) for job in jobs}
    Path(out).write_text(json.dumps(results, indent=1))
    return 0


# ---- the pytest side ----------------------------------------------------------------------------


def _job(key: str, root: Path, table: str, entry: str | None, package: bool = False) -> dict:
    """A tree to construct; ``package``: ``root`` is a package, imported from its parent."""
    return {
        "key": key,
        "root": str(root),
        "path": str(root.parent if package else root),
        "prefix": f"{root.name}." if package else "",
        "table": table,
        "entry": entry,
    }


def _autofixed(tmp: Path) -> Path:
    """A copy of deepseek_v4_before, fixed with unsafe fixes; the package directory."""
    from initlint.fix.api import run_fix

    pkg = tmp / "deepseek_v4_autofixed"
    shutil.copytree(BEFORE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    _, outcome, after = run_fix([tmp], unsafe=True, write=True, use_cache=False, cwd=tmp)
    assert [(d.code, d.class_name.rsplit(".", 1)[-1]) for d in outcome.applied] == [
        ("IL001", "DeepseekV4ScalingRotaryEmbedding")
    ]
    assert after is not None and after.diagnostics == []
    return pkg


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Result]]:
    """{job key: {module:Class: result}}; keys ``<case>/in``, ``<case>/out``, ``<probe>/in``,
    ``<probe>/out`` and ``rope/<side>`` (``ROPE_SIDES``)."""
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("fixed_runtime")
    jobs = [
        _job(f"{case}/{side}", FIX / case / side, "SPECS", case)
        for case in _torch_cases()
        for side in ("in", "out")
    ]
    jobs += [
        _job(f"{probe}/{side}", FIX / probe.partition("@")[0] / side, "PROBES", probe)
        for probe in PROBES
        for side in ("in", "out")
    ]
    autofix_dir = tmp / "autofix"
    autofix_dir.mkdir()
    rope = {"before": BEFORE, "fixed_rope": FIXED_ROPE, "autofixed": _autofixed(autofix_dir)}
    jobs += [_job(f"rope/{k}", p, "AUTOFIX_SPECS", None, package=True) for k, p in rope.items()]
    (tmp / "jobs.json").write_text(json.dumps(jobs))
    out = tmp / "runtime.json"
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, __file__, str(out), str(tmp / "jobs.json")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp,
    )
    if proc.returncode != 0:
        pytest.fail(f"the runtime driver failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    results: dict[str, dict[str, Result]] = json.loads(out.read_text())
    return results


def _pair(runtime: dict[str, dict[str, Result]], key: str, cls: str) -> tuple[Result, Result]:
    before, after = runtime[f"{key}/in"][cls], runtime[f"{key}/out"][cls]
    if before["status"] == after["status"] == "skip":
        pytest.skip(before["reason"])
    for side, result in (("in", before), ("out", after)):
        assert result["status"] == "ok", f"constructing {cls} of {side}/ failed: {result}"
    return before, after


def _brief(repeated: list[list[Any]]) -> str:
    return ", ".join(f"{kind} {name} x{count}" for kind, name, count in repeated) or "nothing"


def _state_diff(before: dict[str, Any], after: dict[str, Any]) -> str:
    lines = []
    for kind in sorted(set(before) | set(after)):
        b, a = before.get(kind), after.get(kind)
        if isinstance(b, dict) and isinstance(a, dict):
            for name in sorted(set(b) | set(a)):
                if b.get(name) != a.get(name):
                    lines.append(f"{kind} {name}: {b.get(name)} -> {a.get(name)}")
        elif b != a:
            lines.append(f"{kind}: {b} -> {a}")
    return "; ".join(lines)


@pytest.mark.parametrize(("case", "cls"), _params())
def test_fixed_class_repeats_nothing(
    runtime: dict[str, dict[str, Result]], case: str, cls: str
) -> None:
    _, after = _pair(runtime, case, cls)
    assert after["repeated"] == [], f"{case}/out {cls} repeats {_brief(after['repeated'])}"


@pytest.mark.parametrize(("case", "cls"), _params())
def test_fix_keeps_the_state(runtime: dict[str, dict[str, Result]], case: str, cls: str) -> None:
    before, after = _pair(runtime, case, cls)
    assert after["state"] == before["state"], _state_diff(before["state"], after["state"])


@pytest.mark.parametrize(("case", "cls"), _params())
def test_fix_only_removes_work(runtime: dict[str, dict[str, Result]], case: str, cls: str) -> None:
    before, after = _pair(runtime, case, cls)
    done, left = Counter(map(tuple, before["events"])), Counter(map(tuple, after["events"]))
    assert left <= done, f"new work in {case}/out {cls}: {sorted((left - done).elements())}"


@pytest.mark.parametrize("case", _torch_cases())
def test_every_fixture_had_work_to_remove(runtime: dict[str, dict[str, Result]], case: str) -> None:
    """The in/ tree repeats something and the out/ tree does less: the checks above bite."""
    before, after = runtime[f"{case}/in"], runtime[f"{case}/out"]
    assert sorted(before) == sorted(after) == sorted(_classes(FIX / case / "in"))
    assert sorted(_classes(FIX / case / "out")) == sorted(_classes(FIX / case / "in"))
    ok = [c for c, r in before.items() if r["status"] == "ok"]
    assert any(before[c]["repeated"] for c in ok), f"{case}/in repeats nothing"
    count = sum(len(before[c]["events"]) - len(after[c]["events"]) for c in ok)
    assert count > 0, f"{case}/out does as much as {case}/in"


def test_the_check_is_not_vacuous(runtime: dict[str, dict[str, Result]]) -> None:
    cases = _torch_cases()
    assert len(cases) >= 15
    assert {"io_dataset_reload", "project_class_construction"}.isdisjoint(cases)
    compared = [r for case in cases for r in runtime[f"{case}/in"].values() if r["status"] == "ok"]
    assert len(compared) >= 25
    assert sum(bool(r["repeated"]) for r in compared) >= 20
    kinds = {k for r in compared for k, *_ in r["repeated"]}
    assert kinds == {"buffer", "parameter", "attribute", "call"}
    buffers = [d for r in compared for d in r["state"]["buffer"].values()]
    assert sum(digest != "random" for *_, digest in buffers) >= 15


# ---- the DeepSeek V4 rope packages --------------------------------------------------------------


def test_rope_packages_construct_the_same_classes(runtime: dict[str, dict[str, Result]]) -> None:
    classes = sorted(_classes(BEFORE))
    assert V4 in classes and len(classes) == 3
    for side in ROPE_SIDES:
        results = runtime[f"rope/{side}"]
        assert sorted(results) == classes, side
        for cls, result in results.items():
            assert result["status"] == "ok", f"constructing {cls} of {side} failed: {result}"


def test_rope_before_repeats_the_cache(runtime: dict[str, dict[str, Result]]) -> None:
    repeated = runtime["rope/before"][V4]["repeated"]
    assert ["buffer", "cos_sin_cache", 2] in repeated, _brief(repeated)
    assert ["call", "DeepseekV4ScalingRotaryEmbedding._compute_cos_sin_cache", 2] in repeated


@pytest.mark.parametrize("side", ROPE_SIDES[1:])
def test_rope_fixed_repeats_nothing_and_keeps_the_state(
    runtime: dict[str, dict[str, Result]], side: str
) -> None:
    for cls, before in runtime["rope/before"].items():
        after = runtime[f"rope/{side}"][cls]
        assert after["repeated"] == [], f"{side} {cls} repeats {_brief(after['repeated'])}"
        assert after["state"] == before["state"], (
            f"{side} {cls}: {_state_diff(before['state'], after['state'])}"
        )
    caches = {s: runtime[f"rope/{s}"][V4]["state"]["buffer"]["cos_sin_cache"] for s in ROPE_SIDES}
    dtype, shape, digest = caches["before"]
    assert dtype == "torch.float32" and len(shape) == 2 and digest != "random"
    assert caches[side] == [dtype, shape, digest]  # bitwise equal


# ---- a redo under a condition (issue 14: the fix passes `init_cache=not (n > 4)`) -------------


def test_redo_under_if_keeps_the_state_when_the_redo_does_not_run(
    runtime: dict[str, dict[str, Result]],
) -> None:
    probe = "redo_inside_if@n=2"
    (cls,) = PROBES[probe]
    before, after = _pair(runtime, probe, cls)
    assert before["state"]["buffer"]["cache"][0] == "torch.float32"  # Base's, not redone
    assert after["state"] == before["state"], _state_diff(before["state"], after["state"])


def test_redo_under_a_parameter_keeps_the_state_both_ways(
    runtime: dict[str, dict[str, Result]],
) -> None:
    """`init_table=not fp32`: with fp32=False the ancestor's float16 table stays."""
    probe = "redo_under_param_condition@fp32=False"
    (cls,) = PROBES[probe]
    before, after = _pair(runtime, probe, cls)
    assert before["state"]["buffer"]["table"][0] == "torch.float16"
    assert after["state"] == before["state"], _state_diff(before["state"], after["state"])


if __name__ == "__main__":
    sys.exit(_drive(sys.argv[1:]))

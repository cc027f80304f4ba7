"""Issue 6: the checker's findings on its own fixtures agree with what construction really does.

For every class of every checker fixture (tests/fixtures/check/<case>/):

- if ``initlint check`` reports IL001/IL002/IL003/IL005 on it, constructing it under ``trace_init``
  repeats that very buffer, parameter, method call or attribute;
- if it reports none of them, the construction repeats nothing at all.

The name a diagnostic is about is read from the source statement it points at (and must also
appear in its message). The classes a diagnostic concerns are ``Diagnostic.classes`` (a mixin's
statement lists every concrete class). The runtime side runs in one subprocess (``_driver.py``),
which imports each case under its own package names and unimports them before the next case;
constructor arguments come from ``specs.py``; every class is traced with the case directory as
the project root.

Not compared: ``file_errors`` (syntax errors only, no class to construct), the class of
``clean_external_base`` (its base is transformers' PreTrainedModel) and the mixin of ``mixin``
(constructed through First and Second instead): see ``specs.py``. The non-torch fixtures
(``io_dataset_reload``, ``project_class_construction``) are constructed with temporary data
files. Where the two sides disagree, ``DISAGREEMENTS`` says which side is right and why.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from initlint.diagnostics import Diagnostic
from initlint.driver import analyze

# torch is imported by the driver's process only.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")

HERE = Path(__file__).resolve().parent
CASES = HERE.parent / "fixtures" / "check"
DRIVER = HERE / "_driver.py"
REPEAT_CODES = ("IL001", "IL002", "IL003", "IL005")
STORAGE_KINDS = ("buffer", "parameter", "attribute")

# Where static and runtime disagree, and why; each flips to XPASS (an error) once resolved.
DISAGREEMENTS: dict[tuple[str, str], str] = {
    ("hasattr_guard", "pkg.child:ScaledTable"): (
        "definitions differ, static is right: the runtime counts refresh() twice by name, but "
        "during the base's __init__ `hasattr(self, 'scale')` is false and the call does "
        "nothing (the table is registered once)"
    ),
    ("hasattr_guard", "pkg.child:LateTable"): (
        "definitions differ, static is right: the runtime counts refresh() twice by name, but "
        "the second call finds `self.done` set and does nothing (the table is registered once)"
    ),
    ("io_dataset_reload", "data.filtered:FilteredDataset"): (
        "tracer gap, static is right: IL003 on `self.records = [...]` (the JSON file is opened "
        "and parsed twice), but trace_init records tensor assignments only"
    ),
    ("call_into_other_attribute", "pkg.heads:DistilledDetector"): (
        "definitions differ, static is right: the runtime counts calls by name and sees "
        "_make_heads run twice, but the two head sets are kept side by side (heads, "
        "heads_dist): nothing is discarded"
    ),
    ("call_args_by_value", "pkg.tables:CasedTable"): (
        "definitions differ, static is right: the runtime counts _grow by name, but each run "
        "gets other names (the reserved ones, then each word): trace_model, which groups "
        "calls by their arguments' values, finds no repeat (tests/runtime/"
        "test_call_args_by_value.py)"
    ),
    ("call_args_by_value", "pkg.tables:SkippingTable"): (
        "definitions differ, static is right: the runtime counts _grow by name, but the "
        "second run gets the class's own words, not reserved: no call repeats with equal "
        "arguments (tests/runtime/test_call_args_by_value.py)"
    ),
    ("clean_derived_value", "pkg.rotary:ScaledRotary"): (
        "definitions differ, static is right: inv_freq and table are registered/assigned "
        "twice, but each new value is computed from the ancestor's: its work was used"
    ),
    ("clean_derived_value", "pkg.wrapped_parts:NormedPyramid"): (
        "definitions differ, static is right: the list of convs is replaced, but by wrappers "
        "holding the same convs: their work was used"
    ),
    ("derived_through_helper", "pkg.rotary:StretchedRotary"): (
        "definitions differ, static is right: inv_freq is registered twice, but the new "
        "value is the ancestor's divided (read through the helper _stretched): its work was used"
    ),
    ("derived_through_helper", "pkg.rotary:SmoothedRotary"): (
        "definitions differ, static is right: inv_freq is registered twice, but the new "
        "value is computed from the ancestor's through two helpers: its work was used"
    ),
    ("cost_light_repeats", "pkg.heads:TunedHead"): (
        "tracer gap, static is right: IL003 on `self.sampler = TopKSampler(...)` (a plain "
        "object built twice, light), but trace_init records tensors and modules only"
    ),
    ("torch_base_params", "pkg.quant:PackedLinear"): (
        "tracer gap, static is right: nn.Linear.__init__ allocates the float weight that the "
        "subclass deletes and replaces with an int8 buffer; the tracer does not record torch's "
        "own registration nor a parameter replaced by a buffer"
    ),
    ("torch_base_params", "pkg.quant:HalfLinear"): (
        "definitions differ, static is right: weight is registered twice, but the new "
        "Parameter is converted from torch's (self.weight.data.half()): a conversion"
    ),
    ("discarded_builds", "pkg.placeholder:Placeholders"): (
        "definitions differ, static is right: `self.norm = nn.Identity()` declares the name "
        "and is then filled in; the runtime counts any second store of a module, but an "
        "identity holds nothing and computes nothing (IL005 reports no placeholder)"
    ),
    ("discarded_builds", "pkg.dropped:Probed"): (
        "definitions differ, static is right: the mixer is read (its parameters counted) "
        "before `del self.mixer`, so its build was used; the runtime sees a build and a drop "
        "and does not see reads"
    ),
    ("init_pass_repeated", "pkg.passes:Gained"): (
        "definitions differ, static is right: the runtime counts reset_parameters twice by "
        "name, but during the base's __init__ `hasattr(self, 'gain')` is false and the call "
        "does nothing (the weights are initialised once)"
    ),
    ("init_pass_repeated", "pkg.passes:Applied"): (
        "definitions differ, static is right: self.apply runs _init_weights once per module "
        "(the projection, then the object itself); the runtime counts calls by name"
    ),
    ("project_class_construction", "pkg.model:Child"): (
        "tracer gap, static is right: IL003 on `self.vocab = Vocab(path)` (the file is read "
        "twice), but a Vocab is not a tensor and Vocab.__init__ runs on another object"
    ),
}


def _module_name(case: Path, path: Path) -> str:
    parts = list(path.relative_to(case).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _classes(case: Path) -> list[str]:
    """``module:Class`` for each top-level class of the case (the driver finds the same)."""
    found = []
    for path in sorted(case.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except SyntaxError:
            continue
        mod = _module_name(case, path)
        found.extend(f"{mod}:{n.name}" for n in tree.body if isinstance(n, ast.ClassDef))
    return found


def _case_dirs() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if (p / "expected.txt").exists())


def _xfail(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)


def _params() -> list[Any]:
    params = []
    for case in _case_dirs():
        for cls in _classes(case):
            reason = DISAGREEMENTS.get((case.name, cls))
            marks = [_xfail(reason)] if reason else []
            params.append(pytest.param(case.name, cls, marks=marks, id=f"{case.name}/{cls}"))
    return params


# ---- static side ------------------------------------------------------------------------------


class Finding(NamedTuple):
    code: str
    kind: str  # buffer | parameter | call | attribute
    name: str
    where: str  # path:line:col


def _self_attr(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    ):
        return node.attr
    return None


def _super_attr(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "super"
        and not node.value.args
    ):
        return node.attr
    return None


def _statement_at(path: Path, line: int, column: int) -> ast.stmt:
    tree = ast.parse(path.read_bytes(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and (node.lineno, node.col_offset + 1) == (line, column):
            return node
    raise LookupError(f"no statement starts at {path}:{line}:{column}")


def _assigned(stmt: ast.stmt) -> str | None:
    """``x`` for ``self.x = ...``; ``a.b`` for ``self.a.b = ...`` (a part of a submodule)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Attribute) and (holder := _self_attr(target.value)):
            return f"{holder}.{target.attr}"
        return _self_attr(target)
    if isinstance(stmt, ast.AnnAssign):
        return _self_attr(stmt.target)
    return None


def _what(code: str, stmt: ast.stmt) -> tuple[str, str]:
    """(kind, name) of the repeated effect that the statement performs."""
    if code == "IL001":
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant):
            method = _self_attr(call.func)
            if method in ("register_buffer", "register_parameter"):
                return method.removeprefix("register_"), str(call.args[0].value)
        attr = _assigned(stmt)
        value = getattr(stmt, "value", None)
        if attr is not None and isinstance(value, ast.Call):
            func = ast.unparse(value.func)
            return ("parameter" if func.endswith("Parameter") else "buffer"), attr
    elif code == "IL002":
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and _self_attr(node.func) is not None:
                return "call", str(_self_attr(node.func))
            if isinstance(node, ast.Call) and _super_attr(node.func) is not None:
                return "call", str(_super_attr(node.func))  # super().refresh() in an override
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "self"
            ):
                return "call", node.func.attr  # Base._build(self, d): that class's method
    elif code == "IL005":  # the store that replaces the value built before
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant):
            if _self_attr(call.func) in ("register_buffer", "register_parameter"):
                return str(_self_attr(call.func)).removeprefix("register_"), str(call.args[0].value)
        attr = _assigned(stmt)
        if attr is not None:
            return "attribute", attr
        if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            deleted = _self_attr(target)
            if deleted is not None:
                return "attribute", deleted  # dropped: recorded as a store of nothing
            if isinstance(target, ast.Attribute) and (holder := _self_attr(target.value)):
                return "attribute", f"{holder}.{target.attr}"  # a part of a held object
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "delattr"
            and len(call.args) == 2
            and isinstance(call.args[1], ast.Constant)
        ):
            return "attribute", str(call.args[1].value)  # delattr(self, "x"): as del
    elif code == "IL003":
        attr = _assigned(stmt)
        if attr is not None:
            return "attribute", attr
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            holder = _self_attr(call.func.value)
            if holder and call.func.attr == "__init__":  # self.x.__init__(...): set up again
                return "attribute", f"{holder}.__init__"
    raise AssertionError(f"cannot tell what {code} is about in: {ast.unparse(stmt)}")


def _class_keys(diag: Diagnostic) -> list[str]:
    names = diag.classes or ((diag.class_name,) if diag.class_name else ())
    return [":".join(q.rsplit(".", 1)) for q in names]


@functools.cache
def static_findings(case_name: str) -> dict[str, list[Finding]]:
    """IL001-IL003 and IL005 findings of ``initlint check`` on the case, by ``module:Class``."""
    case = CASES / case_name
    analysis = analyze([case], cwd=case, use_cache=False, jobs=1)
    findings: dict[str, list[Finding]] = {}
    for diag in analysis.diagnostics:
        if diag.code not in REPEAT_CODES:
            continue
        stmt = _statement_at(case / diag.path, diag.line, diag.column)
        kind, name = _what(diag.code, stmt)
        assert f"`{name}`" in diag.message or f"`self.{name}" in diag.message, (
            f"{diag.path}:{diag.line}: the statement is about {name!r}, the message says "
            f"{diag.message!r}"
        )
        keys = _class_keys(diag)
        assert keys, f"{diag.path}:{diag.line}: {diag.code} names no class"
        where = f"{diag.path}:{diag.line}:{diag.column}"
        for key in keys:
            findings.setdefault(key, []).append(Finding(diag.code, kind, name, where))
    return findings


# ---- runtime side -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The driver's results for every case: {case: {module:Class: result}}."""
    out = tmp_path_factory.mktemp("crosscheck") / "runtime.json"
    path = os.pathsep.join(filter(None, [str(HERE.parents[1]), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(out), *map(str, _case_dirs())],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=out.parent,
    )
    if proc.returncode != 0:
        pytest.fail(f"the runtime driver failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    results: dict[str, dict[str, Any]] = json.loads(out.read_text())
    return results


def _shows(result: dict[str, Any], finding: Finding) -> bool:
    """Whether the runtime repeats have the finding's buffer/parameter/call/attribute; for a
    part of a submodule (``mixer.inp``), the repeats of the object at that path."""
    if finding.kind == "attribute" and "." in finding.name:
        holder, _, part = finding.name.rpartition(".")
        if part == "__init__":  # any part of the object set up again repeats
            return any(p[0] == holder for p in result.get("parts", ()))
        return any(p == [holder, part] for p in result.get("parts", ()))
    for r in result["repeated"]:
        if finding.kind == "call":
            if r["kind"] == "call" and r["name"].rsplit(".", 1)[-1] == finding.name:
                return True
        elif finding.kind == "attribute":
            if r["kind"] in STORAGE_KINDS and r["name"] == finding.name:
                return True
        elif r["kind"] == finding.kind and r["name"] == finding.name:
            return True
    return False


def _brief(repeated: list[dict[str, Any]]) -> str:
    return ", ".join(f"{r['kind']} {r['name']} x{r['count']}" for r in repeated) or "nothing"


# ---- tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "cls"), _params())
def test_static_finding_iff_runtime_repeat(
    runtime: dict[str, dict[str, Any]], case: str, cls: str
) -> None:
    result = runtime[case][cls]
    if result["status"] == "skip":
        pytest.skip(result["reason"])
    assert result["status"] == "ok", f"constructing {cls} failed: {result['reason']}"
    repeated = result["repeated"]
    findings = static_findings(case).get(cls, [])
    for finding in findings:
        assert _shows(result, finding), (
            f"static: {finding.code} on {cls} for {finding.kind} `{finding.name}` "
            f"({finding.where}); runtime repeats {_brief(repeated)}"
        )
    if not findings:
        assert repeated == [], f"static: no finding on {cls}; runtime repeats {_brief(repeated)}"
        parts = result.get("parts", [])
        assert parts == [], f"static: no finding on {cls}; runtime repeats parts {parts}"


def test_runtime_covers_exactly_the_fixture_classes(runtime: dict[str, dict[str, Any]]) -> None:
    """Every class was handled, and specs.py names no class that does not exist."""
    for case in _case_dirs():
        assert sorted(runtime[case.name]) == sorted(_classes(case)), case.name


def test_every_finding_names_a_fixture_class() -> None:
    for case in _case_dirs():
        classes = set(_classes(case))
        for cls in static_findings(case.name):
            assert cls in classes, f"{case.name}: a finding names {cls}, not a class of the case"


def test_the_cross_check_is_not_vacuous(runtime: dict[str, dict[str, Any]]) -> None:
    flagged = clean = 0
    for case in _case_dirs():
        for cls, result in runtime[case.name].items():
            if result["status"] != "ok" or (case.name, cls) in DISAGREEMENTS:
                continue
            if static_findings(case.name).get(cls):
                flagged += 1
            else:
                clean += 1
    assert flagged >= 20
    assert clean >= 35
    kinds = {f.kind for c in _case_dirs() for fs in static_findings(c.name).values() for f in fs}
    assert kinds == {"buffer", "parameter", "call", "attribute"}


V4 = "rope.deepseek_v4:DeepseekV4ScalingRotaryEmbedding"


def _counts(result: dict[str, Any], kind: str, name: str) -> int:
    return sum(1 for k, n in result["events"] if k == kind and n.rsplit(".", 1)[-1] == name)


def test_deepseek_v4_bug_repeats_the_cache(runtime: dict[str, dict[str, Any]]) -> None:
    assert [f[:3] for f in static_findings("deepseek_v4_bug")[V4]] == [
        ("IL001", "buffer", "cos_sin_cache")
    ]
    result = runtime["deepseek_v4_bug"][V4]
    assert result["status"] == "ok", result
    assert _counts(result, "buffer", "cos_sin_cache") == 2
    assert _counts(result, "call", "_compute_cos_sin_cache") == 2
    repeated = {(r["kind"], r["name"]): r["count"] for r in result["repeated"]}
    assert repeated[("buffer", "cos_sin_cache")] == 2
    assert repeated[("call", "DeepseekV4ScalingRotaryEmbedding._compute_cos_sin_cache")] == 2


def test_deepseek_v4_fixed_does_the_work_once(runtime: dict[str, dict[str, Any]]) -> None:
    assert static_findings("deepseek_v4_fixed") == {}
    for cls, result in runtime["deepseek_v4_fixed"].items():
        assert result["status"] == "ok", result
        assert result["repeated"] == [], cls
    v4 = runtime["deepseek_v4_fixed"][V4]
    assert _counts(v4, "buffer", "cos_sin_cache") == 1
    assert _counts(v4, "call", "_compute_cos_sin_cache") == 1

"""The runtime oracle over real model libraries (issue 17): runtime repeats vs static findings.

For each library, construct every model class it can from default configs on the meta device
(no storage, no download), record each construction's repeats with ``trace_model``, run
``initlint check`` on the same library's sources, and compare:

- classes constructed; runtime repeats (heavy: >= 1 MiB wasted, light: below);
- static findings (of the rules that predict runtime repeats: IL001-IL003, IL005) on
  constructed classes, each on the class that runs (a
  template's finding on the generated classes it produces: ``initlint.runtime.agreement``);
- agreement: a runtime repeat linked to the static finding that predicted it;
- static-only: findings on constructed classes that no construction repeated (candidate false
  positives, or paths the default config does not take);
- runtime-only: repeats no finding predicted (candidate misses).

Libraries:

- ``transformers``: every model type of ``CONFIG_MAPPING_NAMES`` with its default config
  (``ConfigClass()``), and every class the auto mappings (``MODEL_MAPPING_NAMES`` first, then
  each ``MODEL_FOR_*_MAPPING_NAMES``) name for that type, constructed as ``ModelClass(config)``.
  The config is built outside the traced call.
- ``timm``: ``timm.create_model(name, pretrained=False)`` for up to ``--timm-per-module``
  registered model names per model module (most differ only in sizes).

Not in CI. Needs the libraries installed in this environment (nothing is downloaded: the
configs are built in code and ``HF_HUB_OFFLINE=1`` is set), e.g.
``pip install transformers==5.23.0 timm==1.0.31``, and a copy of each library's sources for
the static side (``--sources NAME=DIR``, DIR holding the top package; default: the installed
package's parent folder). Each construction has a timeout (``--timeout``, SIGALRM); failures
and timeouts are recorded, not fatal. ``--budget`` bounds each library's runtime phase: base
models come first, the task heads after, and what the budget did not reach is counted.

Usage::

    python benchmarks/runtime_oracle.py --sources transformers=/work/corpora/transformers \\
        --sources timm=/work/corpora/timm --budget 1500 --out benchmarks/results
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAVY = 1024 * 1024


class Timeout(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise Timeout(f"timed out after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---- static side --------------------------------------------------------------------------------


def static_side(package_dir: Path) -> list[Any]:
    """The findings of ``initlint check`` on the whole package (no torch, no cache) whose rules
    predict runtime repeats (``Rule.runtime_repeats``: IL001-IL003 and IL005).

    Checked with ``check-templates`` on, so that a template's findings (``modular_*.py``,
    which the default configuration skips) can be mapped to the generated classes they
    produce; the comparison tells the two apart (``initlint.runtime.agreement``)."""
    from initlint import api
    from initlint.rules.base import runtime_repeats_of
    from initlint.runtime.model_trace import StaticFinding
    from initlint.runtime.paths import normalize

    cwd = package_dir.parent
    report = api.check(
        [package_dir],
        cwd=cwd,
        options={"check-templates": True},
        plan_fixes=False,
        use_cache=False,
    )
    found = []
    for d in report.diagnostics:
        if not runtime_repeats_of(d.code):
            continue
        classes = d.classes or ((d.class_name,) if d.class_name else ())
        found.append(
            StaticFinding(d.code, normalize(cwd / d.path), d.line, d.message, tuple(classes))
        )
    return found


# ---- the torchvision of this environment -------------------------------------------------------


def torchvision_needs_schemas() -> bool:
    """Whether ``import torchvision`` fails because its C extension does not load.

    Registry torchvision wheels are CUDA builds; with a CPU torch their extension fails to load
    and torchvision 0.28 then dies registering fake kernels for ``torchvision::nms``/``qnms``.
    Only torchvision's pure-Python parts are needed to build timm or transformers models."""
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import torchvision"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
    except subprocess.TimeoutExpired:
        print("torchvision probe timed out: schemas not declared", file=sys.stderr)
        return False
    return probe.returncode != 0 and "torchvision::nms does not exist" in probe.stderr


def declare_torchvision_schemas() -> Any:
    """Declare the two operators (schemas only, no kernels: calling them still fails)."""
    import torch

    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    return lib


# ---- what to construct --------------------------------------------------------------------------


@dataclass
class Job:
    label: str  # e.g. "llama:LlamaForCausalLM"
    head: bool  # a task head (second pass), not a base model
    build: Callable[[], Callable[[], object]]  # prepares (config...) and returns the factory


def transformers_jobs() -> list[Job]:
    import transformers
    from transformers.models.auto import configuration_auto, modeling_auto

    mappings = ["MODEL_MAPPING_NAMES"] + sorted(
        n for n in dir(modeling_auto) if n.startswith("MODEL_FOR_") and n.endswith("_MAPPING_NAMES")
    )
    base: list[Job] = []
    heads: list[Job] = []
    seen: set[str] = set()
    for model_type in sorted(configuration_auto.CONFIG_MAPPING_NAMES):
        for mapping in mappings:
            names = getattr(modeling_auto, mapping).get(model_type)
            for cls_name in (names,) if isinstance(names, str) else tuple(names or ()):
                if cls_name in seen:
                    continue
                seen.add(cls_name)

                def build(
                    model_type: str = model_type, cls_name: str = cls_name
                ) -> Callable[[], object]:
                    config = configuration_auto.CONFIG_MAPPING[model_type]()
                    cls = getattr(transformers, cls_name)
                    return lambda: cls(config)

                job = Job(f"{model_type}:{cls_name}", mapping != "MODEL_MAPPING_NAMES", build)
                (heads if job.head else base).append(job)
    return base + heads


def timm_jobs(per_module: int) -> list[Job]:
    import timm
    from timm.models import _registry

    by_module: dict[str, list[str]] = {}
    for name in timm.list_models():
        module = _registry._model_to_module.get(name, "?")  # noqa: SLF001 - a read-only map
        by_module.setdefault(module, []).append(name)
    jobs = []
    for module, names in sorted(by_module.items()):
        step = max(1, len(names) // per_module)
        for i, name in enumerate(names[::step][:per_module]):

            def build(name: str = name) -> Callable[[], object]:
                return lambda: timm.create_model(name, pretrained=False)

            jobs.append(Job(f"{module}:{name}", i > 0, build))
    return sorted(jobs, key=lambda j: j.head)


# ---- runtime side -------------------------------------------------------------------------------


@dataclass
class Library:
    name: str
    package_dir: Path  # the installed package (what the traces see)
    sources: Path  # the checked copy's package dir
    findings: list[Any] = field(default_factory=list)
    static_seconds: float = 0.0
    ok: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    timed_out: list[str] = field(default_factory=list)
    not_reached: int = 0
    constructed: set[str] = field(default_factory=set)  # library classes with objects built
    mros: dict[str, list[str]] = field(default_factory=dict)  # every class traced: its MRO
    groups: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)
    runtime_seconds: float = 0.0


def mro_of(name: str) -> list[str]:
    """The MRO (qualified names) of the class a qualified name names, found in sys.modules."""
    module, _, qual = name.rpartition(".")
    while module and module not in sys.modules:
        module, _, head = module.rpartition(".")
        qual = f"{head}.{qual}"
    obj: Any = sys.modules.get(module)
    for part in qual.split("."):
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        return [name]
    return [f"{c.__module__}.{c.__qualname__}" for c in obj.__mro__]


def record(lib: Library, label: str, trace: Any, instances: dict[str, int]) -> None:
    lib.ok.append(label)
    lib.constructed.update(instances)
    for name, _ in trace.class_counts:
        if name not in lib.mros:
            lib.mros[name] = mro_of(name)
    for r in trace.repeats:
        rp = r.repeat
        key = (r.class_name, rp.kind, rp.name, rp.sites)
        group = lib.groups.setdefault(
            key,
            {
                "class": r.class_name,
                "kind": rp.kind,
                "name": rp.name,
                "sites": list(rp.sites),
                "count": rp.count,
                "max_bytes": 0,
                "models": [],
                "nested": False,
                "finding": None,
                # two owners: redone down the init chain (what the checker looks for); one: a
                # class redoing its own work, or another object's code calling it twice
                "scope": "chain" if len(set(r.owners)) > 1 else "one class",
                "mro": list(r.mro or (r.class_name,)),
                "frames": [],
                "owners": list(r.owners),
            },
        )
        group["frames"] = list(dict.fromkeys([*group["frames"], *r.frames]))
        group["max_bytes"] = max(group["max_bytes"], rp.bytes)
        group["nested"] = group["nested"] or r.nested_in is not None
        if label not in group["models"]:
            group["models"].append(label)
        if r.finding is not None and group["finding"] is None:
            group["finding"] = f"{r.finding.code} {r.finding.where}"


def run_library(lib: Library, jobs: list[Job], timeout: int, budget: float) -> None:
    from initlint.runtime import trace_model

    roots = [lib.package_dir]
    start = time.monotonic()
    for done, job in enumerate(jobs):
        if time.monotonic() - start > budget:
            lib.not_reached = len(jobs) - done
            break
        try:
            with deadline(timeout):
                factory = job.build()
                trace = trace_model(factory, device="meta", project_roots=roots, static=False)
        except Timeout:
            lib.timed_out.append(job.label)
            continue
        except Exception as exc:  # noqa: BLE001 - recorded per model
            lib.failed[job.label] = one_line(exc)
            continue
        except RecursionError as exc:
            lib.failed[job.label] = one_line(exc)
            continue
        ours = {c: n for c, n in trace.class_counts if c.startswith(lib.name + ".")}
        record(lib, job.label, trace, ours)
        del trace, factory
        if done % 50 == 0:
            gc.collect()
            print(
                f"  {lib.name}: {done + 1}/{len(jobs)} ({time.monotonic() - start:.0f} s)",
                flush=True,
            )
    lib.runtime_seconds = time.monotonic() - start


def raw_of(lib: Library) -> dict[str, Any]:
    """What the run found, before any comparison: findings, classes with MROs, repeat groups."""
    return {
        "library": lib.name,
        "package_dir": str(lib.package_dir),
        "sources": str(lib.sources),
        "findings": [
            {
                "code": f.code,
                "path": f.path,
                "line": f.line,
                "message": f.message,
                "classes": list(f.classes),
            }
            for f in lib.findings
        ],
        "constructed": {c: lib.mros.get(c, [c]) for c in sorted(lib.constructed)},
        "groups": list(lib.groups.values()),
        "ok": lib.ok,
        "failed": lib.failed,
        "timed_out": lib.timed_out,
        "not_reached": lib.not_reached,
        "static_seconds": round(lib.static_seconds, 1),
        "runtime_seconds": round(lib.runtime_seconds, 1),
    }


# ---- comparison ---------------------------------------------------------------------------------


def compare(raw: dict[str, Any]) -> dict[str, Any]:
    """The comparison of one library's raw results (``initlint.runtime.agreement``)."""
    from initlint.runtime.agreement import ClassMapper, RuntimeGroup
    from initlint.runtime.agreement import compare as match
    from initlint.runtime.model_trace import StaticFinding
    from initlint.runtime.paths import normalize

    sources = Path(raw["sources"])
    mapper = ClassMapper(sources.parent)
    findings = [
        mapper.map(
            StaticFinding(f["code"], f["path"], f["line"], f["message"], tuple(f["classes"]))
        )
        for f in raw["findings"]
    ]
    groups = [
        RuntimeGroup(
            g["class"], tuple(g["mro"]), g["kind"], g["name"], tuple(g["frames"]), g["max_bytes"], g
        )
        for g in raw["groups"]
    ]
    path_map = {normalize(sources): normalize(raw["package_dir"])}
    every = match(findings, groups, raw["constructed"], path_map=path_map)
    default = match(
        [f for f in findings if not f.template], groups, raw["constructed"], path_map=path_map
    )

    def group_row(g: RuntimeGroup, finding: Any = None) -> dict[str, Any]:
        row = {k: v for k, v in g.data.items() if k not in ("mro", "frames")}
        row["finding"] = None if finding is None else f"{finding.finding.code} {finding.where}"
        row["finding_in_template"] = None if finding is None else finding.template
        return row

    def finding_row(f: Any) -> dict[str, Any]:
        return {
            "code": f.finding.code,
            "where": f.where,
            "classes": list(f.finding.classes),
            "runs_as": list(f.runs_as),
            "template": f.template,
            "message": f.finding.message,
        }

    heavy = [g for g in groups if g.bytes >= HEAVY]
    runtime_only = every.runtime_only
    return {
        "library": raw["library"],
        "models_attempted": len(raw["ok"]) + len(raw["failed"]) + len(raw["timed_out"]),
        "models_constructed": len(raw["ok"]),
        "models_failed": len(raw["failed"]),
        "models_timed_out": len(raw["timed_out"]),
        "models_not_reached": raw["not_reached"],
        "classes_constructed": len(raw["constructed"]),
        "runtime_repeats": len(groups),
        "runtime_heavy": len(heavy),
        "runtime_light": len(groups) - len(heavy),
        "runtime_nested": sum(1 for g in groups if g.data["nested"]),
        "static_findings_total": len(findings),
        "static_findings_default": sum(1 for f in findings if not f.template),
        "static_findings_templates": sum(1 for f in findings if f.template),
        "static_on_constructed": len(every.on_constructed),
        "static_on_constructed_default": len(default.on_constructed),
        "agreement_repeats": len(every.agreement),
        "agreement_findings": len(every.findings_agreeing),
        "agreement_repeats_default": len(default.agreement),
        "agreement_findings_default": len(default.findings_agreeing),
        "static_only": len(every.static_only),
        "static_only_default": len(default.static_only),
        "runtime_only": len(runtime_only),
        "runtime_only_default": len(default.runtime_only),
        "runtime_only_heavy": sum(1 for g in runtime_only if g.bytes >= HEAVY),
        "runtime_only_chain": sum(1 for g in runtime_only if g.data["scope"] == "chain"),
        "runtime_only_chain_storage": sum(
            1 for g in runtime_only if g.data["scope"] == "chain" and g.kind != "call"
        ),
        "static_seconds": raw["static_seconds"],
        "runtime_seconds": raw["runtime_seconds"],
        "by_code": _by_code(default),
        "lists": {
            "agreement": sorted(
                (group_row(g, f) for g, f in every.agreement), key=lambda r: -r["max_bytes"]
            ),
            "runtime_only": sorted(
                (group_row(g) for g in runtime_only),
                key=lambda r: (r["scope"] != "chain", -r["max_bytes"]),
            ),
            "static_only": [finding_row(f) for f in every.static_only],
            "failed": raw["failed"],
            "timed_out": raw["timed_out"],
        },
    }


def _by_code(comparison: Any) -> dict[str, dict[str, int]]:
    """Per rule code, with the default configuration's findings: how many sit on a
    constructed class, how many predicted a repeat, how many (of them errors) did not, and
    how many repeats (of them heavy) each code's findings predicted."""
    out: dict[str, dict[str, int]] = {}

    def row(code: str) -> dict[str, int]:
        keys = ("on_constructed", "agreeing", "static_only", "repeats", "heavy_repeats")
        return out.setdefault(code, dict.fromkeys(keys, 0))

    for f in comparison.on_constructed:
        row(f.finding.code)["on_constructed"] += 1
    for f in comparison.findings_agreeing:
        row(f.finding.code)["agreeing"] += 1
    for f in comparison.static_only:
        row(f.finding.code)["static_only"] += 1
    for g, f in comparison.agreement:
        row(f.finding.code)["repeats"] += 1
        row(f.finding.code)["heavy_repeats"] += g.bytes >= HEAVY
    return dict(sorted(out.items()))


def size(n: int) -> str:
    from initlint.runtime.render import format_bytes

    return format_bytes(n)


def markdown(results: list[dict[str, Any]], command: str) -> str:
    keys = [
        ("models attempted", "models_attempted"),
        ("models constructed", "models_constructed"),
        ("models failed (exception)", "models_failed"),
        ("models timed out", "models_timed_out"),
        ("models not reached (budget)", "models_not_reached"),
        ("classes constructed", "classes_constructed"),
        ("runtime repeats (class, kind, name, sites)", "runtime_repeats"),
        ("  heavy (>= 1 MiB wasted)", "runtime_heavy"),
        ("  light", "runtime_light"),
        ("  nested in a replaced submodule", "runtime_nested"),
        ("static findings (repeat rules), templates included", "static_findings_total"),
        ("  of which the default config reports (not in a template)", "static_findings_default"),
        ("  of which in templates (mapped to generated classes)", "static_findings_templates"),
        ("static findings on constructed classes", "static_on_constructed"),
        ("  default config only", "static_on_constructed_default"),
        ("agreement: repeats linked to a finding", "agreement_repeats"),
        ("  default config only", "agreement_repeats_default"),
        ("agreement: findings linked to a repeat", "agreement_findings"),
        ("  default config only", "agreement_findings_default"),
        ("static-only findings", "static_only"),
        ("  default config only", "static_only_default"),
        ("runtime-only repeats", "runtime_only"),
        ("  with the default config's findings only", "runtime_only_default"),
        ("  of which heavy", "runtime_only_heavy"),
        ("  of which down the init chain (two owners)", "runtime_only_chain"),
        ("  of which chain storage (not a call)", "runtime_only_chain_storage"),
        ("static check seconds", "static_seconds"),
        ("runtime phase seconds", "runtime_seconds"),
    ]
    out = [
        "# Runtime oracle: runtime repeats on the meta device vs `initlint check`",
        "",
        f"Command: `{command}`",
        "",
        "| | " + " | ".join(r["library"] for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]
    for label, key in keys:
        out.append(f"| {label} | " + " | ".join(str(r[key]) for r in results) + " |")
    out += ["", "Per rule code (default configuration: templates not reported):", ""]
    out += ["| library | code | on constructed | agreeing | static-only | repeats (heavy) |"]
    out += ["|---|---|---|---|---|---|"]
    for r in results:
        for code, n in r.get("by_code", {}).items():
            out.append(
                f"| {r['library']} | {code} | {n['on_constructed']} | {n['agreeing']} | "
                f"{n['static_only']} | {n['repeats']} ({n['heavy_repeats']}) |"
            )
    for r in results:
        lists = r["lists"]
        out += ["", f"## {r['library']}", "", "### agreement (first 40)", ""]
        for g in lists["agreement"][:40]:
            out.append(_group_line(g))
        out += ["", "### runtime-only (first 60: down the init chain first, most bytes first)", ""]
        for g in lists["runtime_only"][:60]:
            out.append(_group_line(g))
        out += ["", "### static-only (first 60)", ""]
        for f in lists["static_only"][:60]:
            runs = ", ".join(f["runs_as"]) or "no generated class"
            origin = " (template)" if f["template"] else ""
            out.append(f"- {f['code']} `{_short(f['where'])}`{origin} runs as {runs}")
        out += ["", f"### failed ({len(lists['failed'])}; first 30)", ""]
        for label, why in list(lists["failed"].items())[:30]:
            out.append(f"- {label}: {why}")
        if lists["timed_out"]:
            out += ["", f"### timed out ({len(lists['timed_out'])})", ""]
            out += [f"- {label}" for label in lists["timed_out"]]
    return "\n".join(out) + "\n"


def _short(where: str) -> str:
    for marker in ("site-packages/", "/corpora/"):
        if marker in where:
            return where.split(marker, 1)[1]
    return where


def _group_line(g: dict[str, Any]) -> str:
    sites = ", ".join(dict.fromkeys(_short(s) for s in g["sites"]))
    finding = f" <- {_short(g['finding'])}" if g["finding"] else ""
    nested = " (nested)" if g["nested"] else ""
    return (
        f"- [{g['scope']}] `{g['class']}` {g['kind']} `{g['name']}` x{g['count']}{nested}, "
        f"{size(g['max_bytes'])}, in {len(g['models'])} model(s) e.g. {g['models'][0]}; "
        f"sites {sites}{finding}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", action="append", choices=["transformers", "timm"])
    parser.add_argument("--sources", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per construction")
    parser.add_argument(
        "--budget", type=float, default=float("inf"), help="seconds of runtime phase per library"
    )
    parser.add_argument("--limit", type=int, default=0, help="at most N models per library")
    parser.add_argument("--timm-per-module", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument(
        "--raw",
        type=Path,
        help="where the raw results go (default: OUT/runtime_oracle_raw.json)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="RAW",
        help="construct nothing: redo the comparison and the report from a raw results file",
    )
    parser.add_argument(
        "--static",
        choices=["run", "skip", "only"],
        default="run",
        help="the static side: run it (default), skip it (runtime only: merge findings later "
        "with --compare RAW --findings F), or only it (write the findings to --findings)",
    )
    parser.add_argument(
        "--findings", type=Path, help="static findings file: written by --static only, read"
    )
    parser.add_argument(
        "--torchvision-schemas",
        choices=["auto", "yes", "no"],
        default="auto",
        help="declare torchvision's two operator schemas: auto probes in a subprocess",
    )
    args = parser.parse_args()
    if args.compare:
        data = json.loads(args.compare.read_text())
        raws = data["libraries"]
        if args.findings:
            static = json.loads(args.findings.read_text())
            for raw in raws:
                found = static.get(raw["library"])
                if found is not None:
                    raw["findings"] = found["findings"]
                    raw["static_seconds"] = found["static_seconds"]
                    raw["sources"] = found["sources"]
        return report(raws, args, data["command"])
    command = f"python benchmarks/runtime_oracle.py {' '.join(sys.argv[1:])}"
    names = args.library or ["transformers", "timm"]
    sources = dict(s.split("=", 1) for s in args.sources)

    import importlib.util

    libs = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            print(f"{name} is not installed here; skipped", file=sys.stderr)
            continue
        package_dir = Path(list(spec.submodule_search_locations)[0]).resolve()
        source_root = Path(sources.get(name, package_dir.parent)) / name
        libs.append(Library(name, package_dir, source_root.resolve()))

    # Static side first: the checker's process pool forks before torch is loaded.
    for lib in libs:
        if args.static == "skip":
            continue
        start = time.monotonic()
        lib.findings = static_side(lib.sources)
        lib.static_seconds = time.monotonic() - start
        print(
            f"{lib.name}: {len(lib.findings)} static findings in {lib.static_seconds:.0f} s",
            flush=True,
        )

    if args.static == "only":
        out = args.findings or args.out / "runtime_oracle_findings.json"
        out.write_text(json.dumps({lib.name: raw_of(lib) for lib in libs}, default=str))
        return 0
    declare = args.torchvision_schemas
    if declare == "auto":
        declare = "yes" if torchvision_needs_schemas() else "no"
    keep = declare_torchvision_schemas() if declare == "yes" else None
    raws: list[dict[str, Any]] = []
    for lib in libs:
        try:
            jobs = (
                transformers_jobs()
                if lib.name == "transformers"
                else timm_jobs(args.timm_per_module)
            )
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            continue
        if args.limit:
            jobs = jobs[: args.limit]
        print(f"{lib.name}: {len(jobs)} models to construct", flush=True)
        run_library(lib, jobs, args.timeout, args.budget)
        raws.append(raw_of(lib))
    del keep
    args.out.mkdir(parents=True, exist_ok=True)
    # The raw side first: the comparison can be redone from it (--compare) without a rerun.
    raw_path = args.raw or args.out / "runtime_oracle_raw.json"
    raw_path.write_text(json.dumps({"command": command, "libraries": raws}, default=str))
    return report(raws, args, command)


def report(raws: list[dict[str, Any]], args: argparse.Namespace, command: str) -> int:
    results = [compare(raw) for raw in raws]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "runtime_oracle.json").write_text(json.dumps(results, indent=1, default=str))
    (args.out / "runtime_oracle.md").write_text(markdown(results, command))
    print(markdown(results, command).split("\n## ")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())

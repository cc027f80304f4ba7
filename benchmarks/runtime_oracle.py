"""The runtime oracle over real model libraries (issue 17): runtime repeats vs static findings.

For each library, construct every model class it can from default configs on the meta device
(no storage, no download), record each construction's repeats with ``trace_model``, run
``initlint check`` on the same library's sources, and compare:

- classes constructed; runtime repeats (heavy: >= 1 MiB wasted, light: below);
- static findings (IL001-IL003) on constructed classes;
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
    """IL001-IL003 findings of ``initlint check`` on the whole package (no torch, no cache)."""
    from initlint.engine import analyze
    from initlint.runtime.model_trace import StaticFinding
    from initlint.runtime.paths import normalize

    cwd = package_dir.parent
    analysis = analyze([package_dir], cwd=cwd, use_cache=False, progress=False)
    found = []
    for d in analysis.diagnostics:
        if d.code not in ("IL001", "IL002", "IL003"):
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
    probe = subprocess.run(
        [sys.executable, "-c", "import torchvision"], capture_output=True, text=True, timeout=300
    )
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
    groups: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)
    runtime_seconds: float = 0.0


def record(lib: Library, label: str, trace: Any, instances: dict[str, int]) -> None:
    lib.ok.append(label)
    lib.constructed.update(instances)
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
            },
        )
        group["max_bytes"] = max(group["max_bytes"], rp.bytes)
        group["nested"] = group["nested"] or r.nested_in is not None
        if label not in group["models"]:
            group["models"].append(label)
        if r.finding is not None and group["finding"] is None:
            group["finding"] = f"{r.finding.code} {r.finding.where}"


def run_library(lib: Library, jobs: list[Job], timeout: int, budget: float) -> None:
    from initlint.runtime import link_findings, trace_model
    from initlint.runtime.paths import normalize

    path_map = {normalize(lib.sources): normalize(lib.package_dir)}
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
        trace = link_findings(trace, lib.findings, path_map=path_map)
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


# ---- comparison ---------------------------------------------------------------------------------


def compare(lib: Library) -> dict[str, Any]:
    constructed = lib.constructed
    on_constructed = [f for f in lib.findings if any(c in constructed for c in f.classes)]
    linked = {g["finding"] for g in lib.groups.values() if g["finding"]}
    static_only = [
        f for f in on_constructed if f"{f.code} {map_path(lib, f.path)}:{f.line}" not in linked
    ]
    groups = list(lib.groups.values())
    agree = [g for g in groups if g["finding"]]
    runtime_only = [g for g in groups if not g["finding"]]
    heavy = [g for g in groups if g["max_bytes"] >= HEAVY]
    return {
        "library": lib.name,
        "models_attempted": len(lib.ok) + len(lib.failed) + len(lib.timed_out),
        "models_constructed": len(lib.ok),
        "models_failed": len(lib.failed),
        "models_timed_out": len(lib.timed_out),
        "models_not_reached": lib.not_reached,
        "classes_constructed": len(constructed),
        "runtime_repeats": len(groups),
        "runtime_heavy": len(heavy),
        "runtime_light": len(groups) - len(heavy),
        "runtime_nested": sum(1 for g in groups if g["nested"]),
        "static_findings_total": len(lib.findings),
        "static_on_constructed": len(on_constructed),
        "agreement_repeats": len(agree),
        "agreement_findings": len(linked),
        "static_only": len(static_only),
        "runtime_only": len(runtime_only),
        "runtime_only_heavy": sum(1 for g in runtime_only if g["max_bytes"] >= HEAVY),
        "runtime_only_chain": sum(1 for g in runtime_only if g["scope"] == "chain"),
        "runtime_only_chain_storage": sum(
            1 for g in runtime_only if g["scope"] == "chain" and g["kind"] != "call"
        ),
        "static_seconds": round(lib.static_seconds, 1),
        "runtime_seconds": round(lib.runtime_seconds, 1),
        "lists": {
            "agreement": sorted(agree, key=lambda g: -g["max_bytes"]),
            "runtime_only": sorted(
                runtime_only, key=lambda g: (g["scope"] != "chain", -g["max_bytes"])
            ),
            "static_only": [
                {
                    "code": f.code,
                    "where": f"{f.path}:{f.line}",
                    "classes": list(f.classes),
                    "message": f.message,
                }
                for f in static_only
            ],
            "failed": lib.failed,
            "timed_out": lib.timed_out,
        },
    }


def map_path(lib: Library, path: str) -> str:
    from initlint.runtime.paths import normalize

    old, new = normalize(lib.sources), normalize(lib.package_dir)
    return new + path[len(old) :] if path.startswith(old) else path


def size(n: int) -> str:
    from initlint.runtime.render import format_bytes

    return format_bytes(n)


def markdown(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
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
        ("static findings IL001-IL003 (whole library)", "static_findings_total"),
        ("static findings on constructed classes", "static_on_constructed"),
        ("agreement: repeats linked to a finding", "agreement_repeats"),
        ("agreement: findings linked to a repeat", "agreement_findings"),
        ("static-only findings", "static_only"),
        ("runtime-only repeats", "runtime_only"),
        ("  of which heavy", "runtime_only_heavy"),
        ("  of which down the init chain (two owners)", "runtime_only_chain"),
        ("  of which chain storage (not a call)", "runtime_only_chain_storage"),
        ("static check seconds", "static_seconds"),
        ("runtime phase seconds", "runtime_seconds"),
    ]
    out = [
        "# Runtime oracle: runtime repeats on the meta device vs `initlint check`",
        "",
        f"Command: `python benchmarks/runtime_oracle.py {' '.join(sys.argv[1:])}`",
        "",
        "| | " + " | ".join(r["library"] for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]
    for label, key in keys:
        out.append(f"| {label} | " + " | ".join(str(r[key]) for r in results) + " |")
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
            out.append(f"- {f['code']} `{_short(f['where'])}` {', '.join(f['classes'])}")
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
    args = parser.parse_args()
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
        start = time.monotonic()
        lib.findings = static_side(lib.sources)
        lib.static_seconds = time.monotonic() - start
        print(
            f"{lib.name}: {len(lib.findings)} static findings in {lib.static_seconds:.0f} s",
            flush=True,
        )

    keep = declare_torchvision_schemas() if torchvision_needs_schemas() else None
    results = []
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
        results.append(compare(lib))
    del keep
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "runtime_oracle.json").write_text(json.dumps(results, indent=1, default=str))
    (args.out / "runtime_oracle.md").write_text(markdown(results, args))
    print(markdown(results, args).split("\n## ")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())

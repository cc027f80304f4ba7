"""Does each mechanism that exists only for speed pay for itself (issue 30)?

Not part of the test suite. For every such mechanism a "without" variant runs ``initlint
check`` in a fresh process through a small launcher (``python -c``) that switches the
mechanism off by monkeypatching before initlint's modules use it, and falls back to the
standard library's plain way; initlint's code is not changed. The "with" variant runs
through the same launcher with nothing patched. Variants:

- ``records``: ``initlint.records`` replaced, before anything imports it, by a module whose
  ``dataclass`` is ``dataclasses.dataclass`` (``field_values``: ``attrgetter`` over the
  fields);
- ``split``: ``split.check_in_two`` / ``split.attach_in_two`` replaced, before the driver
  imports them, by the plain loop (this process checks every file / attaches every fix);
- ``gc``: ``gctune.no_collections`` an identity decorator and ``gctune.age_objects`` a no-op
  (before the driver imports them), and ``cli._no_collections`` a ``nullcontext``;
- ``exit``: the launcher calls ``initlint.cli.main()`` instead of ``initlint.cli.run()``
  (no ``os._exit`` after a finished check: a normal interpreter exit; forked children keep
  theirs);
- ``skeleton``: ``skeleton.skeleton`` returns None, so every file takes the existing path
  for an unreadable skeleton: the whole text is parsed;
- ``partial`` (JSON runs only: the fixer renders edits only for ``--format json``/``sarif``):
  ``transform.rewrite_parts`` returns None, so every fix takes the whole-source libcst parse.

The fork pool and the walk cache were measured too (results/speed_mechanisms.md) and did not
pay: the code now has the plain way, so there is nothing left to switch off.

Each round runs, in an order rotated from round to round, every variant cold (the
``.initlint_cache`` folder removed first: a user's first run, which writes the cache) and
then warm (one file, a module defining classes of median size, gets a new comment line
appended), and ``ruff check --select F`` on the same tree. The tree is copied to a scratch
folder first. Medians, the difference (without - with) / with, and ratios to ruff are
written to ``speed_mechanisms.md`` and ``.json`` in ``--out-dir``.

Usage::

    python benchmarks/speed_mechanisms.py /work/corpora/vllm --target vllm --rounds 5
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from check_speed import pick_file_to_edit, python_files, wait_tree  # noqa: E402

THRESHOLD = 0.05  # issue 30: a mechanism stays if removing it makes a run this much slower

# A module read from its file and put in sys.modules before initlint's own imports reach it,
# so that a ``from ... import name`` elsewhere gets the patched name.
PRELOAD = """
import importlib.util, pathlib
def preload(name):
    import initlint
    path = pathlib.Path(initlint.__file__).parent.joinpath(*name.split(".")[1:])
    spec = importlib.util.spec_from_file_location(name, path.with_suffix(".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
"""

PATCHES: dict[str, tuple[str, str]] = {
    # name: (what it switches off, the launcher's patch code)
    "records": (
        "records.py (dataclass built without exec)",
        """
import types, dataclasses, operator
m = types.ModuleType("initlint.records")
m.dataclass = dataclasses.dataclass
def field_values(cls):
    names = [f.name for f in dataclasses.fields(cls)]
    get = operator.attrgetter(*names) if names else (lambda o: ())
    return get if len(names) != 1 else (lambda o: (get(o),))
m.field_values = field_values
import initlint
sys.modules["initlint.records"] = m
""",
    ),
    "split": (
        "forked second half (driver/split.py)",
        PRELOAD
        + """
s = preload("initlint.driver.split")
def check_in_two(rest, run, with_plans):
    for f in rest:
        run.check(f)
s.check_in_two = check_in_two
s.attach_in_two = lambda diags, attach, cache: attach(diags)
""",
    ),
    "gc": (
        "GC tuning (driver/gctune.py, cli._no_collections)",
        PRELOAD
        + """
import contextlib
g = preload("initlint.driver.gctune")
g.no_collections = lambda fn: fn
g.age_objects = lambda: None
import initlint.cli
initlint.cli._no_collections = contextlib.nullcontext
""",
    ),
    "exit": ("os._exit at the end (cli.run)", ""),
    "skeleton": (
        "skeleton parse (facts/skeleton.py)",
        PRELOAD
        + """
k = preload("initlint.facts.skeleton")
k.skeleton = lambda text: None
""",
    ),
    "partial": (
        "fixer's partial parse (fix/partial_parse.py)",
        """
import initlint.fix.transform as t
t.rewrite_parts = lambda source, ops: None
""",
    ),
}
# The launcher's patches import modules a check would import under cli._no_collections
# (GC off) anyway; they do so with GC off too, so that only the mechanism differs. Not for
# ``gc`` (that is the point) nor ``partial`` (libcst is imported with GC on in a check).
GC_OFF_WHILE_PATCHING = {"records", "split", "skeleton"}


def launcher(variant: str, argv: list[str]) -> list[str]:
    patch = PATCHES[variant][1] if variant in PATCHES else ""
    if variant in GC_OFF_WHILE_PATCHING:
        patch = "import gc\ngc.disable()\n" + patch + "\ngc.enable()\n"
    entry = "main" if variant == "exit" else "run"
    code = (
        f"import sys\nsys.argv = {['initlint', *argv]!r}\n{patch}\n"
        f"from initlint.cli import {entry}\n{entry}()\n"
    )
    return [sys.executable, "-c", code]


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Wall time, CPU time of the process tree, exit status and a hash of stdout."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.PIPE, env=env)
        seconds, status, usage = wait_tree(proc, start, timeout, poll=0.002)
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        out.seek(0)
        digest = hashlib.sha256(out.read()).hexdigest()[:16]
    if "Traceback (most recent call last)" in err:
        print(f"  ! traceback:\n{err[-3000:]}")
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "status": os.waitstatus_to_exitcode(status),
        "stdout_sha": digest,
        "load1": os.getloadavg()[0],
    }


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path, help="folder holding the target (copied first)")
    ap.add_argument("--target", default="vllm")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variants", default="base,records,split,gc,exit,skeleton")
    ap.add_argument("--json-variants", default="base,split,partial")
    ap.add_argument("--ruff", default=shutil.which("ruff") or "ruff")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out-dir", type=Path, default=REPO / "benchmarks" / "results")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--render", type=Path, help="only print the table of a saved JSON report")
    args = ap.parse_args()
    if args.render:
        print(render(json.loads(args.render.read_text())))
        return

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    work = args.work or Path(tempfile.mkdtemp(prefix="speedab-"))
    root = work / "tree"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(args.source / args.target, root / args.target)
    files = python_files(root / args.target)
    edit = pick_file_to_edit(files)
    original = edit.read_bytes()
    print(f"tree {root}: {len(files)} files; warm runs edit {edit.relative_to(root)}")

    series: list[tuple[str, str, list[str]]] = []  # (name, variant, argv)
    base_argv = ["check", "--exit-zero", "--jobs", str(args.jobs), args.target]
    json_argv = ["check", "--exit-zero", "--jobs", str(args.jobs), "--format", "json"]
    json_argv.append(args.target)
    for v in args.variants.split(","):
        series.append((f"text {v}", v, base_argv))
    for v in args.json_variants.split(",") if args.json_variants else []:
        series.append((f"json {v}", v, json_argv))
    samples: dict[str, list[dict[str, Any]]] = {}
    ruff_cmd = [args.ruff, "check", "--select", "F", "--no-cache", "--exit-zero", "--quiet"]
    ruff_cmd.append(args.target)
    # a first run of each, not counted: bytecode written, files in the page cache
    for _name, v, argv in series[:1]:
        shutil.rmtree(root / ".initlint_cache", ignore_errors=True)
        run(launcher(v, argv), root, env, args.timeout)
    load_before = os.getloadavg()
    edits = 0
    try:
        for r in range(args.rounds):
            k = r % len(series)
            order = series[k:] + series[:k]
            for name, v, argv in order:
                shutil.rmtree(root / ".initlint_cache", ignore_errors=True)
                cold = run(launcher(v, argv), root, env, args.timeout)
                edits += 1
                edit.write_bytes(original + f"\n# speed_mechanisms edit {edits}\n".encode())
                warm = run(launcher(v, argv), root, env, args.timeout)
                samples.setdefault(f"{name} cold", []).append(cold)
                samples.setdefault(f"{name} warm", []).append(warm)
                print(
                    f"round {r + 1} {name:16s} cold {cold['seconds']:6.2f} s "
                    f"(cpu {cold['cpu']:6.2f})  warm {warm['seconds']:6.2f} s "
                    f"(cpu {warm['cpu']:6.2f})  load {warm['load1']:.2f}  "
                    f"out {cold['stdout_sha']} {warm['stdout_sha']}",
                    flush=True,
                )
            ruff = run(ruff_cmd, root, env, args.timeout)
            samples.setdefault("ruff", []).append(ruff)
            print(f"round {r + 1} ruff --select F {ruff['seconds']:6.2f} s", flush=True)
    finally:
        edit.write_bytes(original)
    load_after = os.getloadavg()
    report = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "argv": sys.argv,
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "files": len(files),
        "edited": str(edit.relative_to(root)),
        "rounds": args.rounds,
        "jobs": args.jobs,
        "launchers": {v: launcher(v, ["..."])[2] for _, v, _ in series},
        "samples": samples,
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "speed_mechanisms.json").write_text(json.dumps(report, indent=1) + "\n")
    print(render(report))


def render(report: dict[str, Any]) -> str:
    """The table: per mechanism and run kind, medians with (A) and without (B) it, wall and
    CPU (user + system of the process tree: steadier on a shared machine)."""
    s = report["samples"]
    ruff = median([x["seconds"] for x in s["ruff"]])
    out = [
        "| mechanism | run | with s (A) | without s (B) | (B - A)/A | paired median "
        "| A / ruff | B / ruff | with CPU s | without CPU s | CPU (B - A)/A | output same |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    names = dict.fromkeys(k.split()[1] for k in s if k != "ruff" and k.split()[1] != "base")
    for name in names:
        for fmt in ("text", "json"):
            for kind in ("cold", "warm"):
                a, b = s.get(f"{fmt} base {kind}"), s.get(f"{fmt} {name} {kind}")
                if not a or not b:
                    continue
                ma, mb = median([x["seconds"] for x in a]), median([x["seconds"] for x in b])
                ca, cb = median([x["cpu"] for x in a]), median([x["cpu"] for x in b])
                paired = median(
                    [
                        (y["seconds"] - x["seconds"]) / x["seconds"]
                        for x, y in zip(a, b, strict=True)
                    ]
                )
                same = {x["stdout_sha"] for x in a} == {y["stdout_sha"] for y in b}
                out.append(
                    f"| {name} | {fmt} {kind} | {ma:.2f} | {mb:.2f} "
                    f"| {100 * (mb - ma) / ma:+.1f} % | {100 * paired:+.1f} % "
                    f"| {ma / ruff:.1f} | {mb / ruff:.1f} | {ca:.2f} | {cb:.2f} "
                    f"| {100 * (cb - ca) / ca:+.1f} % | {'yes' if same else 'NO'} |"
                )
    out.append(f"\nruff --select F: median {ruff:.2f} s over {len(s['ruff'])} rounds")
    return "\n".join(out)


if __name__ == "__main__":
    main()

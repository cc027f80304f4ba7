"""Speed of ``initlint check`` against peers on the same files, as ratios (issue 7).

Not part of the test suite, and it downloads nothing. Give it a source tree, for instance the
Python files of vLLM 0.33 or transformers, unpacked from their wheels::

    pip download --no-deps -d /tmp/whl vllm==0.33.0 transformers==5.23.0
    for w in vllm transformers; do
        mkdir -p /tmp/corpora/$w && unzip -q -o /tmp/whl/$w-*.whl '*.py' -d /tmp/corpora/$w
    done

and the peers in a separate virtual environment (they are not initlint's dependencies)::

    python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install ruff fixit libcst

Usage::

    python benchmarks/check_speed.py /tmp/corpora/vllm \\
        --target vllm/model_executor/layers --target vllm --curve vllm \\
        --ruff /tmp/benchvenv/bin/ruff --fixit /tmp/benchvenv/bin/fixit \\
        --libcst-python /tmp/benchvenv/bin/python

The tree is copied to a scratch folder first (a warm run edits a file there; the original is
never touched), and that copy is the project root. For every ``--target`` (a folder or file
inside the tree) it runs, interleaved round by round so that a busy machine slows them all
alike, each as a subprocess:

- ``floor``: one process calling ``libcst.parse_module`` on every file of the target;
- ``initlint cold``: ``initlint check TARGET`` with the cache folder removed first;
- ``initlint warm``: the same right after, once one file of the target got new content (a
  comment line appended), so that the run re-parses that one file only;
- ``ruff``: ``ruff check --select F --no-cache TARGET``;
- ``fixit``: ``fixit --rules <one rule> lint TARGET``;
- with ``--formats text,json`` (or ``sarif``): ``initlint json cold`` and ``initlint json
  warm``, the same runs with ``--format json``, and their ratios to the text runs (issue 18's
  targets: cold ≤ 1.3×, warm ≤ 2×; ``--format-cold-target`` / ``--format-warm-target``).

It reports the median wall time of each, the ratios to the floor, the CPU time, and the peak
RSS (the largest process of each run's tree, from ``wait4``). ``--curve TARGET`` also times
cold runs and the floor on copies holding 25, 50 and 100 % of that target's files (every 4th,
every 2nd, all, in path order) to show how the cost grows with the number of files. A peer
whose executable is missing is skipped, and the report says so.

``--venv PATH`` measures a plugin-shaped project (issue 15): the copy gets a ``.venv`` in its
root, a link to PATH (a venv-shaped folder, e.g. one whose site-packages holds vLLM 0.33 and
torch 2.13), and ``VIRTUAL_ENV``/``CONDA_PREFIX`` are cleared, so that initlint reads the
installed ancestors from it; the floor and the peers still cover the project's own files only.
A plugin-shaped tree from the vLLM wheel (the project's own files subclass vLLM's classes)::

    mkdir -p /tmp/plugin
    cp -r /tmp/corpora/vllm/vllm/model_executor/layers /tmp/plugin/oot_layers
    S=/tmp/pluginvenv/lib/python3.11/site-packages && mkdir -p $S/vllm-0.33.0.dist-info
    printf 'home = /usr/bin\nversion = 3.11.7\n' > /tmp/pluginvenv/pyvenv.cfg
    ln -s /tmp/corpora/vllm/vllm $S/vllm && ln -s "$(python -c 'import torch,os;
    print(os.path.dirname(torch.__file__))')" $S/torch
    python benchmarks/check_speed.py /tmp/plugin --target oot_layers --venv /tmp/pluginvenv

Writes ``check_speed.json`` and ``check_speed.md`` to ``--out-dir`` (default
benchmarks/results/).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
FIXIT_RULE = "fixit.rules.no_redundant_arguments_super"
TARGETS = {"cold": 0.10, "warm": 0.02}  # issue 7: initlint time / floor time at most
VENV_TARGETS = {"cold": 0.15, "warm": 0.02}  # issue 15: with installed ancestors (--venv)
RSS_LIMIT_MIB = 600.0

FLOOR = """
import sys, libcst
errors = 0
for line in open(sys.argv[1], encoding="utf-8"):
    with open(line.rstrip("\\n"), "rb") as fh:
        data = fh.read()
    try:
        libcst.parse_module(data)
    except Exception:
        errors += 1
print(f"libcst floor: {errors} files libcst could not parse", file=sys.stderr)
"""


@dataclass
class Sample:
    seconds: float
    cpu: float  # user + system seconds of the whole process tree
    rss_mib: float  # peak RSS of the largest process in the tree
    status: int


@dataclass
class Series:
    name: str
    command: list[str]
    samples: list[Sample] = field(default_factory=list)
    skipped: str = ""

    def median(self, attr: str = "seconds") -> float:
        values = [getattr(s, attr) for s in self.samples]
        return statistics.median(values) if values else float("nan")


ENV: dict[str, str] = {}  # set in main(): bytecode caching on, for every tool alike


def wait_tree(
    proc: subprocess.Popen[bytes], start: float, timeout: float, poll: float = 0.005
) -> tuple[float, int, Any]:
    """Wait for ``proc`` (killed past ``timeout``): the seconds since ``start``, its wait
    status and the resource usage of its process tree (``os.wait4``)."""
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(poll)
    return time.perf_counter() - start, status, usage


def run(command: list[str], cwd: Path, timeout: float) -> Sample:
    """Run one command; wall time, CPU time and peak RSS of its process tree (wait4)."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(
            command, cwd=cwd, stdout=devnull, stderr=subprocess.PIPE, env=ENV or None
        )
        seconds, status, usage = wait_tree(proc, start, timeout)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    if "Traceback (most recent call last)" in err:
        print(f"  ! {' '.join(command[:3])}...: traceback in stderr:\n{err[-2000:]}")
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    scale = 1 / (1024 * 1024) if sys.platform == "darwin" else 1 / 1024
    return Sample(
        seconds=seconds,
        cpu=usage.ru_utime + usage.ru_stime,
        rss_mib=usage.ru_maxrss * scale,
        status=proc.returncode,
    )


def python_files(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != ".initlint_cache")
        out.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return out


def copy_tree(source: Path, dest: Path, files: list[Path] | None = None) -> None:
    """Copy the Python files of ``source`` (or only ``files``, paths inside it) to ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for path in files if files is not None else python_files(source):
        rel = path.relative_to(source)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel)
    # The copy is the project root (initlint looks for pyproject.toml first).
    (dest / "pyproject.toml").write_text('[project]\nname = "check-speed-corpus"\nversion = "0"\n')


def pick_file_to_edit(files: list[Path]) -> Path:
    """A file that defines classes, of median size among those: deterministic."""
    with_classes = [f for f in files if b"\nclass " in f.read_bytes()] or files
    with_classes.sort(key=lambda f: (f.stat().st_size, str(f)))
    return with_classes[len(with_classes) // 2]


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.edits = 0

    def initlint_cmd(self, root: Path, target: str, fmt: str = "text") -> list[str]:
        cmd = [*self.args.initlint, "check", "--exit-zero", target]
        if fmt != "text":
            cmd[-1:-1] = ["--format", fmt]
        if self.args.jobs:
            cmd[-1:-1] = ["--jobs", str(self.args.jobs)]
        return cmd

    def series_for(self, root: Path, target: str, files_list: Path, files: int) -> list[Series]:
        a = self.args
        out = [
            Series("floor", [a.libcst_python, "-c", FLOOR, str(files_list)]),
            Series("initlint cold", self.initlint_cmd(root, target)),
            Series("initlint warm", self.initlint_cmd(root, target)),
        ]
        for fmt in a.formats:
            if fmt != "text":
                out.append(Series(f"initlint {fmt} cold", self.initlint_cmd(root, target, fmt)))
                out.append(Series(f"initlint {fmt} warm", self.initlint_cmd(root, target, fmt)))
        ruff = a.ruff or shutil.which("ruff")
        fixit = a.fixit or shutil.which("fixit")
        peers = [
            (
                "ruff --select F",
                ruff,
                [ruff, "check", "--select", "F", "--no-cache", "--exit-zero", "--quiet", target],
            ),
            ("fixit (1 rule)", fixit, [fixit, "--rules", a.fixit_rule, "lint", target]),
        ]
        for name, exe, cmd in peers:
            series = Series(name, [c for c in cmd if c is not None])
            if name.split()[0] not in a.peers:
                series.skipped = "not selected (--peers)"
            elif name.startswith("fixit") and 0 < a.fixit_max_files < files:
                series.skipped = f"more than {a.fixit_max_files} files (--fixit-max-files)"
            elif not exe or not Path(exe).exists():
                series.skipped = "not installed (pass its path with --ruff / --fixit)"
            out.append(series)
        if not _has_libcst(a.libcst_python):
            out[0].skipped = f"{a.libcst_python} cannot import libcst (see --libcst-python)"
        return out

    def measure(self, root: Path, target: str, repeat: int, peer_repeat: int) -> dict[str, Any]:
        files = python_files(root / target)
        files_list = self.work / f"files-{abs(hash((str(root), target)))}.txt"
        files_list.write_text("".join(f"{f}\n" for f in files))
        edit = pick_file_to_edit(files)
        original = edit.read_bytes()
        series = self.series_for(root, target, files_list, len(files))
        lines = sum(f.read_bytes().count(b"\n") for f in files)
        print(
            f"== {target}: {len(files)} files, {lines} lines; "
            f"warm runs edit {edit.relative_to(root)}"
        )
        try:
            for r in range(max(repeat, peer_repeat)):
                for s in series:
                    if s.skipped:
                        continue
                    is_initlint = s.name.startswith("initlint")
                    if r >= (repeat if is_initlint else peer_repeat):
                        continue
                    if s.name.startswith("initlint") and s.name.endswith(" cold"):
                        shutil.rmtree(root / ".initlint_cache", ignore_errors=True)
                    if s.name.startswith("initlint") and s.name.endswith(" warm"):
                        self.edits += 1
                        edit.write_bytes(original + f"\n# check_speed edit {self.edits}\n".encode())
                    sample = run(s.command, root, self.args.timeout)
                    s.samples.append(sample)
                    print(
                        f"  round {r + 1} {s.name:16s} {sample.seconds:8.2f} s  "
                        f"cpu {sample.cpu:8.2f} s  rss {sample.rss_mib:7.1f} MiB  "
                        f"exit {sample.status}"
                    )
        finally:
            edit.write_bytes(original)
        floor = series[0].median()
        result: dict[str, Any] = {
            "target": target,
            "files": len(files),
            "lines": lines,
            "edited_file": str(edit.relative_to(root)),
            "series": [],
        }
        for s in series:
            entry = asdict(s)
            entry["median_s"] = s.median()
            entry["median_cpu_s"] = s.median("cpu")
            entry["max_rss_mib"] = max((x.rss_mib for x in s.samples), default=float("nan"))
            entry["ratio_to_floor"] = s.median() / floor if s.samples and floor == floor else None
            floor_cpu = series[0].median("cpu")
            entry["cpu_ratio_to_floor"] = (
                s.median("cpu") / floor_cpu if s.samples and floor_cpu == floor_cpu else None
            )
            result["series"].append(entry)
        by_name = {s.name: s for s in series}
        result["format_ratios"] = {}
        for fmt in self.args.formats:
            if fmt == "text":
                continue
            ratios = {}
            for kind in ("cold", "warm"):
                mine, text = by_name[f"initlint {fmt} {kind}"], by_name[f"initlint {kind}"]
                if mine.samples and text.samples:
                    ratios[kind] = mine.median() / text.median()
                    ratios[f"{kind}_cpu"] = mine.median("cpu") / text.median("cpu")
            result["format_ratios"][fmt] = ratios
        return result

    def curve(
        self, source_root: Path, target: str, points: list[int], repeat: int
    ) -> list[dict[str, Any]]:
        files = python_files(source_root / target)
        rows = []
        for pct in points:
            stride = max(1, round(100 / pct))
            subset = files[::stride] if pct < 100 else files
            root = self.work / f"curve-{pct}"
            copy_tree(source_root, root, subset)
            files_list = self.work / f"curve-{pct}.txt"
            files_list.write_text("".join(f"{root / f.relative_to(source_root)}\n" for f in subset))
            cold = Series("initlint cold", self.initlint_cmd(root, target))
            floor = Series("floor", [self.args.libcst_python, "-c", FLOOR, str(files_list)])
            lines = sum(f.read_bytes().count(b"\n") for f in subset)
            print(f"== curve {pct} %: {len(subset)} files, {lines} lines")
            for _ in range(repeat):
                for s in (floor, cold):
                    if s is cold:
                        shutil.rmtree(root / ".initlint_cache", ignore_errors=True)
                    if s is floor and not _has_libcst(self.args.libcst_python):
                        continue
                    sample = run(s.command, root, self.args.timeout)
                    s.samples.append(sample)
                    print(f"  {s.name:16s} {sample.seconds:8.2f} s  rss {sample.rss_mib:7.1f} MiB")
            rows.append(
                {
                    "percent": pct,
                    "files": len(subset),
                    "lines": lines,
                    "initlint_cold_s": cold.median(),
                    "initlint_cold_cpu_s": cold.median("cpu"),
                    "initlint_rss_mib": max(x.rss_mib for x in cold.samples),
                    "floor_s": floor.median(),
                    "floor_cpu_s": floor.median("cpu"),
                    "samples": {
                        "initlint cold": [asdict(x) for x in cold.samples],
                        "floor": [asdict(x) for x in floor.samples],
                    },
                }
            )
            shutil.rmtree(root, ignore_errors=True)
        return rows


def _has_libcst(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import libcst"], capture_output=True).returncode == 0
    except OSError:
        return False


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"


def render_md(report: dict[str, Any]) -> str:
    env = report["environment"]
    out = [
        "# `initlint check` speed against peers (issue 7)",
        "",
        f"Run {report['date']} on {env['machine']} ({env['cpus']} CPUs, load average "
        f"{env['load_before']} before, {env['load_after']} after). Tree: `{report['source']}`. "
        f"Medians of {report['repeat']} interleaved rounds for initlint, {report['peer_repeat']} "
        "for the peers; ratios are to the libcst floor on the same files. Peak RSS is the "
        "largest process of the run (initlint: the main process; its workers are smaller). "
        "CPU is user + system time of the run's whole process tree: on a shared, busy machine "
        "it is the steadier measure, so both ratios are shown.",
        "",
        "Tools: " + "; ".join(f"{k} {v}" for k, v in env["versions"].items()),
        "",
        "Command: `" + " ".join(report["argv"]) + "`",
        "",
    ]
    for res in report["results"]:
        out += [
            f"## `{res['target']}`: {res['files']} files, {res['lines']} lines",
            "",
            f"Warm runs first append a comment line to `{res['edited_file']}`.",
            "",
            "| run | median s | ratio to floor | target | median CPU s | CPU ratio "
            "| peak RSS MiB | runs |",
            "|---|---:|---:|---|---:|---:|---:|---:|",
        ]
        for s in res["series"]:
            if s["skipped"]:
                out.append(f"| {s['name']} | skipped: {s['skipped']} | | | | | | 0 |")
                continue
            ratio = s["ratio_to_floor"]
            kind = s["name"].split()[-1] if s["name"].startswith("initlint") else ""
            goal = TARGETS.get(kind) if len(s["name"].split()) == 2 else None
            verdict = ""
            if goal is not None and ratio is not None:
                verdict = f"≤ {goal:.2f}: {'met' if ratio <= goal else 'NOT met'}"
            cpu_ratio = s["cpu_ratio_to_floor"]
            out.append(
                f"| {s['name']} | {s['median_s']:.2f} | "
                f"{'' if ratio is None else f'{ratio:.3f}×'} | {verdict} | "
                f"{s['median_cpu_s']:.2f} | "
                f"{'' if cpu_ratio is None else f'{cpu_ratio:.3f}×'} | "
                f"{s['max_rss_mib']:.0f} | {len(s['samples'])} |"
            )
        out.append("")
        goals = report.get("format_targets", {})
        for fmt, ratios in res.get("format_ratios", {}).items():
            out += [
                f"`--format {fmt}` against text output (issue 18: cold ≤ "
                f"{goals.get('cold', float('nan')):.2f}×, warm ≤ "
                f"{goals.get('warm', float('nan')):.2f}×):",
                "",
                "| run | wall ratio | target | CPU ratio |",
                "|---|---:|---|---:|",
            ]
            for kind in ("cold", "warm"):
                if kind not in ratios:
                    continue
                goal = goals.get(kind)
                met = "" if goal is None else ("met" if ratios[kind] <= goal else "NOT met")
                out.append(
                    f"| {fmt} {kind} / text {kind} | {ratios[kind]:.2f}× | "
                    f"≤ {goal:.2f}: {met} | {ratios[f'{kind}_cpu']:.2f}× |"
                )
            out.append("")
    if report.get("curve"):
        c = report["curve"]
        out += [
            f"## Growth with the number of files (`{c['target']}`, cold runs)",
            "",
            "| share | files | lines | initlint s | s per 1k lines | floor s | ratio "
            "| initlint CPU s | CPU s per 1k lines | floor CPU s | CPU ratio | peak RSS MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in c["rows"]:
            ratio = (
                row["initlint_cold_s"] / row["floor_s"]
                if row["floor_s"] == row["floor_s"]
                else float("nan")
            )
            per_kline = 1000 * row["initlint_cold_s"] / max(1, row["lines"])
            cpu = row["initlint_cold_cpu_s"]
            floor_cpu = row["floor_cpu_s"]
            out.append(
                f"| {row['percent']} % | {row['files']} | {row['lines']} | "
                f"{row['initlint_cold_s']:.2f} | {per_kline:.4f} | "
                f"{row['floor_s']:.2f} | {ratio:.3f}× | {cpu:.2f} | "
                f"{1000 * cpu / max(1, row['lines']):.4f} | {floor_cpu:.2f} | "
                f"{cpu / floor_cpu:.3f}× | {row['initlint_rss_mib']:.0f} |"
            )
        out.append("")
    rss = report.get("rss_check")
    if rss:
        out += [
            f"Peak RSS on `{rss['target']}`: {rss['mib']:.0f} MiB (limit {RSS_LIMIT_MIB:.0f}: "
            f"{'met' if rss['mib'] <= RSS_LIMIT_MIB else 'NOT met'}).",
            "",
        ]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("source", type=Path, help="tree holding the package(s), e.g. /tmp/corpora/vllm")
    p.add_argument(
        "--target",
        action="append",
        default=[],
        help="folder or file in the tree (repeatable; default: the whole tree)",
    )
    p.add_argument("--repeat", type=int, default=3, help="rounds for initlint (default 3)")
    p.add_argument(
        "--peer-repeat",
        type=int,
        default=None,
        help="rounds for the floor and the peers (default: --repeat)",
    )
    p.add_argument("--curve", default=None, help="target whose 25/50/100 %% subsets to time (cold)")
    p.add_argument("--curve-points", default="25,50,100")
    p.add_argument("--curve-repeat", type=int, default=1)
    p.add_argument(
        "--initlint", default=None, help="initlint executable (default: this Python's -m initlint)"
    )
    p.add_argument(
        "--libcst-python",
        default=sys.executable,
        help="a Python that can import libcst (the floor)",
    )
    p.add_argument("--ruff", default=None, help="ruff executable (default: shutil.which)")
    p.add_argument("--fixit", default=None, help="fixit executable (default: shutil.which)")
    p.add_argument("--fixit-rule", default=FIXIT_RULE)
    p.add_argument(
        "--fixit-max-files",
        type=int,
        default=1000,
        help="skip Fixit on targets with more files (default 1000; 0: no limit)",
    )
    p.add_argument(
        "--peers",
        default="ruff,fixit",
        help="peers to run besides the floor (default ruff,fixit; Fixit takes long on big trees)",
    )
    p.add_argument(
        "--jobs", type=int, default=0, help="initlint --jobs (default: its own, the CPU count)"
    )
    p.add_argument(
        "--formats",
        default="text",
        help="output formats to time, e.g. text,json,sarif (default text); each other format "
        "gets its own cold and warm runs and its ratios to text's",
    )
    p.add_argument(
        "--format-cold-target",
        type=float,
        default=1.3,
        help="issue 18: a format's cold run at most this times text's (default 1.3)",
    )
    p.add_argument(
        "--format-warm-target",
        type=float,
        default=2.0,
        help="issue 18: a format's warm run at most this times text's (default 2)",
    )
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    p.add_argument(
        "--work-dir", type=Path, default=None, help="scratch folder (default: a temp dir)"
    )
    p.add_argument("--out-dir", type=Path, default=RESULTS)
    p.add_argument(
        "--venv",
        type=Path,
        default=None,
        help="a venv-shaped folder linked as the copy's .venv: installed ancestors (issue 15)",
    )
    args = p.parse_args()
    args.peer_repeat = args.repeat if args.peer_repeat is None else args.peer_repeat
    args.peers = {x.strip() for x in args.peers.split(",") if x.strip()}
    args.formats = [x.strip() for x in args.formats.split(",") if x.strip()]
    args.initlint = [args.initlint] if args.initlint else [sys.executable, "-m", "initlint"]
    source = args.source.resolve()
    targets = args.target or ["."]
    work = Path(tempfile.mkdtemp(prefix="check_speed-", dir=args.work_dir))
    # Installed tools run from cached bytecode; an editable checkout with
    # PYTHONDONTWRITEBYTECODE set would recompile initlint on every run. Cache it aside.
    ENV.update(os.environ)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    # The bytecode cache starts empty: a first run would compile every module it imports
    # (~0.2 s, a sixth of a cold run on vLLM's layers; pip does it at install time). A
    # scratch project of 64 subclass files, checked cold and warm in each format, takes
    # every path a timed run takes (the pool, the forked copy, the results cache).
    scratch = work / "warm-up"
    scratch.mkdir()
    (scratch / "pyproject.toml").write_text('[project]\nname = "warm_up"\nversion = "0"\n')
    (scratch / "base.py").write_text(
        "import torch\n\n\nclass A(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.register_buffer('b', torch.ones(4))\n"
    )
    for i in range(64):
        (scratch / f"child{i}.py").write_text(
            f"import torch\nfrom base import A\n\n\nclass B{i}(A):\n    def __init__(self):\n"
            "        super().__init__()\n        self.register_buffer('b', torch.ones(4))\n"
        )
    warm_ups = [
        [*args.initlint, "check", "--exit-zero", "--format", fmt, "."]
        for fmt in dict.fromkeys(["text", *args.formats])
        for _ in range(2)  # cold, then warm
    ]
    for warm_up in [*warm_ups, [args.libcst_python, "-c", "import libcst"]]:
        subprocess.run(warm_up, env=ENV, capture_output=True, cwd=scratch)
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    try:
        tree = work / "tree"
        print(f"copying {source} to {tree}")
        copy_tree(source, tree)
        if args.venv is not None:
            (tree / ".venv").symlink_to(args.venv.resolve(), target_is_directory=True)
            ENV.pop("VIRTUAL_ENV", None)
            ENV.pop("CONDA_PREFIX", None)
            TARGETS.update(VENV_TARGETS)
        bench = Bench(args, work)
        results = [bench.measure(tree, t, args.repeat, args.peer_repeat) for t in targets]
        curve = None
        if args.curve:
            points = [int(x) for x in args.curve_points.split(",")]
            curve = {
                "target": args.curve,
                "rows": bench.curve(source, args.curve, points, args.curve_repeat),
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    versions = {
        "initlint": _version([*args.initlint, "--version"]),
        "python": platform.python_version(),
        "libcst": _version(
            [args.libcst_python, "-c", "import importlib.metadata as m; print(m.version('libcst'))"]
        ),
    }
    for name, exe in (
        ("ruff", args.ruff or shutil.which("ruff")),
        ("fixit", args.fixit or shutil.which("fixit")),
    ):
        versions[name] = (
            _version([exe, "--version"]) if exe and Path(exe).exists() else "not installed"
        )
    biggest = max(results, key=lambda r: r["files"])
    cold = next(s for s in biggest["series"] if s["name"] == "initlint cold")
    report = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "argv": sys.argv,
        "source": str(source),
        "repeat": args.repeat,
        "peer_repeat": args.peer_repeat,
        "environment": {
            "machine": f"{platform.system()} {platform.machine()}",
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "versions": versions,
        },
        "targets": TARGETS,
        "format_targets": {"cold": args.format_cold_target, "warm": args.format_warm_target},
        "results": results,
        "curve": curve,
        "rss_check": {
            "target": biggest["target"],
            "mib": cold["max_rss_mib"],
            "limit_mib": RSS_LIMIT_MIB,
        },
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "check_speed.json").write_text(json.dumps(report, indent=2) + "\n")
    md = render_md(report)
    (args.out_dir / "check_speed.md").write_text(md + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

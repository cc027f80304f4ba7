"""Crash-free run of ``initlint check`` over real source trees (issue 8, part C).

Not part of the test suite: it needs large corpora that live outside the repository. For each
tree given on the command line it runs, in a subprocess and one tree at a time::

    python -m initlint check <tree> --format json --no-cache

and records the number of Python files and lines in the tree, the diagnostics per code, the
IL9xx counts (with every IL902 listed), the tracebacks seen in stderr or stdout, the exit
status, wall time, CPU time and the peak RSS of the run (the checker and its workers).

Getting the corpora (about 5.5 M lines; keep them outside the repository)::

    pip download --no-deps -d /tmp/whl torch==2.13.0 transformers==5.23.0 vllm==0.33.0 \\
        sglang==0.5.23
    for w in torch transformers vllm sglang; do
        mkdir -p /tmp/corpora/$w && unzip -q -o /tmp/whl/$w-*.whl '*.py' -d /tmp/corpora/$w
    done

Usage::

    python benchmarks/smoke_real.py /tmp/corpora/torch /tmp/corpora/transformers \\
        /tmp/corpora/vllm /tmp/corpora/sglang [--jobs N] [--timeout S] [--out-dir DIR]

Writes ``smoke_real.json`` and ``smoke_real.md`` to ``--out-dir`` (default
benchmarks/results/). Exits 1 when any tree produced an IL902, a traceback, an exit status
other than 0 or 1, or output that is not a JSON array; else 0.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
TRACEBACK = "Traceback (most recent call last)"
SAMPLES = 10  # IL900 / IL901 examples kept per tree (every IL902 is kept)


def count_tree(tree: Path) -> tuple[int, int]:
    """Python files and lines that initlint's own discovery reads below ``tree``."""
    sys.path.insert(0, str(REPO))
    try:
        from initlint.discovery import find_root, walk_python_files
        from initlint.settings import load_settings
    finally:
        sys.path.pop(0)
    root = find_root(tree)
    excludes = load_settings(root).all_excludes
    files = lines = 0
    for path in walk_python_files(tree, root, excludes):
        files += 1
        try:
            data = path.read_bytes()
        except OSError:
            continue
        lines += data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    return files, lines


def _wait(pid: int, timeout: float) -> tuple[int, Any, bool]:
    """Wait for ``pid`` with its rusage (wait4), killing its process group after ``timeout``."""
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), usage, timed_out
        if not timed_out and time.monotonic() > deadline:
            timed_out = True
            try:
                os.killpg(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def _run(cmd: list[str], cwd: Path, timeout: float) -> dict[str, Any]:
    """Run ``cmd``; its exit status, output, wall and CPU time, peak RSS (with its workers)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, stdout=out, stderr=err, env=env, start_new_session=True
        )
        rc, usage, timed_out = _wait(proc.pid, timeout)
        proc.returncode = rc  # reaped by wait4 above; keep Popen from waiting again
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return {
        "exit_code": rc,
        "timed_out": timed_out,
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),  # KiB on Linux
        "tracebacks": stdout.count(TRACEBACK) + stderr.count(TRACEBACK),
        "stdout": stdout,
        "stderr": stderr,
    }


def run_tree(tree: Path, jobs: int, timeout: float, compare_text: bool) -> dict[str, Any]:
    files, lines = count_tree(tree)
    base = [sys.executable, "-m", "initlint", "check", str(tree), "--no-cache"]
    if jobs:
        base += ["--jobs", str(jobs)]
    cmd = [*base, "--format", "json"]
    run = _run(cmd, tree, timeout)
    stdout, stderr, rc, timed_out = run["stdout"], run["stderr"], run["exit_code"], run["timed_out"]
    result: dict[str, Any] = {
        "tree": str(tree),
        "name": tree.name,
        "command": " ".join(cmd[1:]),
        "files": files,
        "lines": lines,
        **{k: v for k, v in run.items() if k not in ("stdout", "stderr")},
        "stderr_tail": stderr[-4000:],
    }
    if compare_text:
        # The same check with text output, which renders no fix edits: the difference in
        # time is what `--format json` spends turning fix plans into edits.
        text = _run([*base, "--format", "text"], tree, timeout)
        result["text"] = {
            k: text[k] for k in ("exit_code", "timed_out", "wall_s", "cpu_s", "tracebacks")
        }
        result["text"]["summary"] = (text["stdout"].strip().splitlines() or [""])[-1]
        result["tracebacks"] += text["tracebacks"]
        if text["tracebacks"]:
            result["stderr_tail"] += "\n--- text run ---\n" + text["stderr"][-2000:]
    try:
        diags = json.loads(stdout)
        if not isinstance(diags, list):
            raise ValueError("not a JSON array")
        result["json_error"] = ""
    except ValueError as exc:
        diags = []
        result["json_error"] = f"{type(exc).__name__}: {exc}"
        result["stdout_tail"] = stdout[-4000:]
    codes = Counter(d.get("code", "?") for d in diags)
    result["diagnostics"] = len(diags)
    result["codes"] = dict(sorted(codes.items()))
    result["il9xx"] = {c: codes.get(c, 0) for c in ("IL900", "IL901", "IL902")}
    keep = ("path", "line", "column", "code", "message")
    result["il902"] = [{k: d.get(k) for k in keep} for d in diags if d.get("code") == "IL902"]
    for code in ("IL900", "IL901"):
        picked = [d for d in diags if d.get("code") == code][:SAMPLES]
        result[f"{code.lower()}_samples"] = [{k: d.get(k) for k in keep} for d in picked]
    text_ok = "text" not in result or (
        not result["text"]["timed_out"] and result["text"]["exit_code"] == rc
    )
    result["ok"] = (
        text_ok
        and not timed_out
        and rc in (0, 1)
        and not result["json_error"]
        and result["tracebacks"] == 0
        and result["il9xx"]["IL902"] == 0
    )
    return result


def _revision() -> str:
    """The commit checked, with ``+dirty`` when initlint/ has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "initlint"],
            cwd=REPO,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def _fmt_int(n: int) -> str:
    return f"{n:,}"


def render_md(report: dict[str, Any]) -> str:
    runs: list[dict[str, Any]] = report["runs"]
    seen = {c for r in runs for c in r["codes"] if not c.startswith("IL9")}
    rule_codes = sorted(seen | {"IL001", "IL002", "IL003", "IL004"})
    head = ["tree", "files", "lines", *rule_codes, "IL900", "IL901", "IL902", "tracebacks"]
    head += ["exit", "wall s", "CPU s", "peak RSS MiB"]
    rows = []
    for r in runs:
        rows.append(
            [
                r["name"],
                _fmt_int(r["files"]),
                _fmt_int(r["lines"]),
                *(str(r["codes"].get(c, 0)) for c in rule_codes),
                *(str(r["il9xx"][c]) for c in ("IL900", "IL901", "IL902")),
                str(r["tracebacks"]),
                str(r["exit_code"]) + (" (timeout)" if r["timed_out"] else ""),
                f"{r['wall_s']:.1f}",
                f"{r['cpu_s']:.1f}",
                f"{r['peak_rss_mib']:.0f}",
            ]
        )
    tot = report["totals"]
    rows.append(
        [
            "**total**",
            _fmt_int(tot["files"]),
            _fmt_int(tot["lines"]),
            *(str(tot["codes"].get(c, 0)) for c in rule_codes),
            *(str(tot["codes"].get(c, 0)) for c in ("IL900", "IL901", "IL902")),
            str(tot["tracebacks"]),
            "",
            f"{tot['wall_s']:.1f}",
            f"{tot['cpu_s']:.1f}",
            "",
        ]
    )
    out = [
        "# Smoke run over real code",
        "",
        f"Generated by `benchmarks/smoke_real.py` on {report['date']} "
        f"(initlint {report['initlint_version']} at {report['revision']}, "
        f"Python {report['python']}, "
        f"{report['cpus']} CPUs, jobs={report['jobs'] or 'default'}).",
        "",
        "Each tree runs as `python -m initlint check <tree> --format json --no-cache` in its own "
        "subprocess, one tree at a time. *files* and *lines* are what initlint's discovery reads "
        "below the tree; *tracebacks* counts `Traceback (most recent call last)` in stdout and "
        "stderr; CPU time and peak RSS cover the checker and its worker processes (on a shared "
        "machine, CPU time is the steadier figure).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        f"Result: **{'PASS' if report['ok'] else 'FAIL'}** (goal: no IL902, no traceback, "
        "exit 0 or 1, valid JSON, on every tree).",
        "",
    ]
    if any("text" in r for r in runs):
        out += [
            "## Time by output format",
            "",
            "The same check with `--format text`, which renders no fix edits. JSON (and SARIF) "
            "output turns every planned fix into edits; the difference is that step.",
            "",
            "| tree | json wall s | json CPU s | text wall s | text CPU s | text exit | "
            "text summary |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in runs:
            t = r.get("text")
            if t is None:
                continue
            out.append(
                f"| {r['name']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {t['wall_s']:.1f} | "
                f"{t['cpu_s']:.1f} | {t['exit_code']}{' (timeout)' if t['timed_out'] else ''} "
                f"| {t['summary']} |"
            )
        out.append("")
    for r in runs:
        notes = []
        if r["json_error"]:
            notes.append(f"- stdout is not a JSON array: {r['json_error']}")
        for d in r["il902"]:
            notes.append(f"- IL902 `{d['path']}:{d['line']}`: {d['message']}")
        for code in ("IL900", "IL901"):
            samples = r[f"{code.lower()}_samples"]
            if samples:
                more = r["il9xx"][code] - len(samples)
                notes.append(f"- {code} ({r['il9xx'][code]}):")
                notes += [f"  - `{d['path']}:{d['line']}`: {d['message']}" for d in samples]
                if more > 0:
                    notes.append(f"  - … and {more} more")
        if r["tracebacks"]:
            notes.append("- stderr ends with:\n\n```\n" + r["stderr_tail"][-1500:] + "\n```")
        if notes:
            out += [f"## {r['name']}", "", *notes, ""]
    out += [
        "## Reproducing",
        "",
        "```",
        "pip download --no-deps -d /tmp/whl torch==2.13.0 transformers==5.23.0 vllm==0.33.0 "
        "sglang==0.5.23",
        "for w in torch transformers vllm sglang; do",
        "    mkdir -p /tmp/corpora/$w && unzip -q -o /tmp/whl/$w-*.whl '*.py' -d /tmp/corpora/$w",
        "done",
        "python benchmarks/smoke_real.py /tmp/corpora/torch /tmp/corpora/transformers \\",
        "    /tmp/corpora/vllm /tmp/corpora/sglang",
        "```",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="source trees to check")
    parser.add_argument("--jobs", type=int, default=0, help="passed as --jobs (0: default)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per tree")
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    parser.add_argument(
        "--compare-text",
        action="store_true",
        help="also time `--format text` (no fix edits rendered) and check its exit status",
    )
    args = parser.parse_args(argv)
    for tree in args.trees:
        if not tree.is_dir():
            parser.error(f"{tree} is not a directory")
    revision = _revision()  # before the runs: the code they check
    runs = []
    for tree in args.trees:
        tree = tree.resolve()
        print(f"checking {tree} ...", file=sys.stderr, flush=True)
        r = run_tree(tree, args.jobs, args.timeout, args.compare_text)
        print(
            f"  {r['files']} files, {r['lines']} lines, {r['diagnostics']} diagnostics "
            f"{r['codes']}, tracebacks={r['tracebacks']}, exit={r['exit_code']}, "
            f"{r['wall_s']} s",
            file=sys.stderr,
            flush=True,
        )
        runs.append(r)
    totals_codes: Counter[str] = Counter()
    for r in runs:
        totals_codes.update(r["codes"])
    sys.path.insert(0, str(REPO))
    from initlint import __version__

    report = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "initlint_version": __version__,
        "revision": revision,
        "python": platform.python_version(),
        "cpus": len(os.sched_getaffinity(0)),
        "jobs": args.jobs,
        "ok": all(r["ok"] for r in runs),
        "totals": {
            "files": sum(r["files"] for r in runs),
            "lines": sum(r["lines"] for r in runs),
            "diagnostics": sum(r["diagnostics"] for r in runs),
            "codes": dict(sorted(totals_codes.items())),
            "tracebacks": sum(r["tracebacks"] for r in runs),
            "wall_s": round(sum(r["wall_s"] for r in runs), 2),
            "cpu_s": round(sum(r["cpu_s"] for r in runs), 2),
        },
        "runs": runs,
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "smoke_real.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out_dir / "smoke_real.md").write_text(render_md(report))
    print(render_md(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing child leaves no core file
    sys.exit(main())

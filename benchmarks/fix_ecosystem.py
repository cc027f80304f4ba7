"""The fix ecosystem check (issue 14): ``initlint fix --unsafe-fixes`` on copies of real trees.

Not part of the test suite: it needs the corpora, which live outside the repository (see
``smoke_real.py`` for getting them). For each tree given on the command line it:

1. copies the tree into a temporary folder (``<tmp>/tree``, with a ``pyproject.toml`` so that
   the copy is its own project root) next to an untouched sentinel copy of a few of its files
   (``<tmp>/outside``);
2. runs ``python -m initlint check <copy> --format json --no-cache`` (the diagnostics and their
   fixes before), then ``python -m initlint fix --unsafe-fixes --no-cache <copy>``;
3. checks that every edited file compiles, that a second ``fix`` run changes nothing, that the
   re-check has none of the fixed diagnostics and no new ones, that ``ruff format`` would
   change no more lines of an edited file than of its original, and that nothing outside the
   copy changed (the sentinel, and the original tree);
4. records the counts in ``fix_ecosystem.json`` / ``fix_ecosystem.md`` (``--out-dir``, default
   benchmarks/results/), and every applied fix's diff in ``fix_ecosystem_fixes.md``, with a
   seeded random sample of ``--sample`` fixes from the trees named by ``--sample-from``.

Usage::

    python benchmarks/fix_ecosystem.py /work/corpora/vllm /work/corpora/sglang \\
        [--ruff .venv/bin/ruff] [--jobs 1] [--sample 20 --seed 14 --sample-from vllm,sglang]

Exits 1 when a check fails (a compile failure, a non-idempotent fix, an edit outside the tree,
a fixed diagnostic still reported, or a new one); else 0.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
SENTINEL_FILES = 50
JOBS: list[str] = []  # ``-j N`` for every initlint run when --jobs is given


def hashes(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".initlint_cache" not in path.parts:
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def initlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args, *JOBS],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def diagnostics(tree: Path) -> list[dict[str, Any]]:
    proc = initlint("check", str(tree), "--format", "json", "--no-cache", cwd=tree)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"check exited {proc.returncode}: {proc.stderr[-2000:]}")
    data: list[dict[str, Any]] = json.loads(proc.stdout)
    return data


def key(d: dict[str, Any]) -> tuple[str, str, str, str]:
    """A diagnostic without its line numbers (the fixes move lines)."""
    what = d["message"].split(":", 1)[0]
    return d["path"], d["code"], d["class"], what


def ruff_format(ruff: str, text: str) -> str | None:
    """``text`` as ``ruff format`` (isolated defaults) writes it; None when ruff fails."""
    proc = subprocess.run(
        [ruff, "format", "--isolated", "--stdin-filename", "x.py", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout if proc.returncode == 0 else None


def changed_lines(a: list[str], b: list[str]) -> tuple[set[int], set[int]]:
    """0-based lines of ``a`` and of ``b`` that differ between the two.

    A pure insertion or deletion touches no line on one side: the lines either side of the
    point count there, so that a fix that deletes a statement is held to the blank lines
    it leaves around it.
    """
    in_a: set[int] = set()
    in_b: set[int] = set()
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        in_a.update(range(i1, i2) if i2 > i1 else (i1 - 1, i1))
        in_b.update(range(j1, j2) if j2 > j1 else (j1 - 1, j1))
    return in_a, in_b


def format_check(ruff: str, old: str, new: str) -> dict[str, Any] | None:
    """Where ``ruff format`` would change an edited hunk of ``new`` more than the original.

    For every hunk the fix changed, the lines ruff would rewrite inside the hunk are
    compared with the lines it would rewrite in the same hunk of the original: a hunk that
    was ruff-clean before and is not after is a regression. Returns None when clean.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    fmt_old, fmt_new = ruff_format(ruff, old), ruff_format(ruff, new)
    if fmt_old is None or fmt_new is None:
        return {"ruff_failed": True, "before": fmt_old is None, "after": fmt_new is None}
    ruff_old, _ = changed_lines(old_lines, fmt_old.splitlines())
    ruff_new, _ = changed_lines(new_lines, fmt_new.splitlines())
    bad: list[int] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hunk_old = set(range(i1, i2) if i2 > i1 else (i1 - 1, i1))
        hunk_new = set(range(j1, j2) if j2 > j1 else (j1 - 1, j1))
        if (hunk_new & ruff_new) and not (hunk_old & ruff_old):
            bad.extend(sorted(n + 1 for n in hunk_new & ruff_new))
    trailing = [
        i + 1
        for i, line in enumerate(new_lines)
        if line != line.rstrip() and line not in set(old_lines)
    ]
    if not bad and not trailing:
        return None
    return {
        "hunk_lines_ruff_would_change": bad,
        "new_trailing_whitespace": trailing,
        "ruff_lines_before": len(ruff_old),
        "ruff_lines_after": len(ruff_new),
    }


def env_snapshot() -> dict[str, tuple[int, int]]:
    """Size and mtime of every file of the environment initlint reads (the running venv)."""
    out: dict[str, tuple[int, int]] = {}
    for site in {Path(p) for p in sys.path if p.endswith("site-packages")}:
        for path in site.rglob("*.py"):
            st = path.stat()
            out[str(path)] = (st.st_size, st.st_mtime_ns)
    return out


def repo_status() -> str:
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    return proc.stdout


def repo_commit() -> str:
    """The commit of the initlint that runs (with ``+dirty`` when tracked files differ)."""
    proc = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    rev = proc.stdout.strip() or "unknown"
    return rev + ("+dirty" if repo_status() else "")


def reason_shape(reason: str) -> str:
    """A "no fix" reason with its names and numbers taken out, to count reasons by kind."""
    shape = re.sub(r"`[^`]*`", "`x`", reason)
    shape = re.sub(r"\b[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+\b", "N.m", shape)
    shape = re.sub(r"\b[A-Z]\w*\b", "C", shape)
    return re.sub(r"\d+", "n", shape)


def no_fix_reasons(tree: Path) -> list[str]:
    """Every help line's "no fix: ..." reason (text output), in order."""
    proc = initlint("check", str(tree), "--no-cache", cwd=tree)
    return [
        line.strip().removeprefix("help: ")
        for line in proc.stdout.splitlines()
        if line.strip().startswith("help: no fix")
    ]


def run_tree(src: Path, ruff: str) -> dict[str, Any]:
    name = src.name
    with tempfile.TemporaryDirectory(prefix=f"fixeco-{name}-") as tmp:
        base = Path(tmp)
        tree = base / "tree"
        shutil.copytree(src, tree, ignore=shutil.ignore_patterns("__pycache__"))
        if not (tree / "pyproject.toml").exists():
            (tree / "pyproject.toml").write_text(
                f'[project]\nname = "{name}-copy"\nversion = "0"\n'
            )
        outside = base / "outside"
        outside.mkdir()
        for path in sorted(tree.rglob("*.py"))[:SENTINEL_FILES]:
            shutil.copy2(path, outside / path.name)
        original_src = hashes(src)
        sentinel = hashes(outside)
        start = hashes(tree)
        env_before = env_snapshot()
        repo_before = repo_status()
        reasons = no_fix_reasons(tree)

        t0 = time.monotonic()
        before = diagnostics(tree)
        fix = initlint("fix", "--unsafe-fixes", "--no-cache", str(tree), cwd=tree)
        t1 = time.monotonic()
        fixed_state = hashes(tree)
        edited = sorted(p for p in fixed_state if fixed_state[p] != start.get(p))
        created = sorted(set(fixed_state) - set(start))
        compile_failures = []
        format_regressions = []
        fixes = []
        for rel in edited:
            new = (tree / rel).read_text(encoding="utf-8")
            old = (src / rel).read_text(encoding="utf-8")
            try:
                compile(new, rel, "exec", dont_inherit=True)
            except SyntaxError as exc:
                compile_failures.append(f"{rel}: {exc}")
            problem = format_check(ruff, old, new)
            if problem is not None:
                format_regressions.append({"path": rel, **problem})
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                )
            )
            fixes.append({"path": rel, "diff": diff})

        second = initlint("fix", "--unsafe-fixes", "--no-cache", str(tree), cwd=tree)
        second_state = hashes(tree)
        not_idempotent = sorted(p for p in second_state if second_state[p] != fixed_state.get(p))
        after = diagnostics(tree)

        had_fix = {key(d) for d in before if d["fix"] is not None}
        before_keys = {key(d) for d in before}
        after_keys = {key(d) for d in after}
        still = sorted(had_fix & after_keys & _applied_keys(before, edited))
        new_diags = sorted(after_keys - before_keys)
        env_after = env_snapshot()
        outside = {
            "sentinel": hashes(outside) != sentinel,
            "original_tree": hashes(src) != original_src,
            "environment": sorted(p for p in env_after if env_after[p] != env_before.get(p)),
            "repository": repo_status() != repo_before,
        }
        outside_changed = any(outside.values())
        return {
            "tree": name,
            "commit": repo_commit(),
            "files": sum(1 for p in start if p.endswith(".py")),
            "diagnostics": len(before),
            "offered_safe": sum(
                1 for d in before if d["fix"] and d["fix"]["applicability"] == "safe"
            ),
            "offered_unsafe": sum(
                1 for d in before if d["fix"] and d["fix"]["applicability"] == "unsafe"
            ),
            "no_fix": sum(1 for d in before if d["fix"] is None),
            "no_fix_reasons": reasons,
            "by_severity": {
                sev: sum(1 for d in before if d["severity"] == sev) for sev in ("error", "warning")
            },
            "distinct_fixes": len(
                {(d["fix"]["message"], json.dumps(d["fix"]["edits"])) for d in before if d["fix"]}
            ),
            "fix_stderr_tail": fix.stderr[-2000:],
            "fix_summary": (fix.stdout.strip().splitlines() or [""])[-1],
            "fix_exit": fix.returncode,
            "edited_files": len(edited),
            "created_files": created,
            "compile_failures": compile_failures,
            "not_idempotent": not_idempotent,
            "second_summary": (second.stdout.strip().splitlines() or [""])[-1],
            "second_exit": second.returncode,
            "fixed_gone": len(had_fix - after_keys),
            "fixed_still_reported": [list(k) for k in still],
            "new_diagnostics": [list(k) for k in new_diags],
            "format_regressions": format_regressions,
            "outside_changed": outside_changed,
            "outside_detail": outside,
            "after_diagnostics": len(after),
            "seconds": round(t1 - t0, 1),
            "offered": [
                {
                    "path": d["path"],
                    "line": d["line"],
                    "code": d["code"],
                    "class": d["class"],
                    "message": d["message"],
                    "fix": d["fix"]["message"],
                    "applicability": d["fix"]["applicability"],
                    "edits": d["fix"]["edits"],
                }
                for d in before
                if d["fix"] is not None
            ],
            "fixes": fixes,
        }


def _applied_keys(
    before: list[dict[str, Any]], edited: list[str]
) -> set[tuple[str, str, str, str]]:
    """Diagnostics whose fix edits a file that was edited (the ones applied, near enough)."""
    edited_set = set(edited)
    out = set()
    for d in before:
        fix = d["fix"]
        if fix is None:
            continue
        paths = {Path(e["path"]).as_posix() for e in fix["edits"]}
        if any(any(p.endswith(rel) for rel in edited_set) for p in paths):
            out.add(key(d))
    return out


def failed(result: dict[str, Any]) -> bool:
    return bool(
        result["compile_failures"]
        or result["not_idempotent"]
        or result["outside_changed"]
        or result["created_files"]
        or result["fixed_still_reported"]
        or result["new_diagnostics"]
        or result["format_regressions"]
        or result["fix_exit"] not in (0, 1)
        or result["second_exit"] not in (0, 1)
    )


def render(results: list[dict[str, Any]], stamp: str) -> str:
    lines = [
        "# Fix ecosystem check",
        "",
        f"Generated by `benchmarks/fix_ecosystem.py` on {stamp}. Each tree is copied, checked "
        "(`--format json`), fixed with `initlint fix --unsafe-fixes --no-cache`, fixed again, "
        "and checked again.",
        "",
        "| tree | files | diagnostics (error/warning) | safe fixes offered | unsafe fixes offered "
        "| distinct fixes | no fix | fixed and gone | edited files | compile failures "
        "| not idempotent | fixed still reported | new diagnostics | ruff-format regressions "
        "| outside changed | s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['tree']} | {r['files']} | {r['diagnostics']} "
            f"({r['by_severity']['error']}/{r['by_severity']['warning']}) | {r['offered_safe']} | "
            f"{r['offered_unsafe']} | {r['distinct_fixes']} | {r['no_fix']} | {r['fixed_gone']} | "
            f"{r['edited_files']} | "
            f"{len(r['compile_failures'])} | {len(r['not_idempotent'])} | "
            f"{len(r['fixed_still_reported'])} | {len(r['new_diagnostics'])} | "
            f"{len(r['format_regressions'])} | {'yes' if r['outside_changed'] else 'no'} | "
            f"{r['seconds']} |"
        )
    lines += ["", f"Result: **{'FAIL' if any(map(failed, results)) else 'PASS'}**", ""]
    for r in results:
        lines.append(
            f"- {r['tree']} (initlint {r.get('commit', 'commit not recorded')}): `fix` said: "
            f"{r['fix_summary']!r}; second run: {r['second_summary']!r}"
        )
        shapes: dict[str, int] = {}
        for reason in r["no_fix_reasons"]:
            shapes[reason_shape(reason)] = shapes.get(reason_shape(reason), 0) + 1
        for shape, n in sorted(shapes.items(), key=lambda kv: -kv[1]):
            lines.append(f"  - {n} x {shape}")
        if r["outside_changed"]:
            lines.append(f"  - outside changed: {r['outside_detail']}")
        for what in (
            "compile_failures",
            "not_idempotent",
            "fixed_still_reported",
            "new_diagnostics",
            "format_regressions",
        ):
            for item in r[what]:
                lines.append(f"  - {what}: {item}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--ruff", default=shutil.which("ruff") or str(REPO / ".venv/bin/ruff"))
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--sample-from", default="vllm,sglang")
    parser.add_argument(
        "--jobs",
        type=int,
        help="worker processes for every check and fix run (initlint's -j; default: its own)",
    )
    parser.add_argument(
        "--from-parts",
        action="store_true",
        help="render from <out-dir>/parts/<tree>.json saved by earlier runs; run nothing",
    )
    args = parser.parse_args()
    if args.jobs is not None:
        JOBS[:] = ["-j", str(args.jobs)]
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = args.out_dir / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    results = []
    for t in args.trees:
        if args.from_parts:
            results.append(json.loads((parts / f"{t.name}.json").read_text()))
            continue
        result = run_tree(t.resolve(), args.ruff)
        (parts / f"{t.name}.json").write_text(json.dumps(result, indent=1) + "\n")
        results.append(result)
    slim = [{k: v for k, v in r.items() if k not in ("fixes", "offered")} for r in results]
    (args.out_dir / "fix_ecosystem.json").write_text(json.dumps(slim, indent=2) + "\n")
    (args.out_dir / "fix_ecosystem.md").write_text(render(results, stamp))
    # One entry per distinct fix: the findings of a group share one plan (one flag).
    pool, seen = [], set()
    for r in results:
        if r["tree"] not in args.sample_from.split(","):
            continue
        for o in r["offered"]:
            fix_key = (o["fix"], json.dumps(o["edits"], sort_keys=True))
            if fix_key not in seen:
                seen.add(fix_key)
                pool.append((r["tree"], o))
    rng = random.Random(args.seed)
    sample = rng.sample(pool, min(args.sample, len(pool)))
    out = [
        f"# Distinct offered fixes ({len(pool)} in {args.sample_from}); sample of {len(sample)}, "
        f"seed {args.seed}",
        "",
    ]
    for i, (tree, o) in enumerate(sample, 1):
        out += [
            f"## {i}. {tree}: {o['path']}:{o['line']} {o['code']} ({o['applicability']})",
            "",
            o["message"],
            "",
            f"fix: {o['fix']}",
            "",
            "```diff",
        ]
        for e in o["edits"]:
            out.append(f"@ {e['path']}:{e['line']}:{e['column']}-{e['end_line']}:{e['end_column']}")
            out += [f"+ {line}" for line in e["content"].splitlines()] or ["+ (delete)"]
        out += ["```", ""]
    out += ["# Every applied edit", ""]
    for r in results:
        for f in r["fixes"]:
            out += [f"## {r['tree']}: {f['path']}", "", "```diff", f["diff"].rstrip(), "```", ""]
    (args.out_dir / "fix_ecosystem_fixes.md").write_text("\n".join(out) + "\n")
    print(render(results, stamp))
    return 1 if any(map(failed, results)) else 0


if __name__ == "__main__":
    sys.exit(main())

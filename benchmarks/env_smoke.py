"""Before/after table of ``initlint check`` on a real tree whose classes subclass installed
ones (issue 15): once with an empty environment (no torch: built-in knowledge only), once
with the given environment (torch's own sources). Not part of the test suite.

Usage::

    python benchmarks/env_smoke.py /work/corpora/timm --python .venv [--out-dir DIR]

The tree is copied to a scratch folder (the copy is the project root; nothing is written in
the original or in the environment). Writes ``env_smoke.json`` and ``env_smoke.md``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _run(tree: Path, python: Path) -> tuple[list[dict[str, Any]], float, int]:
    cmd = [
        sys.executable,
        "-m",
        "initlint",
        "check",
        "--format",
        "json",
        "--no-cache",
        "--exit-zero",
        "--python",
        str(python),
        ".",
    ]
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if out.returncode not in (0, 1) or "Traceback" in out.stderr:
        raise SystemExit(f"initlint failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout), seconds, out.returncode


def _key(d: dict[str, Any]) -> tuple[str, int, str, str]:
    return (d["path"], d["line"], d["code"], d["message"].split(":")[0])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("tree", type=Path)
    p.add_argument("--python", type=Path, required=True, help="the environment with torch")
    p.add_argument("--out-dir", type=Path, default=REPO / "benchmarks" / "results")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="env_smoke-"))
    try:
        tree = work / "tree"
        shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns(".initlint_cache"))
        if not (tree / "pyproject.toml").exists():
            (tree / "pyproject.toml").write_text('[project]\nname = "env-smoke"\n')
        empty = work / "empty-venv"
        (empty / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
        (empty / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
        before, t_before, _ = _run(tree, empty)
        after, t_after, _ = _run(tree, args.python.absolute())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    b_keys = {_key(d) for d in before}
    a_keys = {_key(d) for d in after}
    new = [d for d in after if _key(d) not in b_keys]
    gone = [d for d in before if _key(d) not in a_keys]
    files = sum(1 for _ in args.tree.rglob("*.py"))
    rows = []
    codes = sorted({d["code"] for d in (*before, *after)})
    for code in codes:
        rows.append(
            (code, sum(d["code"] == code for d in before), sum(d["code"] == code for d in after))
        )
    report = {
        "tree": str(args.tree),
        "python": str(args.python),
        "files": files,
        "seconds": {"before": t_before, "after": t_after},
        "counts": {c: {"before": b, "after": a} for c, b, a in rows},
        "new": new,
        "gone": gone,
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "env_smoke.json").write_text(json.dumps(report, indent=2) + "\n")
    md = [
        f"# Installed ancestors: before/after on `{args.tree}` ({files} files)",
        "",
        "Before: an empty environment (built-in torch knowledge). "
        f"After: `--python {args.python}`.",
        "",
        "| code | before | after |",
        "|---|---:|---:|",
    ]
    md += [f"| {c} | {b} | {a} |" for c, b, a in rows]
    md += [
        f"| total | {len(before)} | {len(after)} |",
        "",
        f"Wall time: {t_before:.2f} s before, {t_after:.2f} s after (--no-cache, shared machine).",
        "",
        f"## New findings ({len(new)})",
        "",
    ]
    md += [f"- `{d['path']}:{d['line']}` {d['code']} {d['message']}" for d in new]
    md += ["", f"## Findings gone ({len(gone)})", ""]
    md += [f"- `{d['path']}:{d['line']}` {d['code']} {d['message']}" for d in gone]
    (args.out_dir / "env_smoke.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run ``initlint check`` on held-out packages and tabulate what it reports.

The packages and their split are in ``benchmarks/results/heldout_split.md``. Getting one
package's sources (outside the repository; nothing is committed)::

    pip download --no-deps --only-binary=:all: -d /tmp/wheels mmengine==0.10.7
    mkdir -p /tmp/heldout/test/mmengine
    unzip -q -o /tmp/wheels/mmengine-*.whl '*.py' -d /tmp/heldout/test/mmengine

Usage::

    python benchmarks/heldout_check.py /tmp/heldout/test --out-dir /tmp/heldout/out \
        [--python /tmp/heldout/env/bin/python]

``--python`` names an environment with the packages' dependencies installed (``pip install
--no-deps`` of their wheels), so ancestors from those libraries are read as a user's
project would have them.

For every folder under the root it runs, in that folder and one at a time::

    python -m initlint check --no-cache --exit-zero --format json .

writes ``<out-dir>/<package>.json`` (the findings as the CLI gave them) and prints a Markdown
table: files, lines and the findings per code, severity and confidence. Judging the findings
is done by reading them; this script only collects them.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path


def _size(root: Path) -> tuple[int, int]:
    files = sorted(root.rglob("*.py"))
    lines = 0
    for f in files:
        with f.open("rb") as fh:
            lines += sum(1 for _ in fh)
    return len(files), lines


def check(package: Path, jobs: int, python: Path | None) -> list[dict[str, object]]:
    """The findings of one package, as ``--format json`` gives them."""
    environment = ["--python", str(python)] if python else []
    run = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--no-cache", "--exit-zero"]
        + ["--format", "json", "-j", str(jobs), *environment, "."],
        cwd=package,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        raise SystemExit(f"{package.name}: exit {run.returncode}\n{run.stderr[-2000:]}")
    found: list[dict[str, object]] = json.loads(run.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("root", type=Path, help="a folder holding one folder per package")
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument(
        "--python",
        type=Path,
        help="the interpreter of an environment holding the packages' dependencies",
    )
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    print("| package | files | lines | findings | by code, severity, confidence |")
    print("|---|---:|---:|---:|---|")
    for package in sorted(p for p in args.root.iterdir() if p.is_dir()):
        found = check(package, args.jobs, args.python)
        (args.out_dir / f"{package.name}.json").write_text(json.dumps(found, indent=1) + "\n")
        files, lines = _size(package)
        kinds = collections.Counter(f"{d['code']} {d['severity']} {d['confidence']}" for d in found)
        shown = ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())) or "none"
        print(f"| {package.name} | {files} | {lines} | {len(found)} | {shown} |")


if __name__ == "__main__":
    main()

"""Same input, same report, on real layouts: ``initlint check`` with ``-j 1``, ``-j 2`` and
``-j 4``, cold and warm (unchanged, after editing a project file, after editing a file of an
installed dependency), text and JSON, and the same files given one by one in reverse order
(``--no-dependents``: the folder's files and no others), all compared byte for byte.

Not part of the test suite (tests/environment/test_determinism.py holds the same invariant on
a fixture): it needs real trees that live outside the repository. Each target is a project
folder and the path to check inside it, ``FOLDER:PATH``. A plugin in its real layout has the
framework installed in its ``.venv``::

    pip download --no-deps -d /tmp/whl vllm==0.33.0 vllm-rbln==0.12.0
    mkdir -p /tmp/layout/rbln && unzip -q /tmp/whl/vllm_rbln-*.whl '*.py' -d /tmp/layout/rbln
    printf '[project]\nname = "vllm-rbln"\n' > /tmp/layout/rbln/pyproject.toml  # the repo's root
    python3 -m venv --without-pip /tmp/layout/rbln/.venv
    unzip -q /tmp/whl/vllm-0.33.0-*.whl '*.py' 'vllm-0.33.0.dist-info/*' \\
        -d /tmp/layout/rbln/.venv/lib/python3.11/site-packages

    python benchmarks/determinism.py /tmp/layout/rbln:vllm_rbln /tmp/corpora/vllm:vllm

Each run works on a scratch copy of the folder (the edits never touch the original). Prints
one line per target and each difference found; exits 1 when any run differs.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = ".initlint_cache"


def _initlint(folder: Path, args: list[str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    done = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--exit-zero", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"initlint failed in {folder} ({done.returncode}):\n{done.stderr}")
    return done.stdout


def _files(folder: Path, path: str) -> list[str]:
    top = folder / path
    if top.is_file():
        return [path]
    return sorted(str(p.relative_to(folder)) for p in top.rglob("*.py"))


def _first_file(folder: Path, path: str) -> Path:
    return folder / _files(folder, path)[0]


def _dependency_file(folder: Path) -> Path | None:
    """A source file of the first installed distribution in the folder's ``.venv``."""
    for site in sorted((folder / ".venv").glob("lib/python3*/site-packages")):
        for top in sorted(site.iterdir()):
            if top.is_dir() and (top / "__init__.py").is_file():
                return top / "__init__.py"
    return None


def _touch(path: Path) -> None:
    """New content, the same meaning: a comment line at the end."""
    with path.open("a", encoding="utf-8") as out:
        out.write("\n# edited by benchmarks/determinism.py\n")


def _compare(name: str, reference: str, other: str, out: list[str]) -> None:
    """The first difference in full (its first 40 lines), the later ones by name."""
    if other == reference:
        return
    if out:
        out.append(f"  {name} differs")
        return
    diff = difflib.unified_diff(
        reference.splitlines(), other.splitlines(), "reference", name, lineterm="", n=0
    )
    out.append(f"  {name} differs:\n    " + "\n    ".join(list(diff)[:40]))


def check_target(folder: Path, path: str, jobs: list[int], formats: list[str]) -> list[str]:
    """Every run compared with ``-j 1 --no-cache`` on the same state of the files."""
    problems: list[str] = []
    forward = _files(folder, path)
    backward = forward[::-1]
    dependency = _dependency_file(folder)
    states = [("as it is", None), ("a project file edited", _first_file(folder, path))]
    if dependency is not None:
        states.append(("a dependency file edited", dependency))
    for state, edit in states:
        if edit is not None:
            _touch(edit)
        reference = {
            fmt: _initlint(folder, ["--no-cache", "-j", "1", "--format", fmt, path])
            for fmt in formats
        }
        for fmt, ref in reference.items():
            for j in jobs:
                # (the files one by one, without the files that depend on them, which a
                # check of named files adds: the same files as the folder's)
                reversed_files = ["--no-dependents", *backward]
                for order, given in (("given", [path]), ("reversed", reversed_files)):
                    args = ["-j", str(j), "--format", fmt, *given]
                    label = f"{state}: -j {j} {fmt} {order}"
                    _compare(
                        f"{label} --no-cache",
                        ref,
                        _initlint(folder, ["--no-cache", *args]),
                        problems,
                    )
                    if edit is None:
                        shutil.rmtree(folder / CACHE, ignore_errors=True)
                        _compare(f"{label} cold", ref, _initlint(folder, args), problems)
                    _compare(f"{label} warm", ref, _initlint(folder, args), problems)
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+", help="FOLDER:PATH (PATH inside FOLDER)")
    parser.add_argument("--jobs", default="1,2,4", help="the -j values to compare")
    parser.add_argument("--formats", default="text,json", help="the formats to compare")
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    formats = args.formats.split(",")
    failed = False
    for target in args.targets:
        folder_text, _, path = target.rpartition(":")
        folder = Path(folder_text).resolve()
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / folder.name
            shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns(CACHE))
            if not (copy / "pyproject.toml").exists() and not (copy / ".git").exists():
                # A tree unpacked from a wheel has no project root of its own, and a file
                # given by name outside any package would be guessed a project of its own
                # (discovery's guess); a checkout has one: so does the copy.
                (copy / "pyproject.toml").write_text('[project]\nname = "corpus"\n')
            problems = check_target(copy, path, jobs, formats)
        took = time.perf_counter() - start
        verdict = "no difference" if not problems else f"{len(problems)} differences"
        print(f"{folder}:{path}: {verdict} ({took:.0f} s)")
        for problem in problems:
            print(problem)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

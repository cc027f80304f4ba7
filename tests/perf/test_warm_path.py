"""The warm path's cheaper steps give the answers of the plain ones.

A warm ``initlint check`` walks the whole project, names every module and maps absolute
imports to project modules before the results cache can answer; those steps were made
cheaper (a walk that asks a folder's own listing whether it is a virtual environment, a
module namer that memoises folders, a suffix lookup indexed by a name's last part), and
``tomllib`` and two regexes are no longer loaded by a run that does not use them. Each
test here holds the new code to the old one, kept below as the oracle.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from initlint.discovery import _excluded, _rel_str, walk_python_paths
from initlint.facts.model import ModuleFacts
from initlint.index.loading import ProjectFiles
from initlint.index.modules import module_name_for
from initlint.index.project import ProjectIndex
from initlint.locate import suppressed_codes
from initlint.output.text import printable

# -- the oracles: the code before the warm path was made cheaper --------------------------


def old_walk(top: Path, root: Path, excludes: tuple[str, ...]) -> Iterator[str]:
    prefix = str(root).rstrip(os.sep) + os.sep
    stack = [str(top)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                rel = _rel_str(entry.path, prefix)
                if _excluded(rel, entry.name, excludes) or os.path.exists(
                    os.path.join(entry.path, "pyvenv.cfg")
                ):
                    continue
                try:
                    if entry.is_symlink():
                        continue
                except OSError:
                    continue
                subdirs.append(entry.path)
                continue
            if not entry.name.endswith(".py"):
                continue
            if _excluded(_rel_str(entry.path, prefix), entry.name, excludes):
                continue
            try:
                is_file = entry.is_file()
            except OSError:
                continue
            if is_file:
                yield entry.path
        stack.extend(reversed(subdirs))


def old_module_name_for(path: Path | str, roots: Iterable[Path]) -> tuple[str, bool] | None:
    best: list[str] | None = None
    text = str(path)
    for root in roots:
        prefix = str(root).rstrip(os.sep) + os.sep
        if not text.startswith(prefix):
            continue
        parts = text[len(prefix) :].split(os.sep)
        if best is None or len(parts) < len(best):
            best = parts
    if not best or not best[-1]:
        return None
    name = best[-1]
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        best[-1] = name[:dot]
    is_package = best[-1] == "__init__"
    if is_package:
        best = best[:-1]
    if not best or not all(p.isidentifier() for p in best):
        return None
    return ".".join(best), is_package


def old_absolute_module(index: ProjectIndex, name: str) -> str | None:
    if index.has_module(name):
        return name
    suffix: dict[str, list[str]] = {}
    for full in index.module_paths:
        parts = full.split(".")
        for i in range(1, len(parts)):
            suffix.setdefault(".".join(parts[i:]), []).append(full)
    candidates = suffix.get(name, [])
    return candidates[0] if len(candidates) == 1 else None


# -- the walk -------------------------------------------------------------------------------


def _touch(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project with every kind of folder the walk must skip or enter."""
    root = tmp_path / "proj"
    for rel in [
        "top.py",
        "notes.txt",
        "pkg/__init__.py",
        "pkg/a.py",
        "pkg/b.pyi",
        "pkg/sub/__init__.py",
        "pkg/sub/deep.py",
        "pkg/dir.py/inner.py",  # a folder named like a module is still walked
        "build/gen.py",
        ".git/hook.py",
        "thing.egg-info/x.py",
        "node_modules/y.py",
        "venv1/pyvenv.cfg",
        "venv1/lib/site.py",
        "pkg/venv2/pyvenv.cfg",
        "pkg/venv2/inside.py",
        "casevenv/PyVenv.cfg",  # not the marker where names are case-sensitive
        "casevenv/kept.py",
        "dirmarker/pyvenv.cfg/x",  # a folder named pyvenv.cfg: exists(), so a venv
        "dirmarker/skipped.py",
        "tests/test_x.py",
        "tests/data/d.py",
        "src/lib/mod.py",
    ]:
        _touch(root / rel)
    (root / "broken").mkdir()
    (root / "broken" / "pyvenv.cfg").symlink_to(root / "missing")  # dangling: not a venv
    _touch(root / "broken" / "kept2.py")
    (root / "linkdir").symlink_to(root / "pkg", target_is_directory=True)
    (root / "link.py").symlink_to(root / "top.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    return root


EXCLUDES = [(), ("tests",), ("tests/data",), ("*.py",), ("pkg/sub", "top.py"), ("src/",)]


@pytest.mark.parametrize("excludes", EXCLUDES)
def test_walk_matches_the_old_walk(tree: Path, excludes: tuple[str, ...]) -> None:
    for top in [tree, tree / "pkg", tree / "venv1", tree / "pkg" / "venv2", tree / "tests"]:
        assert list(walk_python_paths(top, tree, excludes)) == list(
            old_walk(top, tree, excludes)
        ), (top, excludes)


def test_walk_skips_venvs_but_walks_a_venv_given_as_top(tree: Path) -> None:
    found = {Path(p).relative_to(tree).as_posix() for p in walk_python_paths(tree, tree, ())}
    assert "pkg/venv2/inside.py" not in found and "venv1/lib/site.py" not in found
    assert "dirmarker/skipped.py" not in found
    assert {"broken/kept2.py", "casevenv/kept.py", "pkg/dir.py/inner.py"} <= found
    inside = list(walk_python_paths(tree / "venv1", tree, ()))
    assert [Path(p).relative_to(tree).as_posix() for p in inside] == ["venv1/lib/site.py"]


def test_walk_of_a_missing_or_unlistable_top_is_empty(tmp_path: Path) -> None:
    assert list(walk_python_paths(tmp_path / "nope", tmp_path, ())) == []
    _touch(tmp_path / "f.py")
    assert list(walk_python_paths(tmp_path / "f.py", tmp_path, ())) == []


# -- module names ---------------------------------------------------------------------------


def test_module_name_for_matches_the_old_one(tmp_path: Path) -> None:
    sep = os.sep
    root = tmp_path / "r"
    roots_choices: list[list[Path]] = [
        [root],
        [root, root / "src"],
        [root / "src", root],
        [root, root / "src", root / "src" / "inner"],
        [Path(str(root) + sep)],
        [],
        [root, root],
    ]
    rels = [
        "a.py",
        "a/b.py",
        "a/b/c.py",
        "a/__init__.py",
        "__init__.py",
        "src/pkg/__init__.py",
        "src/pkg/mod.py",
        "src/inner/x.py",
        "src/inner/__init__.py",
        "a/b.tar.gz",
        "a/.hidden.py",
        "a/trailing.",
        "a/noext",
        "1bad/x.py",
        "a/1bad.py",
        "a-b/c.py",
        "a/b-c.py",
        "a//b.py",
        "a/",
        "",
        "é/ü.py",
        "a/b/c/d/e/f.py",
        "src/1/__init__.py",
    ]
    for roots in roots_choices:
        for rel in rels:
            for path in (str(root) + sep + rel.replace("/", sep), root / rel if rel else root):
                assert module_name_for(path, roots) == old_module_name_for(path, roots), (
                    path,
                    roots,
                )
    outside = tmp_path / "elsewhere" / "x.py"
    assert module_name_for(outside, [root]) is None
    assert module_name_for(str(root), [root]) is None


# -- absolute imports -----------------------------------------------------------------------


def _no_load(path: Path) -> ModuleFacts:
    raise AssertionError(f"{path} read: the suffix table needs module names only")


def _index(names: Iterable[str]) -> ProjectIndex:
    return ProjectIndex({n: (f"/p/{n}.py", False) for n in names}, ProjectFiles(_no_load))


def test_absolute_module_matches_the_suffix_table() -> None:
    rng = random.Random(7)
    parts = ["a", "b", "c", "models", "layers", "utils", "x"]
    names = {".".join(rng.choice(parts) for _ in range(rng.randint(1, 5))) for _ in range(300)}
    names |= {"<file>/tmp/odd.py", "trailing.", "x..y", "solo"}
    queries = set(parts) | {"", ".", "py", "missing", "a.b.missing", "y", "odd.py"}
    for n in names:
        pieces = n.split(".")
        queries |= {".".join(pieces[i:]) for i in range(len(pieces))}
        queries |= {".".join(pieces[i:j]) for i, j in itertools.combinations(range(6), 2)}
    fresh = _index(names)
    for q in sorted(queries):
        assert fresh.absolute_module(q) == old_absolute_module(fresh, q), q


def test_absolute_module_table_is_shared_by_indexes_over_the_same_names() -> None:
    """fix/verify.py hands one index's table to the next over the same module names."""
    names = ["pkg.models.llama", "pkg.models.mistral", "other.models.llama", "pkg.utils"]
    first = _index(names)
    assert first.absolute_module("models.mistral") == "pkg.models.mistral"
    assert first.absolute_module("models.llama") is None  # two modules end with it
    assert first._suffix is not None
    second = ProjectIndex(dict(first.module_paths), first.loader, _suffix=first._suffix)
    for q in ["utils", "mistral", "llama", "pkg.models", "nothing", "models"]:
        assert second.absolute_module(q) == old_absolute_module(second, q)


# -- what a run loads -----------------------------------------------------------------------


def _modules_after_check(project: Path) -> set[str]:
    code = (
        "import sys\n"
        "from initlint.cli import main\n"
        "sys.argv = ['initlint', 'check', '--exit-zero', '--no-cache', '-j', '1', '.']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES', *sorted(sys.modules), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("INITLINT")}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, env=env
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def test_a_project_without_pyproject_never_loads_tomllib(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _touch(tmp_path / "m.py", "class A:\n    pass\n")
    assert "tomllib" not in _modules_after_check(tmp_path)


def test_a_check_without_findings_loads_neither_subprocess_nor_the_fix_plans(
    tmp_path: Path,
) -> None:
    """``subprocess`` is for asking another interpreter for its site folders, and the fix
    plan types for planning a fix: a check of a project with neither loads none of them."""
    (tmp_path / ".git").mkdir()
    _touch(tmp_path / "m.py", "class A:\n    def __init__(self):\n        self.x = 1\n")
    loaded = _modules_after_check(tmp_path)
    assert "initlint.simulation.engine" in loaded  # (the check did run)
    assert "subprocess" not in loaded
    assert "initlint.fixplan" not in loaded


def test_a_finding_still_gets_its_fix_plan(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _touch(
        tmp_path / "m.py",
        "import torch\n"
        "class A(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.register_buffer('b', torch.zeros(1024, 1024))\n"
        "class B(A):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.register_buffer('b', torch.zeros(1024, 1024))\n",
    )
    assert "initlint.fixplan" in _modules_after_check(tmp_path)


def test_the_collector_runs_again_after_a_check(tmp_path: Path) -> None:
    """The command line pauses garbage collection while the analysis modules load, and
    only then: a program that runs ``main`` collects as before afterwards."""
    (tmp_path / ".git").mkdir()
    _touch(tmp_path / "m.py", "class A:\n    pass\n")
    code = (
        "import gc, sys\n"
        "from initlint.cli import main\n"
        "sys.argv = ['initlint', 'check', '--exit-zero', '--no-cache', '.']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('ENABLED', gc.isenabled())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert "ENABLED True" in done.stdout, done.stderr


def test_pyproject_is_still_read(tmp_path: Path) -> None:
    _touch(tmp_path / "pyproject.toml", '[tool.initlint]\nflag-name = "init_x"\n')
    _touch(tmp_path / "m.py", "class A:\n    pass\n")
    assert "tomllib" in _modules_after_check(tmp_path)
    shown = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--show-settings"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    ).stdout
    assert 'flag-name = "init_x"' in shown


def test_lazily_compiled_patterns_still_apply() -> None:
    assert suppressed_codes("# initlint: ignore[IL001, il002]") == frozenset({"IL001", "IL002"})
    assert suppressed_codes("# NOQA") == frozenset({"*"})
    assert suppressed_codes("# nothing here") == frozenset()
    assert printable("caf\udce9.py \ud800") == "caf\\xe9.py \\ud800"
    assert printable("plain ascii") == "plain ascii"
    assert printable("déjà") == "déjà"

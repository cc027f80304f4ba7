"""A class whose construction runs an ancestor from a package the run cannot find: the report
says which packages were missing (a note on stderr, ``Report.unread_ancestors``), so that
fewer findings never pass for a clean result; with the package installed, nothing is said."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from initlint.api import check
from initlint.cli import main

from .envkit import CHILD_LINE, make_project, make_venv, write_tree

# Classes beside the plugin's child that a missing package must not count: one without its
# own ``__init__`` (its construction is its parent's), one whose ``__init__`` calls no
# ancestor's, and ancestors from torch and the standard library.
OTHERS = {
    "plugin/others.py": """\
        import abc

        from torch import nn
        from ropelib import Swallowing


        class Inherits(Swallowing):
            pass


        class Alone(Swallowing):
            def __init__(self, size):
                self.size = size


        class Known(nn.Module, abc.ABC):
            def __init__(self):
                super().__init__()
                self.w = nn.Linear(3, 3)
        """
}


def _note(root: Path, *args: str) -> str:
    old = os.getcwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, ["check", *args])
    finally:
        os.chdir(old)
    return "\n".join(line for line in res.output.splitlines() if line.startswith("note: "))


def test_missing_package_is_named_with_a_class_to_look_at(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", extra=OTHERS)
    empty = tmp_path / "empty-env"
    make_venv(empty, {})
    note = _note(project, "--no-cache", "--python", str(empty))
    assert note.startswith("note: 1 class calls into ancestors from packages initlint could")
    assert f"ropelib (1 class, e.g. Child at plugin/child.py:{CHILD_LINE - 3})" in note
    report = check([project], options={"python": str(empty)}, cwd=project, use_cache=False, jobs=1)
    assert [(u.cls, u.ancestor) for u in report.unread_ancestors] == [
        ("plugin.child.Child", "ropelib.Swallowing")
    ]


def test_nothing_said_when_the_environment_holds_the_package(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", extra=OTHERS)
    env = tmp_path / "env"
    make_venv(env)
    assert _note(project, "--no-cache", "--python", str(env)) == ""


def test_nothing_said_when_the_project_defines_the_package(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", extra=OTHERS)
    write_tree(project, {"ropelib/__init__.py": "class Swallowing:\n    pass\n"})
    assert _note(project, "--no-cache") == ""


def test_a_warm_run_says_it_again(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    empty = tmp_path / "empty-env"
    make_venv(empty, {})
    cold = _note(project, "--python", str(empty))
    assert "ropelib (1 class" in cold
    assert _note(project, "--python", str(empty)) == cold


def test_packages_ranked_by_classes_and_cut_after_four(tmp_path: Path) -> None:
    files = {"pyproject.toml": '[project]\nname = "p"\n', "p/__init__.py": ""}
    for i, count in enumerate((1, 3, 2, 1, 1)):
        for k in range(count):
            files[f"p/m{i}_{k}.py"] = (
                f"from pkg{i} import Base\n\n\nclass C{i}_{k}(Base):\n"
                "    def __init__(self):\n        super().__init__()\n"
            )
    write_tree(tmp_path, files)
    empty = tmp_path / "empty-env"
    make_venv(empty, {})
    note = _note(tmp_path, "--no-cache", "--python", str(empty))
    assert note.startswith("note: 8 classes call into")
    order = [note.index(f"pkg{i} (") for i in (1, 2, 0, 3)]
    assert order == sorted(order)
    assert "pkg4 (" not in note and "1 more package." in note


CHAINS = {
    "pyproject.toml": '[project]\nname = "p"\n[tool.initlint]\nextend-exclude = ["vendored"]\n',
    "p/__init__.py": "",
    "p/m.py": """\
        from torch import nn
        from hubmixins import HubMixin
        from enginelib import Base
        from vendored.engine import Engine


        class Mixed(nn.Module, HubMixin):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)


        class Stops(Base):
            def __init__(self):
                self.x = 1


        class AfterStops(Stops):
            def __init__(self):
                super().__init__()


        class Excluded(Engine):
            def __init__(self):
                super().__init__()


        class Reaches(Base):
            def __init__(self):
                super().__init__()
        """,
    "vendored/__init__.py": "",
    "vendored/engine.py": "class Engine:\n    pass\n",
}


def test_only_ancestors_the_chain_of_super_calls_reaches_are_named(tmp_path: Path) -> None:
    write_tree(tmp_path, CHAINS)
    report = check([tmp_path], cwd=tmp_path, use_cache=False, jobs=1)
    # torch's Module.__init__ calls no further ancestor; Stops calls none; the excluded
    # folder is the project's own, not something to install
    assert [(u.cls, u.ancestor) for u in report.unread_ancestors] == [
        ("p.m.Reaches", "enginelib.Base")
    ]


def test_torch_read_from_its_sources_still_ends_the_chain(tmp_path: Path) -> None:
    import sys

    import pytest

    pytest.importorskip("torch")
    write_tree(tmp_path, CHAINS)
    report = check(
        [tmp_path], options={"python": sys.prefix}, cwd=tmp_path, use_cache=False, jobs=1
    )
    assert [(u.cls, u.ancestor) for u in report.unread_ancestors] == [
        ("p.m.Reaches", "enginelib.Base")
    ]

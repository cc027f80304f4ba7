"""Same input, same report: with ancestors read from an installed framework, the report does
not depend on the number of jobs, the process split, the caches or the order of the paths.

The project is plugin-shaped: a framework three levels deep in the project's ``.venv``, whose
runner builds its tables through helpers of a module that no base class reaches from the
runner, a mixin shared by concrete classes in several files, and one file (named to sort
last) whose class does subclass a class of that helper module. What the helpers cost must
be read from their source whatever order the files are checked in, whichever process checks
them, and whatever an earlier run left in the caches."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.fix.attach import EditAttacher
from initlint.fix.propose import fix_planner
from initlint.output.json_format import render_json
from initlint.output.text import render_text
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.run import check_paths

from .envkit import make_venv, write_tree

FRAMEWORK = {
    "fw/__init__.py": "",
    "fw/engine/__init__.py": "",
    "fw/engine/ops/__init__.py": "",
    "fw/engine/ops/tables.py": """\
        import torch
        from torch import nn


        def make_table(n):
            return torch.zeros(n, n)


        def make_states(n):
            return [torch.empty(n, 64) for _ in range(4)]


        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(1024, 1024)


        class TableHolder(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n
        """,
    "fw/engine/runner/__init__.py": "",
    "fw/engine/runner/base.py": """\
        from fw.engine.ops.tables import Sampler, make_states, make_table


        class RunnerBase:
            def __init__(self, n):
                self.n = n
                self.table = make_table(n)
                self.states = make_states(n)
                self.sampler = Sampler()
        """,
    "fw-3.0.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fw\nVersion: 3.0.0\n",
    "fw-3.0.0.dist-info/RECORD": "fw/__init__.py,,\n",
}

FILLER = "class Filler{i}:\n    def __init__(self):\n        self.v = {i}\n"

PROJECT = {
    "pyproject.toml": '[project]\nname = "plugin"\n',
    "plugin/__init__.py": "",
    "plugin/mixins.py": """\
        from fw.engine.ops.tables import make_table


        class TableMixin:
            def __init__(self, n):
                super().__init__(n)
                self.table = make_table(n)
        """,
    "plugin/a_runner.py": """\
        from fw.engine.ops.tables import Sampler, make_states
        from fw.engine.runner.base import RunnerBase

        from plugin.mixins import TableMixin


        class RunnerA(TableMixin, RunnerBase):
            def __init__(self, n):
                super().__init__(n)
                self.states = make_states(n)
                self.sampler = Sampler()
        """,
    "plugin/m_runner.py": """\
        from fw.engine.runner.base import RunnerBase

        from plugin.mixins import TableMixin


        class RunnerM(TableMixin, RunnerBase):
            pass
        """,
    "plugin/n_runner.py": """\
        from fw.engine.runner.base import RunnerBase

        from plugin.mixins import TableMixin


        class RunnerN(TableMixin, RunnerBase):
            pass
        """,
    "plugin/z_holder.py": """\
        from fw.engine.ops.tables import TableHolder


        class Holder(TableHolder):
            def __init__(self, n):
                super().__init__(n)
                self.extra = n
        """,
    # Enough files for the fact pass's pool and the check's forked second half to start.
    **{f"plugin/filler/f{i:02d}.py": FILLER.format(i=i) for i in range(60)},
    "plugin/filler/__init__.py": "",
}

EDIT_PROJECT = ("plugin/a_runner.py", "self.sampler = Sampler()", "self.sampler = None")
EDIT_DEPENDENCY = ("fw/engine/ops/tables.py", "torch.empty(n, 64)", "n")

Render = Callable[[Analysis], str]


def _text(analysis: Analysis) -> str:
    return render_text(analysis.diagnostics) + f"{analysis.files} files\n"


def _json(analysis: Analysis) -> str:
    return render_json(analysis.diagnostics)


def _site(root: Path) -> Path:
    return root / ".venv" / "lib" / "python3.11" / "site-packages"


def _use_project_venv(patch: pytest.MonkeyPatch) -> None:
    """No activated environment: the project's ``.venv`` is the one read."""
    patch.delenv("VIRTUAL_ENV", raising=False)
    patch.delenv("CONDA_PREFIX", raising=False)


def _make(root: Path) -> Path:
    write_tree(root, PROJECT)
    make_venv(root / ".venv", FRAMEWORK)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _paths(root: Path, order: str) -> list[Path]:
    files = sorted((root / "plugin").rglob("*.py"))
    return files[::-1] if order == "reversed" else files


def _serial(root: Path) -> tuple[str, str]:
    """The reference: the serial pipeline, one process, no cache, the files in sorted order."""
    analysis = check_paths(_paths(root, "sorted"), cwd=root, fix_planner=fix_planner)
    return _text(analysis), _json(analysis)


def _run(root: Path, jobs: int, order: str, use_cache: bool) -> tuple[str, str]:
    """What ``initlint check`` reports in text and in JSON (whose fixes carry their edits)."""
    run = partial(
        analyze,
        _paths(root, order),
        cwd=root,
        jobs=jobs,
        use_cache=use_cache,
        fix_planner=fix_planner,
        reuse_results=True,
        progress=False,
    )
    return _text(run()), _json(run(fixes=EditAttacher()))


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """The serial reports of the project as made, after a project edit, after a dependency
    edit."""
    root = _make(tmp_path_factory.mktemp("reference") / "plugin_project")
    with pytest.MonkeyPatch.context() as patch:
        _use_project_venv(patch)
        out = [_serial(root)]
        _edit(root / EDIT_PROJECT[0], *EDIT_PROJECT[1:])
        out.append(_serial(root))
        _edit(_site(root) / EDIT_DEPENDENCY[0], *EDIT_DEPENDENCY[1:])
        out.append(_serial(root))
    return out


def test_the_reference_sees_the_framework(references: list[tuple[str, str]]) -> None:
    """The project is a real test: the rebuilt table and states are reported, on both the
    class that owns the statement and the mixin's concrete classes, and the edits matter."""
    text = references[0][0]
    assert "`self.table`" in text and "(in RunnerM, RunnerN)" in text
    assert "`self.states`" in text and "`self.sampler`" in text
    assert "[error]" in text
    assert len({ref for ref, _ in references}) == 3


SOME = ("plugin/mixins.py", "plugin/m_runner.py", "plugin/z_holder.py")


@pytest.mark.parametrize("jobs", [1, 2])
def test_given_files_in_any_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """Pre-commit's shape: a few files given. The mixin's finding does not depend on whether
    the file whose base class reads the helpers' module comes first or last."""
    _use_project_venv(monkeypatch)
    root = _make(tmp_path / "plugin_project")
    files = [root / name for name in SOME]
    reports = set()
    for given in (files, files[::-1], [files[2], *files[:2]]):
        reference = check_paths(given, cwd=root, fix_planner=fix_planner)
        analysis = analyze(given, cwd=root, jobs=jobs, use_cache=False, fix_planner=fix_planner)
        assert _text(analysis) == _text(reference)
        reports.add(_text(analysis))
    assert len(reports) == 1
    assert "plugin/mixins.py:7:9: IL003 [error] `self.table` is rebuilt" in reports.pop()


@pytest.mark.parametrize("order", ["sorted", "reversed"])
@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_report_is_a_function_of_the_inputs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    references: list[tuple[str, str]],
    jobs: int,
    order: str,
) -> None:
    _use_project_venv(monkeypatch)
    root = _make(tmp_path / "plugin_project")
    assert _run(root, jobs, order, use_cache=False) == references[0]
    assert _run(root, jobs, order, use_cache=True) == references[0]  # cold cache
    assert _run(root, jobs, order, use_cache=True) == references[0]  # warm, unchanged
    _edit(root / EDIT_PROJECT[0], *EDIT_PROJECT[1:])
    assert _run(root, jobs, order, use_cache=True) == references[1]  # a project file edited
    _edit(_site(root) / EDIT_DEPENDENCY[0], *EDIT_DEPENDENCY[1:])
    assert _run(root, jobs, order, use_cache=True) == references[2]  # a dependency edited
    shutil.rmtree(root / ".initlint_cache")
    assert _run(root, jobs, order, use_cache=True) == references[2]  # cold again

"""The pre-commit hooks: their definition, the changed-files-only contract, and a real run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import BASE, CHILD_LINE, CLEAN_CHILD, REPO_ROOT, Project, child

FINDING = f"pkg/child.py:{CHILD_LINE}:9: IL001"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "initlint tests",
    "GIT_AUTHOR_EMAIL": "tests@initlint.invalid",
    "GIT_COMMITTER_NAME": "initlint tests",
    "GIT_COMMITTER_EMAIL": "tests@initlint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def test_hook_definitions() -> None:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {h["id"]: h for h in hooks}
    assert set(by_id) == {"initlint", "initlint-fix"}
    assert by_id["initlint"]["entry"] == "initlint check"
    assert by_id["initlint-fix"]["entry"] == "initlint fix"
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["types"] == ["python"]
        assert hook["name"]


# -- what pre-commit relies on: only the passed files are reported on -----------------------


def test_changed_file_alone_still_resolves_bases_elsewhere(rope_project: Project) -> None:
    run = rope_project.check("pkg/child.py")
    assert run.code == 1
    assert FINDING in run.stdout
    assert "pkg/base.py:" in run.stdout  # the base was read although it was not passed


def test_only_passed_files_are_reported(rope_project: Project) -> None:
    rope_project.write("pkg/other.py", child().replace("class Child", "class Other"))
    run = rope_project.check("--no-dependents", "pkg/base.py", "pkg/other.py")
    assert run.code == 1
    assert "pkg/other.py:" in run.stdout
    assert "pkg/child.py:" not in run.stdout
    # the violation is in a file not passed
    assert rope_project.check("--no-dependents", "pkg/base.py").code == 0
    rope_project.config("[tool.initlint]\ndependents = false\n")
    assert rope_project.check("pkg/base.py").code == 0


def test_files_depending_on_a_passed_file_are_reported(rope_project: Project) -> None:
    """A changed base gives an unchanged subclass a finding: passing only the base reports
    the subclass's finding, marked as a dependent's; an unrelated file is not reported."""
    rope_project.write("pkg/unrelated.py", child().replace("pkg.base", "pkg.nothere"))
    run = rope_project.check("pkg/base.py")
    assert run.code == 1, run.stdout + run.stderr
    assert FINDING in run.stdout
    assert "note: dependent of pkg/base.py (a given file)" in run.stdout
    assert "pkg/unrelated.py" not in run.stdout
    # A folder given asks for its own files only.
    rope_project.write("pkg/sub/__init__.py", "")
    rope_project.write("pkg/sub/base_copy.py", "from pkg.base import Base\n")
    assert FINDING not in rope_project.check("pkg/sub").stdout
    # A finding in a passed file is not marked.
    run = rope_project.check("pkg/child.py")
    assert FINDING in run.stdout and "dependent of" not in run.stdout
    # Through a re-export in a class-less __init__.py, and an import chain.
    rope_project.write("pkg/__init__.py", "from pkg.base import Base\n")
    rope_project.write("pkg/child.py", child().replace("from pkg.base import", "from pkg import"))
    run = rope_project.check("pkg/base.py")
    assert FINDING in run.stdout, run.stdout


def test_passed_file_from_a_subfolder(
    rope_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(rope_project.root / "pkg")
    run = rope_project.check("child.py")
    assert run.code == 1
    assert f"child.py:{CHILD_LINE}:9: IL001" in run.stdout


# -- a real pre-commit run ------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    out = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


def _working_tree_files(root: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files, as a checkout would have them."""
    if (root / ".git").exists():
        listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        return sorted({f for f in listed.split("\0") if f and (root / f).is_file()})
    skip = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not skip & set(p.relative_to(root).parts)
    )


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's working tree (uncommitted and new files included) as a one-commit repo.

    `pre-commit try-repo` on the checkout itself would leave out files that are not yet
    tracked, and builds a fresh hook environment on every call; a snapshot used with
    `repo:` + `rev:` tests exactly what is on disk, and the environment is built once.
    """
    snapshot = tmp_path_factory.mktemp("initlint-hook-repo")
    for rel in _working_tree_files(REPO_ROOT):
        dest = snapshot / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, dest)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", "-A")
    _git(snapshot, "commit", "-q", "-m", "snapshot")
    return snapshot


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _pre_commit(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    which = ["--all-files"] if files == ("--all-files",) else ["--files", *files]
    cmd = [sys.executable, "-m", "pre_commit", "run", "initlint", "--verbose", *which]
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def _user_repo(tmp_path: Path, hook_repo: Path, files: dict[str, str]) -> Path:
    """A git repository holding ``files`` and a .pre-commit-config.yaml using the hook."""
    repo = tmp_path / "user-repo"
    repo.mkdir()
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    rev = _git(hook_repo, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": hook_repo.as_uri(), "rev": rev, "hooks": [{"id": "initlint"}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    return repo


# The base before the change: it builds no cache, so the subclass that builds it is clean.
BASE_WITHOUT_CACHE = BASE.replace(
    'self.register_buffer("cache", self._build(), persistent=False)', "pass"
)


@pytest.mark.slow
def test_pre_commit_fails_on_a_subclass_a_changed_base_breaks(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """Only base.py changes, and is all pre-commit passes: the unchanged subclass file's
    new finding still fails the hook."""
    assert BASE_WITHOUT_CACHE != BASE
    repo = _user_repo(
        tmp_path,
        hook_repo,
        {
            "pyproject.toml": '[project]\nname = "user"\n',
            "pkg/__init__.py": "",
            "pkg/base.py": BASE_WITHOUT_CACHE,
            "pkg/child.py": child(),
        },
    )
    _git(repo, "commit", "-q", "-m", "clean")
    clean = _pre_commit(repo, pre_commit_home, "pkg/base.py")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (repo / "pkg" / "base.py").write_text(BASE, encoding="utf-8")  # now always builds it
    _git(repo, "add", "pkg/base.py")
    bad = _pre_commit(repo, pre_commit_home, "pkg/base.py")
    output = bad.stdout + bad.stderr
    assert bad.returncode == 1, output
    assert "Failed" in output
    assert FINDING in output
    assert "dependent of pkg/base.py" in output


@pytest.mark.slow
def test_pre_commit_all_files_checks_every_project_of_a_monorepo(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """Two projects with a package of the same name: pkg_b's subclass is wrong only against
    pkg_b's own base, which a run that took pkg_a for the whole repository never reads."""
    files = {}
    for top, base in (("pkg_a", BASE_WITHOUT_CACHE), ("pkg_b", BASE), ("pkg_c", BASE)):
        files[f"{top}/pyproject.toml"] = f'[project]\nname = "{top}"\n'
        files[f"{top}/pkg/__init__.py"] = ""
        files[f"{top}/pkg/base.py"] = base
        files[f"{top}/pkg/child.py"] = child()
    repo = _user_repo(tmp_path, hook_repo, files)
    run = _pre_commit(repo, pre_commit_home, "--all-files")
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert f"pkg_a/{FINDING}" not in output
    assert f"pkg_b/{FINDING}" in output
    assert f"pkg_c/{FINDING}" in output


@pytest.mark.slow
def test_pre_commit_hook_end_to_end(tmp_path: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    repo = tmp_path / "user-repo"
    repo.mkdir()
    files = {
        "pyproject.toml": '[project]\nname = "user"\n',
        "pkg/__init__.py": "",
        "pkg/base.py": BASE,
        "pkg/child.py": child(),
        "pkg/clean.py": CLEAN_CHILD,
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    rev = _git(hook_repo, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": hook_repo.as_uri(), "rev": rev, "hooks": [{"id": "initlint"}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")

    # Only the changed file is passed, as on a commit; its base lives in pkg/base.py.
    bad = _pre_commit(repo, pre_commit_home, "pkg/child.py")
    output = bad.stdout + bad.stderr
    assert bad.returncode == 1, output
    assert "Failed" in output
    assert FINDING in output
    assert "pkg/clean.py" not in output

    good = _pre_commit(repo, pre_commit_home, "pkg/clean.py")
    output = good.stdout + good.stderr
    assert good.returncode == 0, output
    assert "Passed" in output
    assert "IL001" not in output

    # The hook environment was built from libcst and click alone: no torch in it.
    pythons = list(pre_commit_home.glob("repo*/py_env-*/bin/python"))
    assert pythons, f"no hook environment under {pre_commit_home}"
    probe = "import importlib.util as u, initlint.cli; print(u.find_spec('torch') is None)"
    for python in pythons:
        out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "True"


LINEAR_CHILD = """\
import torch
from torch import nn


class MyLinear(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o)
        self.weight = nn.Parameter(torch.empty(o, i))
"""


@pytest.mark.slow
def test_pre_commit_hook_reads_the_projects_venv(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """The hook's own environment has no torch; the project's .venv has it. pre-commit sets
    VIRTUAL_ENV to the hook's environment: initlint takes that one last, and reads
    nn.Linear's __init__ from the project's .venv (docs/design.md, "The environment")."""
    torch = pytest.importorskip("torch")
    repo = tmp_path / "user-repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "user"\n', encoding="utf-8")
    (repo / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "pkg" / "m.py").write_text(LINEAR_CHILD, encoding="utf-8")
    # A venv-shaped .venv whose site-packages holds the test environment's real torch.
    venv = repo / ".venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n", encoding="utf-8")
    torch_dir = Path(torch.__file__).resolve().parent
    (site / "torch").symlink_to(torch_dir, target_is_directory=True)
    for info in torch_dir.parent.glob("torch-*.dist-info"):
        (site / info.name).symlink_to(info, target_is_directory=True)
    rev = _git(hook_repo, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": hook_repo.as_uri(), "rev": rev, "hooks": [{"id": "initlint"}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (repo / ".gitignore").write_text(".venv/\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")

    run = _pre_commit(repo, pre_commit_home, "pkg/m.py")
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "pkg/m.py:8:9: IL001 [error] parameter `weight` is registered again" in output
    assert ".venv/lib/" in output and f"(torch {torch.__version__})" in output
    pythons = list(pre_commit_home.glob("repo*/py_env-*/bin/python"))
    probe = "import importlib.util as u; print(u.find_spec('torch') is None)"
    for python in pythons:
        out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "True"

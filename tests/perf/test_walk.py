"""A module added to the project is seen by the next check's walk."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import initlint.driver.walk as walk
from initlint.driver import analyze

BASE = (
    "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n"
    '        self.register_buffer("cache", torch.zeros(4))\n'
)
CHILD = (
    "import torch\nfrom pkg.{mod} import Base\n\n\nclass Child(Base):\n"
    "    def __init__(self):\n        super().__init__()\n"
    '        self.register_buffer("cache", torch.zeros(4))\n'
)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    count: list[int] = []
    real = walk.walk_python_paths

    def counting(*args: object, **kwargs: object) -> object:
        count.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walk, "walk_python_paths", counting)
    return count


def _age(root: Path) -> None:
    """Folders last changed two seconds ago: old enough to be trusted."""
    past = time.time() - 2
    for folder, _, _ in os.walk(root):
        os.utime(folder, (past, past))


def _codes(root: Path, target: Path) -> list[tuple[str, str]]:
    analysis = analyze([target], cwd=root, jobs=1, reuse_results=True)
    return [(Path(d.path).name, d.code) for d in analysis.diagnostics]


def _project(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "sub" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(BASE)
    (root / "app.py").write_text(CHILD.format(mod="base"))
    _age(root)
    return root


def test_new_module_is_seen(tmp_path: Path, walks: list[int]) -> None:
    root = _project(tmp_path / "proj")
    app = root / "app.py"
    app.write_text(CHILD.format(mod="other"))
    _age(root)
    assert _codes(root, app) == []  # pkg.other does not exist yet
    (root / "pkg" / "other.py").write_text(BASE)
    assert _codes(root, app) == [("app.py", "IL001")]
    assert len(walks) == 2

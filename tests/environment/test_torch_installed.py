"""With the real torch installed (the test venv has torch 2.13 CPU): torch's own sources
decide what nn.Linear's __init__ does, and the runtime tracer agrees with every verdict."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.fix.propose import fix_planner
from initlint.settings import Settings

from .envkit import write_tree

torch = pytest.importorskip("torch")

MODELS = """\
import torch
from torch import nn


class RecreatedLinearWeight(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o)
        self.weight = nn.Parameter(torch.empty(o, i))


class RecreatedLinearBias(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o)
        self.bias = nn.Parameter(torch.zeros(o))


class RecreatedConvWeight(nn.Conv2d):
    def __init__(self, i, o):
        super().__init__(i, o, 3)
        self.weight = nn.Parameter(torch.empty(o, i, 3, 3))


class RecreatedEmbedding(nn.Embedding):
    def __init__(self, n, d):
        super().__init__(n, d)
        self.weight = nn.Parameter(torch.randn(n, d))


class LinearWithoutBias(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o, bias=False)
        self.bias = nn.Parameter(torch.zeros(o))


class ConvWithoutBias(nn.Conv2d):
    def __init__(self, i, o):
        super().__init__(i, o, 3, bias=False)
        self.bias = nn.Parameter(torch.zeros(o))


class NormWithoutAffine(nn.LayerNorm):
    def __init__(self, d):
        super().__init__(d, elementwise_affine=False)
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
"""

# class -> (constructor arguments, the parameter the static check must name, or None)
CASES = {
    "RecreatedLinearWeight": ((4, 3), "weight"),
    "RecreatedLinearBias": ((4, 3), "bias"),
    "RecreatedConvWeight": ((2, 3), "weight"),
    "RecreatedEmbedding": ((10, 4), "weight"),
    "LinearWithoutBias": ((4, 3), None),
    "ConvWithoutBias": ((2, 3), None),
    "NormWithoutAffine": ((6,), None),
}
TORCH_SITE = Path(torch.__file__).resolve().parent.parent
# The severity of a repeat of each registration: a weight matrix is heavy, a bias vector
# (O(width) numbers) is light, from torch's sources and from the built-in table alike.
SEVERITY = {"weight": "error", "bias": "warning"}


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    root = tmp_path_factory.mktemp("torchproj")
    write_tree(root, {"pyproject.toml": "", "tmodels/__init__.py": "", "tmodels/m.py": MODELS})
    python = str(Path(sys.executable))  # the test venv's interpreter: torch is installed

    def over(s: Settings) -> Settings:
        return replace(s, python=python)

    analysis = analyze(
        [root], cwd=root, overrides=over, jobs=1, use_cache=False, fix_planner=fix_planner
    )
    found: dict[str, set[str]] = {name: set() for name in CASES}
    for d in analysis.diagnostics:
        assert d.code == "IL001", d
        assert d.path == "tmodels/m.py"
        owner = d.class_name.rsplit(".", 1)[-1]
        found[owner].add(d.message.split("`")[1])
        assert d.severity == SEVERITY[d.message.split("`")[1]], d
        note = d.related[0]
        assert Path(root, note.path).resolve().is_relative_to(TORCH_SITE), note
        assert f"(torch {torch.__version__})" in note.message
        # Any guard would be an edit of torch: the help line says so first.
        assert d.fix is None
        assert d.no_fix.startswith(f"the work is done in torch {torch.__version__}"), d.no_fix
    return root, found


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_verdict(checked: tuple[Path, dict[str, set[str]]], name: str) -> None:
    _, found = checked
    expected = CASES[name][1]
    assert found[name] == ({expected} if expected else set())


@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_agrees(checked: tuple[Path, dict[str, set[str]]], name: str) -> None:
    from initlint.runtime import trace_init

    root, found = checked
    spec = importlib.util.spec_from_file_location("tmodels_m_runtime", root / "tmodels" / "m.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = CASES[name][0]
    trace = trace_init(lambda: getattr(module, name)(*args), project_roots=[root])
    # A parameter first registered as None (bias=False) and then created is no waste.
    wasted = {r.name for r in trace.repeated if r.kind == "parameter" and r.bytes > 0}
    assert wasted == found[name]


def test_without_torch_the_built_in_knowledge_stays(tmp_path: Path) -> None:
    """An environment without torch (the usual pre-commit case): torch's sources cannot be
    read, and the built-in table of what torch modules register (torch_knowledge.TORCH_PARAMS) gives
    the same verdicts as the sources do, each pointing at the class's super call."""
    from .envkit import make_venv

    empty = tmp_path / "env"
    make_venv(empty, {})
    write_tree(
        tmp_path / "p", {"pyproject.toml": "", "tmodels/__init__.py": "", "tmodels/m.py": MODELS}
    )

    def over(s: Settings) -> Settings:
        return replace(s, python=str(empty))

    analysis = analyze(
        [tmp_path / "p"], cwd=tmp_path / "p", overrides=over, jobs=1, use_cache=False
    )
    found: dict[str, set[str]] = {name: set() for name in CASES}
    for d in analysis.diagnostics:
        assert d.code == "IL001", d
        assert d.severity == SEVERITY[d.message.split("`")[1]], d
        assert d.fix is None  # the first registration is torch's: nothing of ours to edit
        assert d.no_fix.startswith("the work is done in torch's "), d.no_fix
        assert "built-in table" in d.no_fix
        found[d.class_name.rsplit(".", 1)[-1]].add(d.message.split("`")[1])
    assert found == {name: ({want} if want else set()) for name, (_, want) in CASES.items()}

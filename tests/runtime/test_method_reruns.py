"""A method of held modules run again over them (``for layer in self.layers:
layer.reset_parameters()``) when each module's construction ran it already: what that first
run filled is filled anew, the first fill thrown away (IL005). Checked against construction:
each tensor reported is filled by the loop, and was filled before it."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from torch.overrides import TorchFunctionMode  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(), nn.Linear(2 * d, d))
        self.weight = nn.Parameter(torch.empty(d, d))
        self.counter = Counter()
        self.reset_parameters()

    def reset_parameters(self):
        for layer in self.mlp:
            if isinstance(layer, nn.Linear):
                layer.reset_parameters()
        nn.init.xavier_uniform_(self.weight)
        self.counter.tick()  # (a held object's method: it may change that object)


class Counter:
    def __init__(self):
        self.n = 0

    def tick(self):
        self.n += 1


class Appended(nn.Module):
    def __init__(self, n=3, d=512):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n):
            self.layers.append(Layer(d))
        self.reset_parameters()

    def reset_parameters(self):
        for layer in self.layers:
            layer.reset_parameters()


class Walked(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.layers = nn.ModuleList([Layer(d) for _ in range(2)])
        self.head = nn.Linear(d, d)
        for m in self.modules():
            if isinstance(m, Layer):
                m.reset_parameters()


class ReadFirst(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.layers = nn.ModuleList([Layer(d) for _ in range(2)])
        self.saved = self.layers[0].weight.detach().clone()
        for layer in self.layers:
            layer.reset_parameters()


class Never(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def reset_parameters(self):
        nn.init.zeros_(self.fc.weight)


class HandsOn(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.lin1 = nn.Linear(d, d)
        self.lin2 = nn.Linear(d, d)

    def reset_parameters(self):
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()


class HandedOn(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.blocks = nn.ModuleList([HandsOn(d) for _ in range(2)])
        for block in self.blocks:
            block.reset_parameters()


class NotRunBefore(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.layers = nn.ModuleList([Never(d) for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters()
"""

# Each class's finding at its loop: the tensors whose fill is thrown away (``*``: any item;
# the Linear biases' fills run under a test of ``bias``, not on every path as read here).
EXPECTED = {
    "Layer": {"mlp.0.weight", "mlp.2.weight"},
    "Appended": {"layers.*.mlp.0.weight", "layers.*.mlp.2.weight", "layers.*.weight"},
    "Walked": {"layers.*.mlp.0.weight", "layers.*.mlp.2.weight", "layers.*.weight"},
    # (a method its construction never ran, that runs its modules' own again)
    "HandedOn": {"blocks.*.lin1.weight", "blocks.*.lin2.weight"},
}


class _Fills(TorchFunctionMode):
    """In-place fills of tensors, each with the module file's lines on the stack."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path, self.seen = path, []  # type: list[tuple[int, frozenset[int]]]

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        name = getattr(func, "__name__", "")
        if name.endswith("_") and not name.startswith("_"):
            tensor = args[0] if args else (kwargs or {}).get("tensor")
            if isinstance(tensor, torch.Tensor):
                lines, frame = set(), sys._getframe(1)
                while frame is not None:
                    if frame.f_code.co_filename == self.path:
                        lines.add(frame.f_lineno)
                    frame = frame.f_back  # type: ignore[assignment]
                self.seen.append((tensor.untyped_storage().data_ptr(), frozenset(lines)))
        return func(*args, **(kwargs or {}))


def _loop_refills(module: object, cls: str, path: str, line: int) -> set[str]:
    """The tensors of a constructed ``cls`` filled from the loop at ``line`` that were filled
    before that, named as the finding names them."""
    with _Fills(path) as fills:
        built = getattr(module, cls)()
    before: set[int] = set()
    again: set[int] = set()
    for ptr, lines in fills.seen:
        if line in lines and ptr in before:
            again.add(ptr)
        before.add(ptr)
    return {
        re.sub(r"^(layers|blocks)\.\d+\.", r"\1.*.", name)
        for name, t in built.named_parameters()
        if t.untyped_storage().data_ptr() in again
    }


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("method_reruns", SOURCE)


def test_a_method_run_again_throws_its_fills_away(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (torch's sources read from the environment the tests run in: what ``nn.Linear``'s
    # construction runs is known from them)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    report = check([module], cwd=module, use_cache=False)
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in report.diagnostics if d.code == "IL005"}
    assert set(found) == set(EXPECTED)
    loaded = importlib.import_module("method_reruns")
    path = str(module / "method_reruns.py")
    for cls, names in EXPECTED.items():
        d = found[cls]
        assert {n.removeprefix("self.") for n in d.message.split(" (")[0].split("`")[1::2]} == (
            names
        ), cls
        assert d.severity == "error"
        assert "by `reset_parameters()` run again," in d.message
        # the loop fills each of them again, and more (the biases, under their tests)
        assert names <= _loop_refills(loaded, cls, path, d.line), cls
    # not reported: a read of a module's numbers in between keeps its first fill (the loop
    # fills them again all the same); a method its construction never ran fills after
    # torch's defaults only (the idiom)
    line = SOURCE.splitlines().index("        self.saved = self.layers[0].weight.detach().clone()")
    assert EXPECTED["Walked"] <= _loop_refills(loaded, "ReadFirst", path, line + 3)

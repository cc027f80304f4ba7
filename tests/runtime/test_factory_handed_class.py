"""A project function that builds a torch container of a class it is handed
(``_get_clones(Layer, n, d_model=d)`` returning ``nn.ModuleList([module_class(**kwargs)
for _ in range(N)])``) holds items of that class: a pass over the whole object after it
refills what the items' own constructions filled. Checked at runtime: each such weight is
drawn again by the pass; a torch class handed so is filled once by the project."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import fills_per_tensor  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


def _get_clones(module_class, N, **kwargs):
    return nn.ModuleList([module_class(**kwargs) for i in range(N)])


def _stack(module_class, N, **kwargs):
    layers = nn.ModuleList([module_class(**kwargs) for _ in range(N)])
    return layers


class Attn(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.q = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self._reset_parameters()

    def _reset_parameters(self):
        nn.init.xavier_uniform_(self.q.weight)
        nn.init.xavier_uniform_(self.v.weight)


class Layer(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.attn = Attn(d_model)


class Encoder(nn.Module):
    def __init__(self, num_layers=2):
        super().__init__()
        self.layers = _get_clones(Layer, num_layers, d_model=64)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder(2)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Stacked(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = _stack(Layer, n, d_model=64)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Plain(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.fc = nn.Linear(d_model, d_model)


def _own_kinds(module_class, N):
    return nn.ModuleList([module_class() for module_class in [Plain] * N])


class LoopName(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = _own_kinds(Attn, n)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Shadowed(nn.Module):
    def __init__(self, Attn=Plain, n=2):
        super().__init__()
        self.layers = _get_clones(Attn, n, d_model=64)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class TorchItems(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = _get_clones(nn.Linear, n, in_features=64, out_features=64)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
"""


def _draws(make: Callable[[], torch.nn.Module]) -> list[int]:
    """How many times the project draws each 2-D weight of the object ``make`` builds."""
    obj, fills = fills_per_tensor("xavier_uniform_", make)
    return [fills[id(p)] for p in obj.parameters() if p.dim() == 2]


def _pass_line(cls: str) -> int:
    lines = SOURCE.splitlines()
    start = lines.index(next(t for t in lines if t.startswith(f"class {cls}(")))
    return next(i for i in range(start, len(lines)) if "nn.init.xavier_uniform_(p)" in lines[i]) + 1


def test_items_of_a_handed_class_are_followed_into_their_construction(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("handed_clones", SOURCE)
    m = importlib.import_module("handed_clones")
    assert set(_draws(m.Transformer)) == {2}  # (Attn's own fill, then the pass)
    assert set(_draws(m.Stacked)) == {2}  # (returned through a local)
    assert set(_draws(m.TorchItems)) == {1}  # (torch's default, then one fill)
    found = {d.line: d for d in check([root], cwd=root, use_cache=False).diagnostics}
    refill = found.get(_pass_line("Transformer"))
    assert refill is not None and refill.code == "IL005" and refill.severity == "error"
    assert "self.encoder.layers.*.attn.q.weight" in refill.message
    stacked = found.get(_pass_line("Stacked"))
    assert stacked is not None and "self.layers.*.attn.q.weight" in stacked.message
    assert _pass_line("TorchItems") not in found


def test_items_of_the_handed_class_only_where_the_names_say_so(
    source_module: Callable[[str, str], Path],
) -> None:
    """The function's own loop name, or the caller's own name for the class, is not the
    module's class: Plain items, filled once, nothing refilled."""
    root = source_module("handed_names", SOURCE)
    m = importlib.import_module("handed_names")
    assert set(_draws(m.LoopName)) == {1}
    assert set(_draws(m.Shadowed)) == {1}
    found = {d.line for d in check([root], cwd=root, use_cache=False).diagnostics}
    assert _pass_line("LoopName") not in found and _pass_line("Shadowed") not in found

"""A method that sets, after reading it, the state it decides on (``if self.built: return`` ...
``self.built = True``) does nothing when run again: its first run's builds and fills are
kept, and no "method run again" repeat is reported (IL005), nor a call of it again after the
ancestor's (IL002). The same method without the guard is reported. Checked against
construction: what the second run builds and fills."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import fills_per_tensor  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.d = d
        self.built = False
        self.reset()

    def reset(self):
        if self.built:
            return
        self.proj = nn.Linear(self.d, self.d)
        self.built = True


class Lin(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.done = False
        self.weight = nn.Parameter(torch.empty(n, n))
        self.reset_parameters()

    def reset_parameters(self):
        if self.done:
            return
        nn.init.normal_(self.weight)
        self.done = True


class Plain(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n, n))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.normal_(self.weight)


class Rebuilt(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = Block()
        self.b.reset()


class Refilled(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Lin()
        self.a.reset_parameters()


class Looped(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Lin() for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters()


class CachedBase(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.n = n
        self.ready = False
        self.build_cache()

    def build_cache(self):
        if self.ready:
            return
        self.register_buffer("cache", torch.randn(self.n, self.n))
        self.ready = True


class Cached(CachedBase):
    def __init__(self):
        super().__init__()
        self.build_cache()


class PlainLooped(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Plain() for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters()
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("run_once_methods", SOURCE)


def test_a_run_once_method_run_again_repeats_nothing(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(d.class_name.rsplit(".", 1)[-1] for d in report.diagnostics)
    assert found == ["PlainLooped"]
    m = importlib.import_module("run_once_methods")
    rebuilt = m.Rebuilt()
    first = rebuilt.b.proj
    rebuilt.b.reset()
    assert rebuilt.b.proj is first  # (the second run built nothing)
    for cls, attr in ((m.Refilled, "a"), (m.Looped, "layers")):
        made, counts = fills_per_tensor("normal_", cls)
        held = getattr(made, attr)
        modules = list(held) if isinstance(held, torch.nn.ModuleList) else [held]
        assert [counts[id(x.weight)] for x in modules] == [1] * len(modules)
    made, counts = fills_per_tensor("normal_", m.PlainLooped)
    assert [counts[id(x.weight)] for x in made.layers] == [2, 2]
    cached = m.Cached()
    first = cached.cache
    cached.build_cache()
    assert cached.cache is first  # (an ancestor's run-once method called again: IL002 quiet)

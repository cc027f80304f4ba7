"""Loops that call a method of held modules and must not be read as refilling what their
constructions filled (IL005): a method the construction ran only on some paths, a test of
the item not understood, arguments, an item replaced or read in between, a walk over the
modules that reaches the object itself first, a holder built elsewhere. Beside them, the
shapes that are (one finding each), so each edge fails for its own reason."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)


class Sometimes(nn.Module):
    def __init__(self, d=4, init=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        if init:
            self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)


# reported: the loop over a held container, and a held module's own method
class Again(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])
        self.one = Layer()
        for layer in self.layers:
            layer.reset_parameters()
        self.one.reset_parameters()


class OnSomePaths(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Sometimes() for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters()


class TestNotUnderstood(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])
        for layer in self.layers:
            if layer.training:
                layer.reset_parameters()


class WithArguments(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters(True)


class ItemReplaced(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])
        self.layers[0] = Layer()
        for layer in self.layers:
            layer.reset_parameters()


class ReadInBetween(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])
        self.norms = [layer.weight.norm() for layer in self.layers]
        for layer in self.layers:
            layer.reset_parameters()


class ItselfFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.one = Layer()
        for m in self.modules():
            if isinstance(m, nn.Module):
                m.reset_parameters()

    def reset_parameters(self):
        self.saved = self.one.weight.detach().clone()


class Pretrained(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, d))
        self.loaded = False
        self.reset_parameters()
        self.loaded = True

    def reset_parameters(self):
        if not self.loaded:
            nn.init.xavier_uniform_(self.weight)


class StateChangedSince(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Pretrained() for _ in range(2)])
        for layer in self.layers:
            layer.reset_parameters()


class PartSetBetween(nn.Module):
    def __init__(self):
        super().__init__()
        self.one = Layer()
        self.one.w0 = self.one.weight.detach().clone()
        self.one.reset_parameters()


class AppendReads(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer()])
        self.layers.append(Copy(self.layers[0].weight))
        for layer in self.layers:
            layer.reset_parameters()


class Copy(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.weight = nn.Parameter(w.detach().clone())


class Plain:
    def __init__(self, d=4):
        self.weight = torch.empty(d, d)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)


class NoModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = Plain()
        for m in self.children():
            m.reset_parameters()


class BuiltElsewhere(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        for layer in self.layers:
            layer.reset_parameters()
"""


def test_only_a_method_its_construction_ran_is_a_refill(
    check_source: Callable[..., Report],
) -> None:
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.line)
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL005"
    )
    lines = SOURCE.splitlines()
    loop = lines.index("            layer.reset_parameters()") + 1
    held = lines.index("        self.one.reset_parameters()") + 1
    assert found == [("Again", loop), ("Again", held)]


def test_an_item_appended_on_some_paths_is_possibly_refilled(
    check_source: Callable[..., Report],
) -> None:
    source = (
        SOURCE
        + """

class Extra(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.layers = nn.ModuleList([nn.Identity()])
        if extra:
            self.layers.append(Layer())
        for m in self.modules():
            if isinstance(m, Layer):
                m.reset_parameters()
"""
    )
    found = [
        (d.class_name.rsplit(".", 1)[-1], d.confidence)
        for d in check_source(source).diagnostics
        if d.code == "IL005"
    ]
    assert ("Extra", "possible") in found
    assert [c for c, _ in found].count("Extra") == 1


def test_a_module_appended_through_a_local_is_an_item(check_source: Callable[..., Report]) -> None:
    source = (
        SOURCE
        + """

class Appended(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n):
            layer = Layer()
            self.layers.append(layer)
        for layer in self.layers:
            layer.reset_parameters()


class UsedThroughLocal(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        layer = Layer()
        self.layers.append(layer)
        self.first = layer.weight.sum()
        for layer in self.layers:
            layer.reset_parameters()


class ChangedFirst(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n):
            layer = Layer()
            layer.weight.data.zero_()
            self.layers.append(layer)
        for layer in self.layers:
            layer.reset_parameters()
"""
    )
    found = [
        d.class_name.rsplit(".", 1)[-1]
        for d in check_source(source).diagnostics
        if d.code == "IL005"
        and d.class_name.endswith(("Appended", "ChangedFirst", "UsedThroughLocal"))
    ]
    # (the second's layer is read through the local after it went in; the third's layers
    # were filled again before they went in: the rerun throws that fill away, not their
    # constructions')
    assert found == ["Appended"]

"""An object built only to be handed to a class that keeps deep copies of it
(``nn.TransformerEncoder(layer, n)``, which clones ``layer`` ``n`` times) is thrown away
once copied: the template's construction is lost (IL005)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import copy

import torch.nn as nn


def _get_clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for i in range(n)])


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.Linear(d, 3 * d)
        self.norm = nn.LayerNorm(d)


class Encoder(nn.Module):
    def __init__(self, layer, n, norm=None):
        super().__init__()
        self.layers = {keeps}
        self.n = n
        if not isinstance(layer, Layer):
            self.fast = False
        elif layer.norm.eps > 1e-3:
            self.fast = False


class Model(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        {build}
"""


@pytest.mark.parametrize(
    ("keeps", "build", "expected"),
    [
        ("_get_clones(layer, n)", "layer = Layer(d)\n        self.enc = Encoder(layer, n)", 1),
        ("_get_clones(layer, n)", "self.enc = Encoder(Layer(d), n)", 1),
        ("copy.deepcopy(layer)", "self.enc = Encoder(Layer(d), n)", 1),
        # the template is used again after: kept
        (
            "_get_clones(layer, n)",
            "layer = Layer(d)\n        self.enc = Encoder(layer, n)\n        self.first = layer",
            0,
        ),
        # the class keeps the object itself
        ("nn.ModuleList([layer])", "self.enc = Encoder(Layer(d), n)", 0),
        # it runs a method of the object: it uses it
        (
            "_get_clones(layer, n)\n        layer.reset_parameters()",
            "self.enc = Encoder(Layer(d), n)",
            0,
        ),
    ],
)
def test_a_template_only_copied_is_thrown_away(
    check_source: Callable[..., Report], keeps: str, build: str, expected: int
) -> None:
    found = check_source(CASE.format(keeps=keeps, build=build)).diagnostics
    assert [d.code for d in found] == ["IL005"] * expected
    for d in found:
        assert "`attn` of the object `Layer(...)`, which Encoder only copies" in d.message
        assert d.severity == "error"


METHOD = """
import copy

import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.size = d
        self.attn = nn.Linear(d, 3 * d)
        self.ff = nn.Linear(d, 4 * d)


class Model(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        layer = Layer(d)
        self.layers = self._clones(layer, n)
        {after}

    def _clones(self, module, n):
        return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])
"""


@pytest.mark.parametrize(
    ("after", "lost"),
    [
        ("pass", "`attn`, `ff`"),
        # a field read after the copies keeps no weight of the template
        ("self.norm = nn.LayerNorm(layer.size)", "`attn`, `ff`"),
        # a module part read after: that part is kept, the other one is not
        ("self.first = layer.attn", "`ff`"),
        # the template itself kept, or a method of it run: it is used
        ("self.first = layer", ""),
        ("layer.reset_parameters()", ""),
    ],
)
def test_a_template_a_method_only_copies_is_thrown_away(
    check_source: Callable[..., Report], after: str, lost: str
) -> None:
    found = check_source(METHOD.format(after=after)).diagnostics
    assert [d.code for d in found] == (["IL005"] if lost else [])
    for d in found:
        assert f"{lost} of the object `Layer(...)`, which _clones only copies" in d.message


ARMS = """
import copy

import torch.nn as nn


def _get_clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for i in range(n)])


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.Linear(d, 3 * d)


class Encoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = _get_clones(layer, n)


class Wrapper(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer


class Model(nn.Module):
    def __init__(self, d, n, shared=False):
        super().__init__()
        layer = Layer(d)
        if shared:
            self.layer = layer
        else:
            self.enc = {other}
"""


@pytest.mark.parametrize(
    ("other", "confidence"),
    [
        # kept on one arm, copied (and dropped) on the other: thrown away there
        ("Encoder(layer, n)", ["possible"]),
        # kept on both arms: never thrown away
        ("Wrapper(layer)", []),
    ],
)
def test_a_template_kept_on_one_arm_and_only_copied_on_the_other(
    check_source: Callable[..., Report], other: str, confidence: list[str]
) -> None:
    found = check_source(ARMS.format(other=other)).diagnostics
    assert [d.confidence for d in found] == confidence
    for d in found:
        assert d.code == "IL005" and d.line == 32 and d.severity == "error"
        assert "kept only on some" in d.message


READS = """
import copy

import torch.nn as nn


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Layer(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size
        self.attn = nn.Linear(size, 3 * size)
        self.ff = nn.Linear(size, 4 * size)


class Encoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)
        {reads}


class Model(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.enc = Encoder(Layer(d), n)
"""


@pytest.mark.parametrize(
    ("reads", "lost"),
    [
        # a field of the template read by the class that copies it keeps no weight
        ("self.norm = nn.LayerNorm(layer.size)", "`attn`, `ff`"),
        # a part of it read (and kept) is not thrown away; the rest is
        ("self.shared = layer.attn", "`ff`"),
        # the template itself kept, or changed before its copies are made: not only copied
        ("self.first = layer", ""),
        ("layer.size = 2", ""),
    ],
)
def test_what_the_copying_class_reads_of_the_template_may_be_kept(
    check_source: Callable[..., Report], reads: str, lost: str
) -> None:
    found = check_source(READS.format(reads=reads)).diagnostics
    assert [d.code for d in found] == (["IL005"] if lost else [])
    for d in found:
        assert f"{lost} of the object `Layer(...)`, which Encoder only copies" in d.message


@pytest.mark.parametrize(
    "reads",
    [
        "self.forward_of_first = layer.forward",  # (a bound method holds the object)
        "self.proto = nn.ModuleDict(layer._modules)",  # (torch's own: every part)
    ],
)
def test_a_read_that_may_hold_the_whole_template_keeps_it(
    check_source: Callable[..., Report], reads: str
) -> None:
    assert check_source(READS.format(reads=reads)).diagnostics == ()


SAME_CALL = """
import copy

import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.Linear(d, 3 * d)


class Encoder(nn.Module):
    def __init__(self, layer, n, first=None):
        super().__init__()
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])
        self.first = first


class Model(nn.Module):
    def __init__(self, d, n, shared=False):
        super().__init__()
        layer = Layer(d)
        {build}
"""


@pytest.mark.parametrize(
    "build",
    [
        "self.enc = Encoder(layer, n, first=layer)",
        "if shared:\n            self.layer = layer\n        else:\n"
        "            self.enc = Encoder(layer, n, first=layer)",
    ],
)
def test_a_template_also_handed_on_whole_in_the_same_call_is_kept(
    check_source: Callable[..., Report], build: str
) -> None:
    assert check_source(SAME_CALL.format(build=build)).diagnostics == ()


IN_AN_ARM = """
import copy
import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.fc = nn.Linear(d, d)


class Encoder(nn.Module):
    def __init__(self, fast, n=12, layer=None):
        super().__init__()
        if fast:
            self.layers = nn.ModuleList([Layer() for _ in range(n)])
        else:
            {build}
            self.layers = nn.ModuleList([copy.deepcopy({name}) for _ in range(n)])
        {after}
"""


@pytest.mark.parametrize(
    ("build", "name", "after", "found"),
    [
        # built and only copied in one arm, named nowhere else: dropped whenever built
        ("block = Layer()", "block", "", [("IL005", "possible")]),
        # mentioned after the arm too: another path may hold something else there
        ("block = Layer()", "block", "self.kept = block if not fast else None", []),
    ],
)
def test_a_template_built_and_copied_in_one_arm_is_thrown_away_there(
    check_source: Callable[..., Report], build: str, name: str, after: str, found: list[object]
) -> None:
    text = IN_AN_ARM.format(build=build, name=name, after=after)
    report = check_source(text)
    assert [(d.code, d.confidence) for d in report.diagnostics] == found
    assert all("is possibly never kept (on some paths)" in d.message for d in report.diagnostics)

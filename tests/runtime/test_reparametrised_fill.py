"""A fill of the part a reparametrisation computes anew (``self.conv = weight_norm(...)``,
then ``self.conv.weight`` filled) never reaches a parameter (IL005); the old spectral_norm's
``weight`` shares ``weight_orig``'s storage, so a fill of it is kept. Checked against the
parameters the constructed object holds."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check  # noqa: E402

SOURCE = """
import torch.nn as nn
from torch.nn.utils import remove_weight_norm, spectral_norm, weight_norm
from torch.nn.utils.parametrizations import weight_norm as param_weight_norm


def wn_conv(*args, **kwargs):
    return weight_norm(nn.Conv1d(*args, **kwargs))


class Block(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.legacy = weight_norm(nn.Conv1d(n, n, 3))
        self.through = wn_conv(n, n, 3)
        self.param = param_weight_norm(nn.Conv1d(n, n, 3))
        self.spectral = spectral_norm(nn.Conv1d(n, n, 3))
        self.init_weights()

    def init_weights(self):
        nn.init.constant_(self.legacy.weight, 0.5)
        nn.init.constant_(self.through.weight, 0.5)
        nn.init.constant_(self.param.weight, 0.5)
        nn.init.constant_(self.spectral.weight, 0.5)


class Removed(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(n, n, 3))
        remove_weight_norm(self.conv)
        nn.init.constant_(self.conv.weight, 0.5)


class Bias(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(n, n, 3), name="bias", dim=None)
        nn.init.constant_(self.conv.bias, 0.5)


class Rewrapped(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(n, n, 3))
        self.conv = nn.Conv1d(n, n, 3)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("wn_blocks", SOURCE)


@pytest.mark.filterwarnings("ignore:.*weight_norm.*is deprecated:FutureWarning")
def test_a_fill_of_a_recomputed_part_is_lost(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    fills = {
        d.message.split("`")[1]: d.severity
        for d in report.diagnostics
        if d.code == "IL005" and "initialisation" in d.message
    }
    assert fills == {
        "self.legacy.weight": "error",
        "self.through.weight": "error",
        "self.param.weight": "error",
        "self.conv.bias": "warning",  # (Bias: a vector)
    }
    # an ordinary replacement of a wrapped module keeps its own note
    (rewrapped,) = [d for d in report.diagnostics if d.class_name.endswith("Rewrapped")]
    assert rewrapped.related[0].message.startswith("built here, and thrown away")
    m = importlib.import_module("wn_blocks")
    # after remove_weight_norm the fill reaches the parameter: not reported, and kept
    assert torch.all(m.Removed().conv.weight == 0.5)
    assert not torch.all(m.Bias().conv.bias_v == 0.5)  # (the bias fill is lost too)
    block = m.Block()
    # the fills reached no parameter: v still holds the numbers the conv was built with
    assert not torch.all(block.legacy.weight_v == 0.5)
    assert not torch.all(block.through.weight_v == 0.5)
    assert not torch.all(block.param.parametrizations.weight.original1 == 0.5)
    # the old spectral_norm's weight is weight_orig's storage: the fill is kept
    assert torch.all(block.spectral.weight_orig == 0.5)


PASSES = """
import torch.nn as nn
from torch.nn.utils import weight_norm


def init_weights(m, mean=0.0, std=0.01):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(mean, std)


class Held(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.convs = nn.ModuleList([weight_norm(nn.Conv1d(n, n, 3)) for _ in range(2)])
        self.convs.apply(init_weights)
        self.post = weight_norm(nn.Conv1d(n, 1, 3))
        self.post.apply(init_weights)


class Whole(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.convs = nn.ModuleList([weight_norm(nn.Conv1d(n, n, 3)), nn.Conv1d(n, n, 3)])
        self.apply(init_weights)


class Chained(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(n, n, 3))
        self.ups = nn.ModuleList()
        for _ in range(2):
            self.ups.append(weight_norm(nn.ConvTranspose1d(n, n, 4)))
        self.net = nn.Sequential(self.conv, nn.ReLU())
        self.conv.weight.data.normal_(0, 0.01)
        self.ups.apply(init_weights)
"""


@pytest.fixture
def passes(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("wn_passes", PASSES)


@pytest.mark.filterwarnings("ignore:.*weight_norm.*is deprecated:FutureWarning")
def test_a_pass_over_wrapped_modules_is_lost_for_them_alone(passes: Path) -> None:
    report = check([passes], cwd=passes, use_cache=False)
    lines = PASSES.splitlines()
    found = {
        lines[d.line - 1].strip(): d.message.split(" is ")[0]
        for d in report.diagnostics
        if d.code == "IL005"
    }
    assert found == {
        "self.convs.apply(init_weights)": ("the initialisation of `self.convs.*.weight`"),
        "self.post.apply(init_weights)": "the initialisation of `self.post.weight`",
        "self.apply(init_weights)": "the initialisation of `self.convs.0.weight`",
        # (a module put in a container stays wrapped; items appended in a loop: possibly)
        "self.conv.weight.data.normal_(0, 0.01)": "the initialisation of `self.conv.weight`",
        "self.ups.apply(init_weights)": "the initialisation of `self.ups.*.weight`",
    }
    m = importlib.import_module("wn_passes")
    torch.manual_seed(0)
    held, whole, chained = m.Held(), m.Whole(), m.Chained()
    # the visitor's numbers (std 0.01) reach no parameter of a wrapped conv: v keeps the
    # conv's own initialisation; the plain conv's weight takes them
    for conv in [*held.convs, held.post, whole.convs[0], chained.conv, *chained.ups]:
        assert conv.weight_v.std() > 0.05
    assert whole.convs[1].weight.std() < 0.02

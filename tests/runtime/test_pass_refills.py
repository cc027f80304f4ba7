"""A pass over the object (a loop over ``self.parameters()`` or ``self.modules()``, or
``self.apply(fn)``) fills the tensors it covers again; a whole fill of one of them just
before it is thrown away, and so is the pass's fill of one that a whole fill follows (IL005).
Checked against construction: every tensor reported is filled whole twice by the class's
own code, and no tensor that is filled twice without a read in between goes unreported
where the pass's tests can be decided."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Before(nn.Module):
    def __init__(self, n=1024, d=512):
        super().__init__()
        self.embed = nn.Embedding(n, d)
        nn.init.normal_(self.embed.weight.data)
        self.norm = nn.LayerNorm(d)
        nn.init.constant_(self.norm.weight, 2.0)
        self._reset()

    def _reset(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class After(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.level = nn.Parameter(torch.empty(1024, d))
        self.scale = nn.Parameter(torch.empty(d))
        for name, p in self.named_parameters():
            if "scale" not in name:
                nn.init.xavier_uniform_(p)
        nn.init.normal_(self.level)
        nn.init.ones_(self.scale)


class Applied(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.conv = nn.Conv2d(3, 3, 3)
        nn.init.kaiming_normal_(self.proj.weight)
        self.proj.bias.data.fill_(0.1)
        nn.init.kaiming_normal_(self.conv.weight)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


class Scaled(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.scale = nn.Parameter(torch.empty(d, d))


class Held(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.block = Scaled(d)
        nn.init.normal_(self.block.scale)
        for m in self.modules():
            if isinstance(m, Scaled):
                nn.init.orthogonal_(m.scale)


class Attention(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            fan = m.in_features
            nn.init.normal_(m.weight, std=fan**-0.5)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


class Block(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = Attention(d)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


class Blanket(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = Attention(d)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadDeep(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = Attention(d)
        self.saved = self.attn.q.weight.detach().clone()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadBetween(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        nn.init.normal_(self.proj.weight)
        self.saved = self.proj.weight.detach().clone()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Undecided(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        nn.init.normal_(self.proj.weight)
        for p in self.parameters():
            if p.requires_grad:
                nn.init.normal_(p)


class TwoPasses(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.apply(self._init)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)


class Disjoint(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.apply(self._init)
        for m in self.modules():
            if isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class Stacked(nn.Module):
    def __init__(self, d=512, n=3):
        super().__init__()
        self.blocks = nn.ModuleList([Attention(d) for _ in range(n)])
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Tower(nn.Module):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.01)
            nn.init.zeros_(m.bias)


def fresh_state(d):
    return {"proj.weight": torch.ones(d, d), "proj.bias": torch.zeros(d)}


class Loaded(nn.Module):
    def __init__(self, d=512, pretrained=True):
        super().__init__()
        self.proj = nn.Linear(d, d)
        nn.init.orthogonal_(self.proj.weight)
        if pretrained:
            self.load_state_dict(fresh_state(d))


class Bare(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.fc = nn.Linear(d, d, bias=False)


def blocks_state(d, n):
    return {f"blocks.{i}.fc.weight": torch.ones(d, d) for i in range(n)}


class DeepLoaded(nn.Module):
    def __init__(self, d=512, n=2, pretrained=True):
        super().__init__()
        self.blocks = nn.ModuleList([Bare(d) for _ in range(n)])
        self.apply(self._init)
        if pretrained:
            self.load_state_dict(blocks_state(d, n))

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class Scoped(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        nn.init.orthogonal_(self.proj.weight)
        for p in self.proj.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class Chain(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.body = nn.Sequential(Attention(d), nn.ReLU(), Scaled(d))
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


def linears_state(d, n):
    return {
        **{f"blocks.{i}.weight": torch.ones(d, d) for i in range(n)},
        **{f"blocks.{i}.bias": torch.zeros(d) for i in range(n)},
    }


def by_class_name(m):
    classname = m.__class__.__name__
    if classname.find("Linear") != -1:
        nn.init.orthogonal_(m.weight.data)


class Listed(nn.Module):
    def __init__(self, d=512, n=3, pretrained=True):
        super().__init__()
        blocks = []
        for _ in range(n):
            blocks.append(nn.Linear(d, d))
        self.blocks = nn.Sequential(*blocks)
        self.apply(by_class_name)
        if pretrained:
            self.load_state_dict(linears_state(d, n))


class Named(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, d), nn.Conv2d(3, 3, 3))
        self.apply(self._init)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.orthogonal_(m.weight)


class NamedNot(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, d), nn.Conv2d(3, 3, 3))
        self.apply(self._init)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        if "Conv" not in type(m).__name__ and isinstance(m, (nn.Linear, nn.Conv2d)):
            nn.init.orthogonal_(m.weight)
        if type(m).__name__ == "Conv2d":
            nn.init.zeros_(m.bias)


class Qkv(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.qkv = nn.Linear(d, d)


class Blk(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.attn = Qkv(d)


class Group(nn.Module):
    def __init__(self, d=512, n=2):
        super().__init__()
        self.blocks = nn.ModuleList([Blk(d) for _ in range(n)])


class Stage(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.group = Group(d)


def deep_state(d, n):
    names = [f"layers.{i}.group.blocks.{j}.attn.qkv" for i in range(n) for j in range(2)]
    return {
        **{f"{name}.weight": torch.ones(d, d) for name in names},
        **{f"{name}.bias": torch.zeros(d) for name in names},
    }


class Deep(nn.Module):
    def __init__(self, d=512, n=2, pretrained=True):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n):
            layer = Stage(d)
            self.layers.append(layer)
        self.apply(self._init)
        if pretrained:
            self.load_state_dict(deep_state(d, n))

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class NamedMiss(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, d), nn.Conv2d(3, 3, 3))
        self.apply(self._init)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        classname = m.__class__.__name__
        if classname.find("Norm") != -1:
            nn.init.ones_(m.weight)
"""

# Each class's finding: the tensors whose fill is thrown away, and its severity.
EXPECTED = {
    "Before": ({"embed.weight"}, "error"),  # (the norm's 1-D weight: not covered)
    "After": ({"level"}, "error"),
    "Applied": ({"proj.weight", "proj.bias"}, "error"),  # (one finding at the pass)
    # a project module's part, priced from that module's construction (a 2-D parameter)
    "Held": ({"block.scale"}, "error"),
    # a held module's own construction filled them (its ``apply``): thrown away by the pass
    "Block": ({"attn.q.weight", "attn.q.bias"}, "error"),
    "Blanket": ({"attn.q.weight"}, "error"),
    # a pass's fills, thrown away by the next pass over the same tensors (not the norm's)
    "TwoPasses": ({"proj.weight"}, "error"),
    # the held modules of a container, each having filled its own (``*``: every item)
    "Stacked": ({"blocks.*.q.weight"}, "error"),
    "Chain": ({"body.0.q.weight"}, "error"),  # (``Scaled`` fills nothing of its own)
    # a pass over one held module: its head's read of that module is the walk's own
    "Scoped": ({"proj.weight"}, "error"),
    # a strict load fills every parameter: the orthogonal fill before it is lost
    "Loaded": ({"proj.weight"}, "error"),
    # the pass's fills of the blocks' own projections, replaced by the loaded state
    "DeepLoaded": ({"blocks.*.fc.weight"}, "error"),
    # two levels down: each block's pass filled its attention's projection again
    "Tower": ({"layers.*.attn.q.weight", "layers.*.attn.q.bias"}, "error"),
    # the Linears of a local list appended in a loop, filled by a pass that tests their
    # class's name, then loaded
    "Listed": ({"blocks.*.weight"}, "error"),
    # a class-name test picks the convolution (or all but it) among a container's modules;
    # the convolution, 3 x 3 x 3 x 3 numbers, is light for what it holds, whatever the
    # container holds besides
    "Named": ({"body.1.weight"}, "warning"),
    "NamedNot": ({"body.0.weight"}, "error"),
    # modules appended in a loop, four levels of project modules down to the Linear
    "Deep": ({"layers.*.group.blocks.*.attn.qkv.weight"}, "error"),
}


def _tensors(message: str) -> set[str]:
    """The tensors a message names before its ``by``."""
    head = message.split(" by ", 1)[0]
    return {n.removeprefix("self.") for n in head.split("`")[1::2]}


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("pass_blocks", SOURCE)


def test_fills_a_pass_throws_away(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {
        d.class_name.rsplit(".", 1)[-1]: (_tensors(d.message), d.severity)
        for d in report.diagnostics
        if d.code == "IL005"
    }
    assert found == EXPECTED
    loaded = importlib.import_module("pass_blocks")
    path = str(module / "pass_blocks.py")
    for cls, (reported, _) in EXPECTED.items():
        # each one reported is filled twice; and each tensor filled twice is reported
        assert filled_twice(getattr(loaded, cls), path) == reported, cls
    # a read in between keeps the first fill; a test not understood claims nothing (the
    # runtime fills the weight twice all the same)
    assert filled_twice(loaded.ReadBetween, path) == {"proj.weight"}
    assert filled_twice(loaded.Undecided, path) == {"proj.weight"}
    # a class that fills nothing of its own; a held module's pass over torch's modules
    # (their defaults, then one fill: not reported, and once at runtime); a read between
    assert filled_twice(loaded.Scaled, path) == set()
    assert filled_twice(loaded.Attention, path) == set()
    assert filled_twice(loaded.ReadDeep, path) == {"attn.q.weight"}
    assert filled_twice(loaded.Disjoint, path) == set()
    assert filled_twice(loaded.NamedMiss, path) == set()


def test_messages_name_the_pass(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    by_class = {d.class_name.rsplit(".", 1)[-1]: d for d in report.diagnostics}
    before = by_class["Before"]
    assert "filled again here, by a pass over `self.parameters()`" in before.message
    assert before.related[0].message.startswith("filled here, and the fill thrown away")
    after = by_class["After"]
    assert "by a pass over `self.named_parameters()` in After.__init__" in after.message
    applied = by_class["Applied"]
    assert applied.message.startswith(
        "the initialisation of `self.proj.weight` and `self.proj.bias` (the costliest filled "
        "by Applied.__init__ at "
    )
    assert "are filled again here" in applied.message
    assert "by a pass over `self.apply(...)`" in applied.message

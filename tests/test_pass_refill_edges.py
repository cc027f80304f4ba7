"""Shapes around an initialisation pass that must not be read as a fill thrown away (IL005):
each was a false finding in review, checked at runtime then (the first fill's numbers live
on). Walks with arguments or over a subscripted holder, a class that only shares a torch
name, tests that cannot hold, reads of the pass's or the fill's numbers, tensors whose
dimensions are not those of torch's tables, a project function named like torch's fills."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


# subscript_scope
class SubscriptScope(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.head = nn.Linear(4, 4)
        nn.init.constant_(self.head.weight, 0.5)
        for p in self.layers[0].parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


# recurse_false
class RecurseFalse(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.pos = nn.Parameter(torch.zeros(1, 4))
        nn.init.constant_(self.fc.weight, 0.5)
        for p in self.parameters(recurse=False):
            if p.dim() > 1:
                nn.init.trunc_normal_(p, std=0.02)


# prefix_names
class PrefixNames(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.bias, 0.5)
        for n, p in self.named_parameters(prefix="model"):
            if n.startswith("fc"):
                nn.init.zeros_(p)


# own_linear
class Linear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i))


class OwnLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Linear(4, 4)
        self.b = nn.Linear(4, 4)
        nn.init.constant_(self.b.weight, 0.5)
        for m in self.modules():
            if isinstance(m, Linear):
                nn.init.normal_(m.weight)


# lazy_wanted
class LazyWanted(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Linear(4, 4)
        nn.init.constant_(self.b.weight, 0.5)
        for m in self.modules():
            if isinstance(m, nn.LazyLinear):
                nn.init.zeros_(m.weight)


# pass_reads_after
class PassReadsAfter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.apply(self._init)
        nn.init.normal_(self.fc.weight)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
            m.bias.data.copy_(m.weight.data[0])


# after_derived
class AfterDerivedA(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        self.fc.weight.data.copy_(self.fc.weight.data * 2)


class AfterDerivedB(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        nn.init.orthogonal_(self.fc.weight, gain=self.fc.weight.std().item())


class AfterDerivedC(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        with torch.no_grad():
            self.fc.weight.copy_(torch.nn.functional.normalize(self.fc.weight, dim=1))


# norm_dims
class NormDims(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm((8, 4))
        nn.init.constant_(self.norm.weight, 0.5)
        for p in self.parameters():
            if p.dim() == 1:
                nn.init.ones_(p)


# legacy_tuple
class LegacyTuple(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.Tensor((3, 4)))
        nn.init.constant_(self.scale, 0.5)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


# legacy_list
class LegacyList(nn.Module):
    def __init__(self):
        super().__init__()
        self.coef = nn.Parameter(torch.FloatTensor([1, 2, 3]))
        nn.init.constant_(self.coef, 0.5)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


# nested_replaced
class NestedReplaced(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.fc.weight = nn.Parameter(torch.empty(4))
        nn.init.constant_(self.fc.weight, 0.5)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


# tied_names
class TiedNames(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight
        nn.init.constant_(self.head.weight, 0.5)
        for n, p in self.named_parameters():
            if n.startswith("head"):
                nn.init.xavier_uniform_(p)


# custom_underscore
def rescale_(t, s):
    with torch.no_grad():
        t.mul_(s)


class CustomUnderscore(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        for p in self.parameters():
            if p.dim() > 1:
                rescale_(p, 2.0)


# reads_between
def helper(mod):
    return mod


class ReadsBetweenA(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        self.s = self.fc.weight.sum()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadsBetweenB(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        helper(self)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadsBetweenC(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        self.snap()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def snap(self):
        self.saved = self.fc.weight.detach().clone()


class ReadsBetweenD(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        self.saved = {k: v.clone() for k, v in self.state_dict().items()}
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadsBetweenE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        self.saved = [p.detach().clone() for p in self.parameters()]
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadsBetweenF(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        self.ema = {n: p.detach().clone() for n, p in self.named_parameters()}
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class ReadsBetweenG(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.constant_(self.fc.weight, 0.5)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                m.bias.data.copy_(m.weight.data[0])
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
"""

# A holder that is no module, reads through ``getattr`` in a pass, a project method named
# like torch's ``eval`` (it may read anything), a project subclass of ``nn.Linear`` held
# (its fills are torch's defaults).
SECOND = """
import torch
from torch import nn


def outer_init(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)


class Stats:
    def __init__(self, d=32):
        self.proj = nn.Linear(d, d)
        nn.init.orthogonal_(self.proj.weight)


class PlainHolder(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.stats = Stats(d)
        self.apply(outer_init)


class GetattrLocal(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.head = nn.Linear(d, d)
        nn.init.orthogonal_(self.head.weight)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                w = getattr(m, "weight")
                ref = w.detach().clone()
                nn.init.zeros_(m.weight)
        self.register_buffer("ref", ref)


class GetattrVisitor(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.head = nn.Linear(d, d)
        nn.init.orthogonal_(self.head.weight)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            w = getattr(m, "weight")
            scale = w.abs().max().item()
            nn.init.normal_(m.weight, std=scale)


class Rep(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d, d))
        self.fused = None

    def eval(self):
        self.fused = self.weight.detach().clone() * 2
        return super().eval()


class OverriddenEval(nn.Module):
    def __init__(self, w, d=32):
        super().__init__()
        self.fc = Rep(d)
        self.fc = self.fc.eval()
        self.fc.weight = w


class OverriddenEvalChained(nn.Module):
    def __init__(self, w, d=32):
        super().__init__()
        self.fc = Rep(d).eval()
        self.fc.weight = w


class Lin(nn.Linear):
    pass


class HeldSubclass(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.fc = Lin(d, d)
        self.apply(outer_init)
"""

DOUBLE = """
import torch
from torch import nn


class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        nn.init.normal_(self.fc.weight)
        nn.init.orthogonal_(self.fc.weight)
"""


# Around a pass after a pass and the items of a held container: the first pass's numbers
# read in between, passes over different tensors, an item read in between, a name test
# that picks items by number (which items ``blocks.*`` stands for is not known); a state
# loaded loosely, by assignment, after a read of what it replaces, by the class's own
# loading, from the object's own state, where a failure is caught, or with arguments
# initlint cannot see; a local list of modules read after the container is built from it,
# appended to under a guard, or changed in another way; a walk of the children, which
# yields the containers and not what they hold; a class name bound twice.
THIRD = """
import torch
from torch import nn


class Blk(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class PassesReadBetween(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.apply(self._init)
        self.saved = self.fc.weight.detach().clone()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class PassesDisjoint(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)
        self.apply(self._init)
        for m in self.modules():
            if isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)


class ItemsReadBetween(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Blk() for _ in range(2)])
        self.first = self.blocks[0].q.weight.detach().clone()
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)


class LoadNotStrict(nn.Module):
    def __init__(self, sd):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.load_state_dict(sd, strict=False)


class LoadAssigned(nn.Module):
    def __init__(self, sd):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.load_state_dict(sd, assign=True)


class LoadAfterRead(nn.Module):
    def __init__(self, sd):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.first = self.fc.weight.detach().clone()
        self.load_state_dict(sd)


class OwnLoading(nn.Module):
    def load_state_dict(self, state, strict=True):
        if state is None:
            return None
        return super().load_state_dict(state, strict)


class LoadOverridden(OwnLoading):
    def __init__(self, sd=None):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.load_state_dict(sd)


class LoadOwnState(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.load_state_dict(self.state_dict())


class LoadMayFail(nn.Module):
    def __init__(self, sd):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        try:
            self.load_state_dict(sd)
        except RuntimeError:
            pass


class LoadStarred(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.orthogonal_(self.fc.weight)
        self.load_state_dict(*args)


class ItemsByNumber(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Blk() for _ in range(2)])
        for n, p in self.named_parameters():
            if "blocks.0" not in n:
                nn.init.xavier_uniform_(p)


def linear_init(m):
    if isinstance(m, nn.Linear):
        nn.init.orthogonal_(m.weight)


class ListedReadAfter(nn.Module):
    def __init__(self, sd):
        super().__init__()
        blocks = []
        for _ in range(2):
            blocks.append(nn.Linear(4, 4))
        self.blocks = nn.Sequential(*blocks)
        self.apply(linear_init)
        self.first = blocks[0].weight.detach().clone()
        self.load_state_dict(sd)


class ListedGuarded(nn.Module):
    def __init__(self, sd, deep=False):
        super().__init__()
        blocks = []
        if deep:
            blocks.append(nn.Linear(4, 4))
        self.blocks = nn.ModuleList(blocks)
        self.apply(linear_init)
        self.load_state_dict(sd)


class ListedChanged(nn.Module):
    def __init__(self, sd, extra):
        super().__init__()
        blocks = []
        blocks.append(nn.Linear(4, 4))
        blocks[0] = extra
        self.blocks = nn.Sequential(*blocks)
        self.apply(linear_init)
        self.load_state_dict(sd)


class ChildrenOnly(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        blocks = []
        for _ in range(2):
            blocks.append(nn.Linear(d, d))
        self.blocks = nn.Sequential(*blocks)
        self.body = nn.Sequential(nn.Linear(d, d), nn.Linear(d, d))
        self.apply(linear_init)
        for m in self.children():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight)


class ClassNameRebound(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.Conv2d(3, 3, 3))
        self.apply(self._init)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def _init(self, m):
        classname = m.__class__.__name__
        classname = "" if hasattr(m, "groups") else classname
        if classname.find("Conv") != -1:
            nn.init.orthogonal_(m.weight)
"""


def _pass_findings(report: Report) -> list[str]:
    return [
        f"{d.class_name.rsplit('.', 1)[-1]}:{d.line}"
        for d in report.diagnostics
        if d.code == "IL005" and "initialisation" in d.message
    ]


@pytest.mark.parametrize("torch_read", [False, True])
def test_no_fill_is_claimed_thrown_away(
    check_source: Callable[..., Report], monkeypatch: pytest.MonkeyPatch, torch_read: bool
) -> None:
    if torch_read:  # (torch's classes read from the environment the tests run in)
        pytest.importorskip("torch")
        monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    assert _pass_findings(check_source(SOURCE)) == []
    second = check_source(SECOND, "second.py").diagnostics
    assert [d.class_name for d in second if d.path.endswith("second.py")] == []
    assert _pass_findings(check_source(THIRD, "third.py")) == []


def test_a_fill_after_a_fill_after_the_pass_is_the_second_fills_loss(
    check_source: Callable[..., Report],
) -> None:
    # the ``normal_`` (line 13) throws the pass's fill away; the ``orthogonal_`` after it
    # throws away ``normal_``'s (two own whole fills), not the pass's again
    found = [d for d in check_source(DOUBLE).diagnostics if d.code == "IL005"]
    assert [f"{d.line}" for d in found] == ["13", "14"]
    assert "by a pass over" in found[0].message
    assert "by Twice.__init__ at" in found[1].message and "that fill is" in found[1].message

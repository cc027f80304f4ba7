"""One pass written as a loop with a fill statement per kind of tensor (``init.normal_(
m.weight)``, ``init.constant_(m.bias, 0)``, the norms' own) is one pass: the fills it throws
away, over a held module's own init pass, are one finding at the loop's first fill, an error
when any of them is costly; two loops are two."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch.nn as nn
from torch.nn import init


def _init(module):
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            init.normal_(m.weight, std=0.01)
            if m.bias is not None:
                init.constant_(m.bias, 0)
        elif isinstance(m, nn.BatchNorm2d):
            init.constant_(m.weight, 1)
            init.constant_(m.bias, 0)


class Block(nn.Module):
    def __init__(self, c=64):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3)
        self.norm = nn.BatchNorm2d(c)
        self.init_params()

    def init_params(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                init.normal_(m.weight, std=0.01)
                if m.bias is not None:
                    init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm2d):
                init.constant_(m.weight, 1)
                init.constant_(m.bias, 0)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.init_params()

    def init_params(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                init.normal_(m.weight, std=0.01)
                if m.bias is not None:
                    init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm2d):
                init.constant_(m.weight, 1)
                init.constant_(m.bias, 0)


class TwoLoops(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                init.normal_(m.weight, std=0.01)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                init.constant_(m.weight, 1)
"""


def test_a_loop_of_fills_is_one_finding(check_source: Callable[..., Report]) -> None:
    found = [
        (d.class_name.rsplit(".", 1)[-1], d.line, d.severity)
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL005"
    ]
    assert found == [
        ("Decoder", 44, "error"),  # (its loop's first fill, ``init.normal_(m.weight, ...)``)
        ("TwoLoops", 58, "error"),
        ("TwoLoops", 61, "warning"),
    ]

"""An object built by a factory of the project (``net = make()``, where ``make(**kwargs)``
returns ``Net(**kwargs)``) is simulated with the parameters that factory's construction of
the class leaves at their defaults: the packs it passes on carry only what its caller gave
them. A part built from a default the caller leaves alone (``blocks`` left None, so the
list of classes written in ``__init__``) is then priced as what it builds. A factory that
changes or hands on its pack, or a caller that passes a pack, leaves every parameter
unknown, as before."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class BlockA(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3)


class Net(nn.Module):
    def __init__(self, blocks=None, n=10):
        super().__init__()
        if blocks is None:
            blocks = [BlockA, BlockA]
        block_a = blocks[0]
        self.a = block_a(8)
        self.fc = nn.Linear(8, n)


def fill(kwargs):
    kwargs["blocks"] = None


def make(*args, **kwargs):
    {work}
    return Net(*args, **kwargs)


def outer(**kwargs):
    model = make(**kwargs)
    return model


class User(nn.Module):
    def __init__(self, given):
        super().__init__()
        net = {call}
        net.a = BlockA(16)
        self.net = net
"""


@pytest.mark.parametrize(
    ("work", "call", "severity"),
    [
        ("pass", "make(n=4)", "error"),  # (``blocks`` left out: the written-out list)
        ("pass", "outer(n=4)", "error"),  # (through two factories)
        ("pass", "make(blocks=given)", "warning"),  # (the caller's blocks: not known)
        ("pass", "make(**given)", "warning"),  # (a pack: any parameter may be in it)
        ("kwargs.update(n=2)", "make(n=4)", "warning"),  # (the factory fills its pack)
        ("fill(kwargs)", "make(n=4)", "warning"),  # (or hands it on)
    ],
)
def test_a_factorys_construction_leaves_out_what_its_caller_does(
    check_source: Callable[..., Report], work: str, call: str, severity: str
) -> None:
    report = check_source(CASE.format(work=work, call=call))
    found = [(d.line, d.code, d.severity) for d in report.diagnostics]
    assert found == [(39, "IL005", severity)]

"""A module built in a local and filled there (``nn.init.normal_(proj.weight)``), then
stored whole (``self.proj = proj``), is the module the class stores: a later pass over the
object (``self.apply(init)``) knows its class, covers its tensors, and throws the local's
fill away. A fill of a part does not take the part out of the object."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim, vocab):
        super().__init__()
        proj = nn.Linear(dim, vocab)
{between}
        self.proj = proj
{after}
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
"""


def _source(between: str, after: str = "") -> str:
    """``SOURCE`` with statements before the store and after it (each line indented)."""
    indent = "\n".join(f"        {line}" for line in between.split("\n"))
    later = "\n".join(f"        {line}" for line in after.split("\n")) if after else ""
    return SOURCE.format(between=indent, after=later)


@pytest.mark.parametrize(
    "between",
    [
        "nn.init.normal_(proj.weight, std=dim**-0.5)",
        "proj.weight.data.normal_(0.0, 0.02)",
        "nn.init.constant_(proj.weight, 5.0)\nnn.init.zeros_(proj.bias)",
    ],
)
def test_a_local_fill_is_thrown_away_by_the_pass(
    check_source: Callable[..., Report], between: str
) -> None:
    source = _source(between)
    found = check_source(source).diagnostics
    assert [d.code for d in found] == ["IL005"]
    assert "`self.proj.weight`" in found[0].message


@pytest.mark.parametrize(
    "between",
    [
        # the fill reads the module's own numbers: not a fill from nothing it holds
        "nn.init.normal_(proj.weight, std=float(proj.weight.std()))",
        # a part taken out and kept elsewhere: the object is not stored as it was built
        "self.w = proj.weight\nnn.init.normal_(proj.weight)",
        # a slice filled: the rest keeps what it had
        "nn.init.zeros_(proj.weight[0])",
        # filled only on some paths that store it
        "if dim > 4:\n    nn.init.normal_(proj.weight)",
        # the module used before it is stored: its numbers were read
        "proj(torch.ones(1, dim))",
        "proj = nn.utils.parametrizations.weight_norm(proj)",
        "self.other = nn.Linear(vocab, dim)\nnn.init.normal_(proj.weight)\n"
        "self.other.weight.data.copy_(proj.weight.data.t())",
    ],
)
def test_no_fill_is_carried_where_the_part_was_used_or_not_filled_whole(
    check_source: Callable[..., Report], between: str
) -> None:
    source = _source(between)
    found = check_source(source).diagnostics
    assert not [d for d in found if "`self.proj.weight`" in d.message]


@pytest.mark.parametrize(
    "after",
    [
        # read through the local after the store: the fill was used
        'self.register_buffer("w0", proj.weight.detach().clone())',
        "proj(torch.ones(1, dim))",
        # filled again through the local: that fill, not the pass, throws the first away
        "nn.init.zeros_(proj.weight)",
    ],
)
def test_no_fill_is_carried_where_the_local_is_used_after_the_store(
    check_source: Callable[..., Report], after: str
) -> None:
    found = check_source(_source("nn.init.normal_(proj.weight, std=dim**-0.5)", after)).diagnostics
    assert not [d for d in found if "`self.proj.weight`" in d.message]


def test_the_pass_overwrites_the_local_fill_at_runtime() -> None:
    torch = pytest.importorskip("torch")
    namespace: dict[str, object] = {}
    exec(_source("nn.init.constant_(proj.weight, 5.0)"), namespace)
    encoder = namespace["Encoder"](8, 16)  # type: ignore[operator]
    assert not torch.any(encoder.proj.weight == 5.0)

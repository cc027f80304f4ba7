"""An object the construction builds and holds (``self.head = Head(hidden, 8)``) is
simulated with the numbers its call gives it: written out, read from the constructed
class's own argument at its default, from an attribute set to one (``self.out = in_ch * 2
if sigma else in_ch``: the larger arm), or through a local built so and stored. A fill of
its tensor thrown away is priced at those sizes; sizes its call leaves to a name bound anew
(a comprehension's) stand for any size. Runtime agreement is checked in
``tests/runtime/test_refill_sizes.py``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, hidden, out):
        super().__init__()
        self.conv = nn.Conv2d(hidden, out, 3, padding=1)
        nn.init.xavier_uniform_(self.conv.weight)


class Model(nn.Module):
    def __init__(self, in_ch=4, hidden=1152, sigma=True, dims=(4096,)):
        super().__init__()
        {build}
        {fill}
"""


HEAD = "nn.init.zeros_(self.head.conv.weight)"


@pytest.mark.parametrize(
    ("build", "fill", "severity"),
    [
        # 1152 x 8 x 3 x 3 numbers: 331 KiB
        ("self.head = Head(1152, 8)", HEAD, "warning"),
        ("self.head = Head(hidden, 8)", HEAD, "warning"),
        ("self.head = Head(hidden=hidden, out=2 * in_ch)", HEAD, "warning"),
        (
            "self.out = in_ch * 2 if sigma else in_ch\n        self.head = Head(hidden, self.out)",
            HEAD,
            "warning",
        ),
        ("head = Head(hidden, 8)\n        self.head = head", HEAD, "warning"),
        # 1152 x 576 x 3 x 3 numbers: 23 MiB
        ("self.head = Head(hidden, hidden // 2)", HEAD, "error"),
        # a size the call leaves to a name not known here: any size
        ("self.head = Head(hidden, len(dims))", HEAD, "error"),
        (
            "self.out = 8\n        self.out += len(dims)\n"
            "        self.head = Head(hidden, self.out)",
            HEAD,
            "error",
        ),
        (
            "self.heads = nn.ModuleList([Head(hidden, 8) for hidden in dims])",
            "for h in self.heads:\n            nn.init.zeros_(h.conv.weight)",
            "error",
        ),
    ],
)
def test_a_held_object_is_priced_at_the_numbers_its_call_gives(
    check_source: Callable[..., Report], build: str, fill: str, severity: str
) -> None:
    found = check_source(CASE.format(build=build, fill=fill)).diagnostics
    assert [d.severity for d in found if d.code == "IL005"] == [severity]


WIDE_DTYPE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 768, dtype=torch.float64)
        nn.init.xavier_uniform_(self.fc.weight)
        nn.init.zeros_(self.fc.weight)
"""


def test_a_weight_of_a_dtype_given_is_not_priced_by_its_count(
    check_source: Callable[..., Report],
) -> None:
    # 196,608 float64 numbers: 1.5 MiB, though fewer numbers than a float32 mebibyte
    (found,) = [d for d in check_source(WIDE_DTYPE).diagnostics if d.code == "IL005"]
    assert found.severity == "error" or "not known here" in found.message

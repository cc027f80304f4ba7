"""A loop over the items of a container the object holds (``for block in self.blocks:``,
also ``self.transformer.h``) that fills a part of a module each item holds
(``nn.init.zeros_(block.mlp.proj.weight)``) fills ``blocks.*.mlp.proj.weight``: a fill
of it by an earlier pass is thrown away (IL005)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = MLP(d)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.transformer = nn.ModuleDict({{"h": nn.ModuleList([Block(d) for _ in range(n)])}})
        self.apply(self._init_weights)
        for block in self.{walked}:
            {loop}

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
"""


@pytest.mark.parametrize(
    ("walked", "loop", "expected"),
    [
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.weight)", "self.blocks.*.mlp.proj.weight"),
        (
            "transformer.h",
            "block.mlp.proj.weight.data.normal_(0.0, 0.01)",
            "self.transformer.h.*.mlp.proj.weight",
        ),
        # a part the pass did not fill, a test of the item, a slice: nothing claimed
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.bias)", ""),
        (
            "blocks",
            "if isinstance(block, Block):\n"
            "                torch.nn.init.zeros_(block.mlp.proj.weight)",
            "",
        ),
        ("blocks", "torch.nn.init.zeros_(block.mlp.proj.weight[0])", ""),
    ],
)
def test_a_loop_over_held_items_fills_a_part_each_holds(
    check_source: Callable[..., Report], walked: str, loop: str, expected: str
) -> None:
    found = check_source(CASE.format(walked=walked, loop=loop)).diagnostics
    assert [d.message.split("`")[1] for d in found if d.code == "IL005"] == (
        [expected] if expected else []
    )


IN_TURN = """
import itertools

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = MLP(d)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.down = nn.ModuleList([Block(d) for _ in range(n)])
        self.up = nn.ModuleList([Block(d) for _ in range(n)])
        self.apply(self._init_weights)
        {before}
        for block in {head}:
            {loop}

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
"""

BOTH = ["self.down.*.mlp.proj.weight", "self.up.*.mlp.proj.weight"]
FILL = "torch.nn.init.zeros_(block.mlp.proj.weight)"


@pytest.mark.parametrize(
    ("before", "head", "loop", "expected"),
    [
        ("", "list(self.down) + list(self.up)", FILL, BOTH),
        ("", "[*self.down, *self.up]", FILL, BOTH),
        ("", "itertools.chain(self.down, self.up)", FILL, BOTH),
        ("", "list(self.up)", FILL, BOTH[1:]),
        ("blocks = list(self.down) + list(self.up)", "blocks", FILL, BOTH),
        # the item holds what the fill reaches: it has it, and it is no None
        ("", "self.down", f'if hasattr(block, "mlp"):\n                {FILL}', BOTH[:1]),
        ("", "self.down", f"if block.mlp is not None:\n                {FILL}", BOTH[:1]),
        # a loop that may stop early, a local changed or read elsewhere, another test of
        # the item, a head not understood: nothing claimed
        ("", "list(self.down) + list(self.up)", f"{FILL}\n            break", []),
        ("blocks = list(self.down)\n        blocks += list(self.up)", "blocks", FILL, []),
        ("blocks = list(self.down) + list(self.up)\n        print(blocks)", "blocks", FILL, []),
        ("", "self.down", f'if hasattr(block, "fc"):\n                {FILL}', []),
        ("", "list(self.down) + [self.up[0]]", FILL, []),
        # a statement between the binding and the loop may change what the local lists
        (
            "blocks = list(self.down) + list(self.up)\n"
            "        self.down = nn.ModuleList([Block(d) for _ in range(n)])",
            "blocks",
            FILL,
            [],
        ),
        ("", "sorted(self.down)", FILL, []),
    ],
)
def test_a_loop_over_several_held_containers_walks_each_in_turn(
    check_source: Callable[..., Report], before: str, head: str, loop: str, expected: list[str]
) -> None:
    found = check_source(IN_TURN.format(before=before, head=head, loop=loop)).diagnostics
    named = [
        name
        for d in found
        if d.code == "IL005"
        for name in d.message.split("`")[1::2]
        if name.startswith("self.") and name.endswith(".weight")
    ]
    assert named == expected


def test_the_message_names_each_container_walked(check_source: Callable[..., Report]) -> None:
    source = IN_TURN.format(before="", head="list(self.down) + list(self.up)", loop=FILL)
    (found,) = [d for d in check_source(source).diagnostics if d.code == "IL005"]
    assert "a loop over the items of `self.down` and a loop over the items of `self.up`" in (
        found.message
    )


SELF_FILLED = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mod = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d))
        nn.init.zeros_(self.mod[-1].weight)


class Net(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.extra = nn.ModuleList([Block(d) for _ in range(n)])
        self.blocks.apply(_xavier)
        for block in self.blocks:
            nn.init.zeros_(block.mod[-1].weight)


def _xavier(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
"""


def test_a_later_loop_throws_away_the_pass_not_the_fill_the_pass_threw_away(
    check_source: Callable[..., Report],
) -> None:
    found = [d for d in check_source(SELF_FILLED).diagnostics if d.code == "IL005"]
    # the block's own zeros, thrown away by the pass; the pass's draws, by the loop
    assert [(d.line, d.related[0].message.split(", and")[0]) for d in found] == [
        (17, "filled here"),
        (19, "filled here by a pass over `self.blocks.apply(...)`"),
    ]


WRITTEN_OUT = """
import torch.nn as nn


class Emb(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(256, d), nn.SiLU(), nn.Linear(d, d))


class Model(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.e1 = Emb(d)
        self.e2 = Emb(2 * d)
        self.e3 = Emb(4 * d)
        self.apply(_basic)
        for e in [{embedders}]:
            nn.init.normal_(e.mlp[0].weight, std=0.02)
            nn.init.normal_(e.mlp[2].weight, std=0.02)


def _basic(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
"""


@pytest.mark.parametrize(
    ("embedders", "severities"),
    [
        # 256 x 512 numbers: light; 256 x 1024 and 256 x 2048, and 512 x 512: a mebibyte
        # and more
        ("self.e1", ["warning", "error"]),
        ("self.e1, self.e2, self.e3", ["error", "error"]),
    ],
)
def test_a_loop_written_out_is_one_finding_for_every_item(
    check_source: Callable[..., Report], embedders: str, severities: list[str]
) -> None:
    found = [
        d
        for d in check_source(WRITTEN_OUT.format(embedders=embedders)).diagnostics
        if d.code == "IL005"
    ]
    assert [d.severity for d in found] == severities
    for d, part in zip(found, ("mlp.0.weight", "mlp.2.weight"), strict=True):
        named = [n for n in d.message.split("`")[1::2] if n.endswith(part)]
        assert named == [f"{e.strip()}.{part}" for e in embedders.split(",")]


KEYED = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = nn.Linear(d, d)


class Net(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.heads = nn.ModuleDict({{"a": Block(d), "b": Block(d)}})
        self.apply(_init)
        for block in {head}:
            if hasattr(block, "mlp"):
                nn.init.zeros_(block.mlp.weight)


def _init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
"""


@pytest.mark.parametrize("head", ["self.heads", "[*self.heads]", "list(self.heads)"])
def test_a_module_dict_iterated_yields_its_keys(
    check_source: Callable[..., Report], head: str
) -> None:
    # (its keys are strings: nothing is filled, nothing thrown away)
    found = check_source(KEYED.format(head=head)).diagnostics
    assert [d for d in found if d.code == "IL005"] == []

"""A part of one item of a held container, by number, replaced before anything reads it
(``self.to_logits[-1].weight = self.token_emb.weight``): what that item's construction
built of the part is thrown away (IL005), as for ``self.head.weight = ...``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Lin(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(o, i))


class Norm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(d))


class Model(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.token_emb = nn.Embedding(n, d)
        self.to_logits = {container}
        {between}
        self.to_logits[{index}].weight = {value}
"""

SEQ = "nn.Sequential(Norm(d), Lin(d, n))"


@pytest.mark.parametrize(
    ("container", "between", "index", "value", "expected"),
    [
        (SEQ, "pass", "-1", "self.token_emb.weight", ["`self.to_logits.1.weight`"]),
        (SEQ, "pass", "1", "self.token_emb.weight", ["`self.to_logits.1.weight`"]),
        (
            "nn.ModuleList([Lin(d, n), Lin(d, n)])",
            "pass",
            "0",
            "self.token_emb.weight",
            ["`self.to_logits.0.weight`"],
        ),
        # an item whose class builds no such part: nothing of it thrown away
        (SEQ, "pass", "0", "self.token_emb.weight", []),
        # read in between: the numbers were used
        (SEQ, "y = self.to_logits(torch.ones(d))", "-1", "self.token_emb.weight", []),
        # made from what the container holds: it may keep the part
        (SEQ, "pass", "-1", "nn.Parameter(self.to_logits[-1].weight * 2)", []),
        # how many items, or which is which, not known
        ("nn.ModuleList([Lin(d, n) for _ in range(3)])", "pass", "-1", "self.token_emb.weight", []),
    ],
)
def test_a_part_of_an_item_replaced(
    check_source: Callable[..., Report],
    container: str,
    between: str,
    index: str,
    value: str,
    expected: list[str],
) -> None:
    source = SOURCE.format(container=container, between=between, index=index, value=value)
    found = check_source(source).diagnostics
    assert [d.code for d in found] == ["IL005"] * len(expected)
    for d, name in zip(found, expected, strict=True):
        assert d.message.startswith(name)
        assert "(a part of the Lin that Model.__init__ stores in" in d.message


KEYED = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, d))


class Model(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.embeddings = nn.ModuleDict()
        for name, size in sizes.items():
            self.embeddings[name] = Table(size, size)
            {between}
            self.embeddings[{key}].weight = nn.Parameter(torch.eye(size))
"""


@pytest.mark.parametrize(
    ("between", "key", "expected"),
    [
        # the item stored at a key, then its weight replaced at that key: thrown away
        ("pass", "name", ["`self.embeddings[name].weight`"]),
        # another item stored in between reads none the container holds
        (
            "self.embeddings['total'] = nn.Linear(size, 1)",
            "name",
            ["`self.embeddings[name].weight`"],
        ),
        # the container read in between: the item may have been used
        ("self.first = self.embeddings[name]", "name", []),
        # the key's name bound again in between: another item, maybe
        ("name = name + '_eye'", "name", []),
        # a key written another way: not known to be the item stored
        ("pass", "str(name)", []),
    ],
)
def test_a_part_of_an_item_stored_at_a_key_replaced(
    check_source: Callable[..., Report], between: str, key: str, expected: list[str]
) -> None:
    found = check_source(KEYED.format(between=between, key=key)).diagnostics
    assert [d.message.split(" (")[0] for d in found] == expected
    for d in found:
        assert d.code == "IL005" and d.severity == "error" and d.confidence == "possible"


@pytest.mark.parametrize(
    ("between", "expected"),
    [
        # a name bound in a way the facts do not number: not known to be the same key
        ("if (name := name.upper()):\n                pass", []),
        (
            "try:\n                pass\n"
            "            except KeyError as name:\n                pass",
            [],
        ),
    ],
)
def test_a_key_bound_again_out_of_sight_is_not_the_same_key(
    check_source: Callable[..., Report], between: str, expected: list[str]
) -> None:
    found = check_source(KEYED.format(between=between, key="name")).diagnostics
    assert [d.message.split(" (")[0] for d in found] == expected


ARMS_KEYED = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, d))


class Model(nn.Module):
    def __init__(self, given, tie, pretrained=None):
        super().__init__()
        self.embs = nn.ModuleDict()
        if pretrained is not None:
            self.embs["tok"] = given
        else:
            self.embs["tok"] = Table(10, 4)
        self.embs["tok"].weight = tie
"""


def test_an_item_built_on_some_paths_is_possibly_thrown_away(
    check_source: Callable[..., Report],
) -> None:
    found = check_source(ARMS_KEYED).diagnostics
    assert [(d.message.split(" (")[0], d.confidence) for d in found] == [
        ("`self.embs['tok'].weight`", "possible")
    ]

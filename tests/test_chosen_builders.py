"""An object built by one of several builders, chosen from a table or a conditional
(``self.base_model = {"a": net_a, "b": net_b}[name]``, then ``self.encoder =
self.base_model(d)``), is an object of one of their classes: a part every one of them
builds, replaced before anything reads it, is thrown away; a part only some build is
possibly thrown away."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 1000)


class Net2(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 10)


class Headless(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.body = nn.Linear(d, d)


def net_a(d=512):
    return Net(d)


def net_b(d=512):
    return Net2(d)


def headless(d=512):
    return Headless(d)


def unknown(d=512):
    return make_anything(d)


class Use(nn.Module):
    def __init__(self, kind, d):
        super().__init__()
        {choose}
        self.encoder.fc = nn.Identity()
"""


@pytest.mark.parametrize(
    ("choose", "expected"),
    [
        (
            'base = {"a": net_a, "b": net_b}[kind]\n        self.encoder = base(d)',
            "is replaced here",
        ),
        ("base = net_a if kind else Net2\n        self.encoder = base(d)", "is replaced here"),
        (
            'self.base_model = {"a": net_a, "b": net_b}[kind]\n'
            "        self.encoder = self.base_model(d)",
            "is replaced here",
        ),
        # one of them builds no ``fc``: on some paths
        (
            'base = {"a": net_a, "h": headless}[kind]\n        self.encoder = base(d)',
            "is possibly replaced here",
        ),
        # one of them of a class not known: on the paths of the one known
        (
            'base = {"a": net_a, "u": unknown}[kind]\n        self.encoder = base(d)',
            "is possibly replaced here",
        ),
        # none known: not claimed
        ('base = {"u": unknown, "v": unknown}[kind]\n        self.encoder = base(d)', ""),
        # keys computed at run time: not a table written out
        ("base = {kind: net_a, 'b': net_b}[kind]\n        self.encoder = base(d)", ""),
    ],
)
def test_a_part_of_an_object_built_by_one_of_several_builders(
    check_source: Callable[..., Report], choose: str, expected: str
) -> None:
    found = check_source(CASE.format(choose=choose)).diagnostics
    assert [d.code for d in found] == (["IL005"] if expected else [])
    for d in found:
        assert d.message.startswith("`self.encoder.fc`")
        assert expected in d.message


LOCAL = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.body = nn.Linear(d, d)
        self.fc = nn.Linear(d, 1000)


class Net2(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.body = nn.Linear(d, d)
        self.fc = nn.Linear(d, 10)


class Use(nn.Module):
    def __init__(self, kind, d):
        super().__init__()
        build = {table}[kind]
        net = build(d)
        self.body = net.body
"""


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('{"a": Net, "b": Net2}', ["IL005"]),
        # a builder of a class not known: which parts the object has is not claimed
        ('{"a": Net, "b": make_anything}', []),
    ],
)
def test_a_local_built_by_one_of_several_builders_keeps_one_part(
    check_source: Callable[..., Report], table: str, expected: list[str]
) -> None:
    """``net = build(d)`` with ``build`` picked from a table, and only ``net.body`` kept:
    the ``fc`` each builder's class makes is thrown away with the local."""
    found = check_source(LOCAL.format(table=table)).diagnostics
    assert [d.code for d in found] == expected
    for d in found:
        assert d.message.startswith("`fc` of the object `build(...)`")

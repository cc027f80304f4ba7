"""Two facts the analysis reads from a function's text: the written-out bounds of a slice
(``blocks[:-2]``: which items a value keeps), and whether a plain function's ``*args`` and
``**kwargs`` only carry on what its caller gave (spread into calls, or read)."""

from __future__ import annotations

import ast

import pytest

from initlint.facts import extract
from initlint.facts.expressions import to_expr
from initlint.facts.model import Body


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("xs[:-2]", ("slice", "None:-2")),
        ("xs[1:3]", ("slice", "1:3")),
        ("xs[2:]", ("slice", "2:None")),
        ("xs[:]", ("slice", "None:None")),
        ("xs[:n]", ("", "")),  # (a bound computed at run time)
        ("xs[::2]", ("", "")),  # (a step)
        ("xs[0]", ("", "")),  # (an index)
    ],
)
def test_a_slice_keeps_its_written_out_bounds(text: str, bounds: tuple[str, str]) -> None:
    e = to_expr(ast.parse(text, mode="eval").body)
    assert e.kind == "subscript"
    assert (e.name, e.attr) == bounds
    assert e.receiver is not None and e.receiver.name == "xs"


SOURCE = """
def plain(*args, **kwargs):
    if "n" in kwargs and kwargs.get("n"):
        pass
    return Net(*args, **kwargs)


def changed(**kwargs):
    kwargs["n"] = 1
    return Net(**kwargs)


def handed(*args, **kwargs):
    fill(kwargs)
    return Net(args, **kwargs)


def nested(**kwargs):
    return lambda: Net(**kwargs)
"""


@pytest.mark.parametrize(
    ("name", "spread"),
    [
        ("plain", {"args": True, "kwargs": True}),
        ("changed", {"kwargs": False}),
        ("handed", {"args": False, "kwargs": False}),
        ("nested", {"kwargs": False}),
    ],
)
def test_a_pack_only_spread_or_read_carries_what_it_was_given(
    name: str, spread: dict[str, bool]
) -> None:
    facts = extract.extract_facts(SOURCE)
    fn = next(f for f in facts.functions if f.name == name)
    body = fn.load()
    assert isinstance(body, Body)
    assert {p.name: p.spread_only for p in body.params} == spread

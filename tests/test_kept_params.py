"""Which ``__init__`` parameters the body keeps as they are (``facts/kept_params.py``):
stored whole on an attribute, asked what they are, tested against None, or handed whole to
a call (recorded, for the simulation to ask of the callee); any other mention reads them."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.kept_params import Handed, kept_params


def _kept(source: str) -> dict[str, tuple[bool, tuple[Handed, ...]]]:
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    kept = kept_params(fn)
    names = [a.arg for a in fn.args.args[1:]]
    return {n: (n in kept, kept.get(n, ())) for n in names}


def test_stored_sized_and_tested_is_kept() -> None:
    found = _kept(
        "def __init__(self, w, d):\n"
        "    if w is None:\n"
        "        return\n"
        "    self.out = nn.Linear(w.size(1), w.shape[0])\n"
        "    self.out.weight = w\n"
    )
    assert found["w"] == (True, ())
    assert found["d"] == (False, ())  # (never mentioned: nothing to say of it)


def test_handed_whole_records_the_call() -> None:
    found = _kept("def __init__(self, cfg, w):\n    self.head = Head(cfg, weight=w)\n")
    assert found["w"] == (True, (("Head", -1, "weight"),))
    assert found["cfg"] == (True, (("Head", 0, ""),))


@pytest.mark.parametrize(
    "body",
    [
        "self.w = nn.Parameter(w.clone())",  # a method of it
        "self.w = w * 2",  # an operand
        "w = w.t()\n    self.w = w",  # rebound
        "self.ws = [w for _ in range(2)]",  # in a comprehension
        "self.f = lambda: w",  # in a nested scope
    ],
)
def test_other_mentions_read_it(body: str) -> None:
    assert _kept(f"def __init__(self, w):\n    {body}\n")["w"][0] is False

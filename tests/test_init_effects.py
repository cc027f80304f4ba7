"""The fact reader's ``init`` and ``helper`` effects: which statements fill a tensor in place,
and which hand the object to a function (docs/design.md, "Cost classes": weight
initialisation run again over heavy parameters is heavy)."""

from __future__ import annotations

import textwrap

import pytest

from initlint.facts.extract import extract_facts
from initlint.facts.model import Body


def _effects(statement: str) -> list[tuple[str, str, str, str]]:
    source = textwrap.dedent(
        f"""
        class M:
            def reset(self, m, model):
                {statement}
        """
    )
    (cls,) = extract_facts(source).classes
    method = cls.method("reset")
    assert method is not None
    body = method.load()
    assert isinstance(body, Body)
    kept = ("init", "helper")
    return [(e.kind, e.name, e.detail, e.target) for e in body.effects if e.kind in kept]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        # (name: the target again when every number of it is filled)
        ("nn.init.xavier_uniform_(self.weight)", [("init", "weight", "self", "weight")]),
        ("torch.nn.init.zeros_(self.proj.bias)", [("init", "proj.bias", "self", "proj.bias")]),
        ("self.weight.data.normal_(0, 0.02)", [("init", "weight", "self", "weight")]),
        ("init.normal_(self.table[0], std=0.02)", [("init", "", "self", "table")]),
        ("trunc_normal_(self.pos_embed, std=.02)", [("init", "pos_embed", "self", "pos_embed")]),
        # (a local's or argument's: name the local, target the part filled whole, if any)
        ("m.weight.data.fill_(1.0)", [("init", "m", "", "weight")]),
        ("nn.init.kaiming_normal_(m.weight)", [("init", "m", "", "weight")]),
        ("nn.init.zeros_(m.weight[0])", [("init", "m", "", "")]),
        ("m.weight.data.copy_(f(m.weight))", [("init", "m", "", "")]),
        # not a fill: metadata, or arithmetic a module does not initialise with
        ("self.weight.requires_grad_(False)", []),
        ("torch.manual_seed(0)", []),
        ("nn.init.calculate_gain('relu')", []),
        # the object handed to a function by its name
        ("initialize(self, 'xavier')", [("helper", "initialize", "", "")]),
        ("print(m)", []),
    ],
)
def test_statement_effects(statement: str, expected: list[tuple[str, str, str, str]]) -> None:
    assert _effects(statement) == expected


def _calls(body_text: str) -> list[str]:
    source = "class M:\n    def __init__(self):\n" + textwrap.indent(
        textwrap.dedent(body_text), "        "
    )
    (cls,) = extract_facts(source).classes
    method = cls.method("__init__")
    assert method is not None
    body = method.load()
    assert isinstance(body, Body)
    return [e.name for e in body.effects if e.kind == "call"]


def test_a_walk_that_only_initialises_calls_nothing_of_the_object() -> None:
    """A loop over ``self.modules()`` that only fills what it walks uses no value the object
    holds: its head is not a call of the object's; a loop that does anything else is."""
    only_fills = """
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                m.bias.data.zero_()
        """
    assert _calls(only_fills) == []
    # a module handed on may be the object itself (``self.modules()`` yields it first),
    # whose own methods may read anything
    for hands_on in ("m.reset_parameters()", "tie_(m)"):
        assert _calls(f"for m in self.modules():\n    {hands_on}\n") == ["modules"]
    assert _calls("for p in self.parameters():\n    nn.init.zeros_(p)\n") == []
    lists = """
        for m in self.modules():
            self.kinds.append(type(m).__name__)
        """
    assert _calls(lists) == ["modules"]
    reads_self = """
        for p in self.parameters():
            nn.init.normal_(p, std=self.scale)
        """
    assert _calls(reads_self) == ["parameters"]

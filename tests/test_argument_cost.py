"""Construction cost reads the arguments: a torch module whose keywords switch off every
tensor it would register owns none (light); a bias or a norm's vector registered by torch's
own __init__ is light beside a weight matrix (docs/design.md, "Cost classes")."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.expressions import to_expr
from initlint.simulation.cost import CostModel
from initlint.simulation.levels import HEAVY, LIGHT, NONE
from initlint.simulation.levels import UNKNOWN as UNKNOWN_COST
from initlint.simulation.torch_knowledge import keyword_values, torch_vector
from initlint.simulation.values import UNKNOWN, Val, const


def _cost(source: str, **bound: Val) -> int:
    call = to_expr(ast.parse(source, mode="eval").body)
    model = CostModel(index=None)  # type: ignore[arg-type]  # external_cost reads no index
    return model.external_cost(call.name, call, bound)


@pytest.mark.parametrize(
    ("source", "bound", "expected"),
    [
        # a norm layer owns only vectors (scale, shift, running statistics): light however built
        ("torch.nn.LayerNorm(d)", {}, LIGHT),
        ("torch.nn.LayerNorm(d, elementwise_affine=affine)", {"affine": UNKNOWN}, LIGHT),
        ("torch.nn.BatchNorm1d(d)", {}, LIGHT),
        ("torch.nn.GroupNorm(g, d)", {}, LIGHT),
        ("torch.nn.PReLU(d)", {}, LIGHT),
        # a weight matrix stays, whatever else is switched off
        ("torch.nn.Linear(a, b, bias=False)", {}, HEAVY),
        ("torch.nn.Linear(a, b, bias=flag)", {"flag": const(False)}, HEAVY),
        ("torch.nn.Conv2d(a, b, 3, bias=False)", {}, HEAVY),
        ("torch.nn.Embedding(v, d)", {}, HEAVY),
        ("torch.nn.Linear(a, b, **kw)", {}, HEAVY),
    ],
)
def test_module_cost_reads_keywords(source: str, bound: dict[str, Val], expected: int) -> None:
    assert _cost(source, **bound) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("table", HEAVY),  # the name carries the work that made it
        ("table if flag else None", HEAVY),
        ("flag and table", HEAVY),
        # a test's value is a bool: naming the costly local in it builds nothing
        ("table is not None", NONE),
        ("not table", NONE),
        ("bool(table)", NONE),
        ("(table is None) or flag", NONE),
    ],
)
def test_a_test_does_not_carry_the_cost_of_what_it_names(source: str, expected: int) -> None:
    expr = to_expr(ast.parse(source, mode="eval").body)
    model = CostModel(index=None)  # type: ignore[arg-type]  # no call to resolve here
    assert model.expr_cost(expr, None, (), {"table": HEAVY}) == expected  # type: ignore[arg-type]


def test_keyword_values_name_the_trailing_children() -> None:
    call = to_expr(ast.parse("f(a, *rest, eps=1e-3, affine=False, **kw)", mode="eval").body)
    assert call.keywords == ("*", "eps", "affine", "")
    got = keyword_values(call)
    assert sorted(got) == ["affine", "eps"]
    assert got["affine"].value is False and got["eps"].value == 1e-3


@pytest.mark.parametrize(
    ("qualname", "param", "expected"),
    [
        ("torch.nn.modules.linear.Linear", "bias", True),
        ("torch.nn.modules.linear.Linear", "weight", False),
        ("torch.nn.Conv2d", "bias", True),
        ("torch.nn.modules.normalization.LayerNorm", "weight", True),
        ("torch.nn.BatchNorm2d", "running_var", True),
        ("torch.nn.Embedding", "weight", False),
        ("pkg.layers.Linear", "bias", False),  # a project class of that name: not torch's
    ],
)
def test_torch_vectors(qualname: str, param: str, expected: bool) -> None:
    assert torch_vector(qualname, param) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("torch.tensor([0.5, 2.0])", LIGHT),  # the numbers written out: a few
        ("torch.tensor(mean)", UNKNOWN_COST),  # the caller's data: its size is not known here
        ("torch.tensor(self.scale)", UNKNOWN_COST),
    ],
)
def test_a_tensor_of_given_data_costs_what_the_data_holds(source: str, expected: int) -> None:
    assert _cost(source) == expected

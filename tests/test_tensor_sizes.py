"""The cost model reads a tensor factory's sizes: empty or one-element tensors are light,
anything it cannot size is heavy (DESIGN §3 "Cost classes")."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.extract import to_expr
from initlint.simulation.cost import HEAVY, LIGHT, CostModel, numel
from initlint.simulation.values import UNKNOWN, Val, const


def _cost(source: str, **bound: Val) -> int:
    call = to_expr(ast.parse(source, mode="eval").body)
    model = CostModel(index=None)  # type: ignore[arg-type]  # external_cost reads no index
    return model.external_cost(call.name, call, bound)


@pytest.mark.parametrize(
    ("source", "bound", "expected"),
    [
        ("torch.empty(0)", {}, LIGHT),
        ("torch.zeros(1, dtype=torch.float32)", {}, LIGHT),
        ("torch.tensor([])", {}, LIGHT),
        ("torch.full((0, 4), 1.0)", {}, LIGHT),
        ("torch.empty((n_out, n_in), **kw)", {"n_out": const(0), "n_in": UNKNOWN}, LIGHT),
        ("torch.empty((out, cin // groups, *k))", {"out": UNKNOWN, "cin": const(0)}, LIGHT),
        ("torch.zeros(n, m)", {"n": const(2), "m": const(3)}, HEAVY),
        ("torch.empty((n_out, n_in))", {"n_out": const(8), "n_in": UNKNOWN}, HEAVY),
        # keywords are not sizes: device=0 does not make the tensor empty
        ("torch.zeros(n, device=0)", {}, HEAVY),
        # a size beside an unknown one: not known to be small
        ("torch.zeros(1, n)", {}, HEAVY),
        ("torch.zeros(n + 0)", {"n": UNKNOWN}, HEAVY),
        # False is a constant, not the size 0
        ("torch.empty(flag)", {"flag": const(False)}, HEAVY),
        ("torch.nn.parameter.UninitializedParameter()", {}, LIGHT),
    ],
)
def test_tensor_factory_cost(source: str, bound: dict[str, Val], expected: int) -> None:
    assert _cost(source, **bound) == expected


def test_numel_multiplies_known_sizes() -> None:
    sizes = to_expr(ast.parse("f((2, 3), 4)", mode="eval").body).children
    assert numel(sizes) == 24
    assert numel(to_expr(ast.parse("f(a, 5)", mode="eval").body).children) is None

"""Construction cost reads the arguments: a torch module whose keywords switch off every
tensor it would register owns none (light); a bias or a norm's vector registered by torch's
own __init__ is light beside a weight matrix (docs/design.md, "Cost classes")."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.extract import to_expr
from initlint.simulation.cost import (
    HEAVY,
    LIGHT,
    CostModel,
    keyword_values,
    torch_vector,
)
from initlint.simulation.values import UNKNOWN, Val, const


def _cost(source: str, **bound: Val) -> int:
    call = to_expr(ast.parse(source, mode="eval").body)
    model = CostModel(index=None)  # type: ignore[arg-type]  # external_cost reads no index
    return model.external_cost(call.name, call, bound)


@pytest.mark.parametrize(
    ("source", "bound", "expected"),
    [
        ("torch.nn.LayerNorm(d, elementwise_affine=False)", {}, LIGHT),
        ("torch.nn.LayerNorm(d, elementwise_affine=affine)", {"affine": const(False)}, LIGHT),
        ("torch.nn.LayerNorm(d, elementwise_affine=affine)", {"affine": UNKNOWN}, HEAVY),
        # bias=False leaves the scale: still a module with a parameter
        ("torch.nn.LayerNorm(d, bias=False)", {}, HEAVY),
        ("torch.nn.LayerNorm(d)", {}, HEAVY),
        ("torch.nn.Linear(a, b, bias=False)", {}, HEAVY),
        ("torch.nn.BatchNorm1d(d, affine=False, track_running_stats=False)", {}, LIGHT),
        ("torch.nn.BatchNorm1d(d, affine=False)", {}, HEAVY),  # running statistics stay
        ("torch.nn.GroupNorm(g, d, affine=False)", {}, LIGHT),
        # a positional False is not a keyword: not read as one
        ("torch.nn.LayerNorm(d, 1e-5, False)", {}, HEAVY),
        # **kw may pass anything: unknown
        ("torch.nn.LayerNorm(d, **kw)", {}, HEAVY),
    ],
)
def test_module_cost_reads_keywords(source: str, bound: dict[str, Val], expected: int) -> None:
    assert _cost(source, **bound) == expected


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

"""The cost model reads a tensor factory's sizes: empty or one-element tensors are light,
one dimension it cannot size is unknown (a bias or a table), anything else it cannot size
heavy; a weight matrix with a size of 1 is a vector (docs/design.md, "Cost classes")."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.expressions import to_expr
from initlint.simulation.cost import CostModel
from initlint.simulation.levels import HEAVY, LIGHT
from initlint.simulation.levels import UNKNOWN as UNSIZED
from initlint.simulation.torch_knowledge import numel
from initlint.simulation.values import UNKNOWN, Val, const

# the constructed class's own argument whose default is that number
AT_64 = Val("unknown", sym="n", default=64)
AT_512 = Val("unknown", sym="n", default=512)


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
        # a size is no written-out data: more than one element is heavy
        ("torch.zeros(n, m)", {"n": const(2), "m": const(3)}, HEAVY),
        ("torch.zeros(shape)", {"shape": Val("args", items=(const(0), UNKNOWN))}, LIGHT),
        ("torch.zeros(shape)", {"shape": Val("args", items=(const(2), const(8)))}, HEAVY),
        ("torch.zeros(max_num_tokens)", {"max_num_tokens": UNKNOWN}, UNSIZED),
        # a literal list with a number among its items is a vector of its length (torch
        # allows no ragged data, so the other items are numbers too)
        ("torch.tensor([0, shard], dtype=torch.int32)", {}, LIGHT),
        (
            "torch.tensor(offsets, device='cpu')",
            {"offsets": Val("args", items=(const(0), UNKNOWN))},
            LIGHT,
        ),
        ("torch.tensor([[0, a], [b, 1]])", {}, LIGHT),
        # values of a size not known here (two numbers, or two long lists): unknown, never
        # cheap, and not known to be heavy either
        ("torch.tensor([a, b])", {}, UNSIZED),
        ("torch.tensor([mean])", {"mean": UNKNOWN}, UNSIZED),
        ("torch.tensor([self.mean, self.std])", {}, UNSIZED),
        ("torch.tensor(offsets)", {"offsets": Val("args", items=(UNKNOWN, UNKNOWN))}, UNSIZED),
        ("torch.tensor([0, *rest])", {}, HEAVY),
        ("torch.tensor([f(x) for x in xs])", {}, HEAVY),
        ("torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])", {}, HEAVY),
        ("torch.tensor(list(range(n)))", {}, HEAVY),
        ("torch.empty((n_out, n_in))", {"n_out": const(8), "n_in": UNKNOWN}, HEAVY),
        # keywords are not sizes: device=0 does not make the tensor empty
        ("torch.zeros(n, device=0)", {}, UNSIZED),
        # a size of 1 adds no dimension: one row of an unknown width is a vector
        ("torch.zeros(1, n)", {}, UNSIZED),
        ("torch.zeros((1, n, 1))", {}, UNSIZED),
        # a few rows written out of one width an argument gives are as many vectors:
        # unknown; of a name the frame does not hold (a module's constant), or of a number
        # an argument gives, heavy as any other table
        ("torch.zeros(2, n)", {"n": UNKNOWN}, UNSIZED),
        ("torch.randn(n, 2)", {"n": UNKNOWN}, UNSIZED),
        ("torch.zeros(n, 4, 4)", {"n": UNKNOWN}, UNSIZED),
        ("torch.zeros(2 * n, 2)", {"n": UNKNOWN}, UNSIZED),
        ("torch.zeros(n, 17)", {"n": UNKNOWN}, HEAVY),
        ("torch.zeros(n, 4, 5)", {"n": UNKNOWN}, HEAVY),
        ("torch.zeros(n, k, 2)", {"n": UNKNOWN, "k": UNKNOWN}, HEAVY),
        ("torch.zeros(VOCAB, 2)", {}, HEAVY),
        ("torch.zeros(n, 2)", {"n": const(300_000)}, HEAVY),
        # a weight matrix with a size of 1 is a vector: a scoring head is light
        ("torch.nn.Linear(d, 1)", {}, LIGHT),
        ("torch.nn.Linear(in_features=d, out_features=1, bias=False)", {}, LIGHT),
        ("torch.nn.Linear(d, k)", {"k": const(1)}, LIGHT),
        ("torch.nn.Embedding(n, 1)", {}, LIGHT),
        ("torch.nn.Linear(d, 2)", {"d": UNKNOWN}, UNSIZED),
        ("torch.nn.Linear(d, 16)", {"d": UNKNOWN}, UNSIZED),
        ("torch.nn.Linear(d, 17)", {"d": UNKNOWN}, HEAVY),
        ("torch.nn.Linear(d, k)", {"d": UNKNOWN, "k": UNKNOWN}, HEAVY),
        ("torch.nn.Linear(VOCAB, 2)", {}, HEAVY),
        ("torch.nn.Conv2d(c, 1, 3)", {"c": UNKNOWN}, UNSIZED),
        ("torch.nn.Conv2d(c, 2, 3)", {"c": UNKNOWN}, HEAVY),
        ("torch.nn.Conv2d(c, 1, 1)", {}, LIGHT),
        ("torch.nn.Conv2d(c, 1, kernel_size=(1, 1))", {}, LIGHT),
        ("torch.nn.Conv2d(c, 2, 1)", {"c": UNKNOWN}, UNSIZED),
        ("torch.nn.Conv2d(c, 1, k)", {}, HEAVY),
        # a filter of one channel in and out is a vector over its taps; a few taps over
        # channels not known here, a few vectors of that width: unknown
        ("torch.nn.Conv1d(1, 1, 3, bias=False, padding=1)", {}, LIGHT),
        ("torch.nn.Conv1d(1, 1, kernel_size=taps)", {}, LIGHT),
        ("torch.nn.ConvTranspose1d(1, 1, kernel_size=(5,))", {}, LIGHT),
        ("torch.nn.Conv1d(c, 1, 3)", {"c": UNKNOWN}, UNSIZED),
        ("torch.nn.Conv1d(c, c, 3)", {}, HEAVY),
        # a weight of every size written out is priced by what it holds, as a factory's is:
        # light below a mebibyte of float32 numbers (2 ** 18), heavy from there
        ("torch.nn.Linear(2, 2)", {}, LIGHT),
        ("torch.nn.Embedding(num_embeddings=4, embedding_dim=4)", {}, LIGHT),
        ("torch.nn.Conv2d(1, 1, 3)", {}, LIGHT),
        ("torch.nn.Linear(4, 5)", {}, LIGHT),
        ("torch.nn.Conv2d(3, 64, 7)", {}, LIGHT),
        ("torch.nn.Linear(8 * 49 * 49, 3)", {}, LIGHT),
        ("torch.nn.Linear(511, 512)", {}, LIGHT),
        ("torch.nn.Linear(512, 512)", {}, HEAVY),
        ("torch.nn.Conv2d(64, 64, 8)", {}, HEAVY),
        ("torch.nn.Embedding(1024, 768)", {}, HEAVY),
        ("torch.nn.Linear(n, 2)", {"n": const(2)}, HEAVY),
        ("torch.zeros(n + 0)", {"n": UNKNOWN}, UNSIZED),
        # False is a constant, not the size 0
        ("torch.empty(flag)", {"flag": const(False)}, UNSIZED),
        ("torch.nn.parameter.UninitializedParameter()", {}, LIGHT),
        # a range is one dimension: unknown unless its bounds are known; bounds written out
        # count its numbers, as a factory's written-out sizes do; a bound an argument gives
        # stands for any size
        ("torch.arange(0, dim, 2)", {"dim": UNKNOWN}, UNSIZED),
        ("torch.arange(0, 8, 2)", {}, LIGHT),
        ("torch.arange(0, n, 2)", {"n": const(8)}, HEAVY),
        ("torch.arange(300_000)", {}, HEAVY),
        ("numpy.arange(0, n)", {"n": UNKNOWN}, UNSIZED),
        ("numpy.zeros((n, n))", {}, HEAVY),
        # every size written out: what it holds, known whatever the arguments
        ("torch.zeros(2, 2)", {}, LIGHT),
        ("torch.ones((4, 4))", {}, LIGHT),
        ("numpy.ones((2, 2), dtype)", {}, LIGHT),
        ("torch.zeros(4, 5)", {}, LIGHT),
        ("torch.zeros(64, 64)", {}, LIGHT),
        ("torch.zeros(512, 512)", {}, HEAVY),
        ("torch.zeros((1024, 1024))", {}, HEAVY),
        # a size an argument gives stands for any size, even where it is known
        ("torch.zeros(n, 2)", {"n": const(2)}, HEAVY),
        # but the constructed class's own argument at its default holds that number
        ("torch.zeros(n, n)", {"n": AT_64}, LIGHT),
        ("torch.zeros(n, n)", {"n": AT_512}, HEAVY),
        ("torch.randn(9, 1, n)", {"n": AT_64}, LIGHT),
        ("torch.zeros(n, m)", {"n": AT_64}, HEAVY),
        ("torch.nn.Linear(3 * n, n)", {"n": AT_64}, LIGHT),
        ("torch.nn.Linear(n, n)", {"n": AT_512}, HEAVY),
        ("torch.nn.Embedding(n, 64)", {"n": AT_64}, LIGHT),
        ("torch.arange(n)", {"n": AT_64}, LIGHT),
        # numpy's shape is one argument: what follows it is a dtype, not a size
        ("numpy.zeros(n, numpy.float32)", {"n": UNKNOWN}, UNSIZED),
        ("numpy.ones((1,), dtype)", {}, LIGHT),
        ("numpy.full((n, d), 0.5)", {}, HEAVY),
        ("torch.zeros((n,))", {"n": UNKNOWN}, UNSIZED),
        ("torch.zeros((n, 2))", {"n": UNKNOWN}, UNSIZED),
        ("torch.zeros((n, m))", {"n": UNKNOWN}, HEAVY),
        # a numpy draw is sized by its ``size`` (a shape a call passed in, too), or by the
        # positional sizes of ``rand`` and ``randn``; with neither written, heavy
        (
            "numpy.random.uniform(-b, b, size=shape)",
            {"shape": Val("args", items=(UNKNOWN,))},
            UNSIZED,
        ),
        ("numpy.random.uniform(-b, b, size=(n, m))", {}, HEAVY),
        ("numpy.random.normal(0, 1, size=(2, 2))", {}, LIGHT),
        ("numpy.random.randn(n)", {"n": UNKNOWN}, UNSIZED),
        ("numpy.random.randn(n, m)", {}, HEAVY),
        ("numpy.random.uniform(-b, b, (n, m))", {}, HEAVY),
        ("numpy.random.normal(0.0, 1.0, (n,))", {}, UNSIZED),
        ("numpy.random.normal(0.0, 1.0)", {}, LIGHT),
        ("numpy.random.normal(-1, 1, size=None)", {}, LIGHT),
        # a parameter that may be an array gives the draw its shape
        ("numpy.random.normal(mean, 1.0)", {"mean": UNKNOWN}, UNSIZED),
        ("numpy.random.randn()", {}, LIGHT),
        ("numpy.random.random(n)", {}, UNSIZED),
        ("numpy.random.permutation(n)", {}, HEAVY),
    ],
)
def test_tensor_factory_cost(source: str, bound: dict[str, Val], expected: int) -> None:
    assert _cost(source, **bound) == expected


def test_numel_multiplies_known_sizes() -> None:
    sizes = to_expr(ast.parse("f((2, 3), 4)", mode="eval").body).children
    assert numel(sizes) == 24
    assert numel(to_expr(ast.parse("f(a, 5)", mode="eval").body).children) is None

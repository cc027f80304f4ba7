"""Initialisation passes read as facts (``facts/passes.py``): which fills of a loop over the
object, or of a function ``apply`` runs, are kept, with the tests on the item that lead to
them; and which tensors such a fill covers (``simulation/coverage.py``)."""

from __future__ import annotations

import textwrap

import pytest

from initlint.facts.extract import extract_facts
from initlint.facts.model import Body, Effect, Expr, ItemTest, Span
from initlint.simulation.coverage import Tensor, covered, factory_dims


def _passes(body: str, params: str = "self") -> list[Effect]:
    source = textwrap.dedent(
        f"""
        class M:
            def reset({params}):
        """
    ) + textwrap.indent(textwrap.dedent(body), " " * 8)
    (cls,) = extract_facts(source).classes
    method = cls.method("reset")
    assert method is not None
    loaded = method.load()
    assert isinstance(loaded, Body)
    return [e for e in loaded.effects if e.kind == "pass"]


def _tests(e: Effect) -> list[tuple[str, tuple[str, ...], str, int, bool]]:
    return [(t.kind, t.names, t.op, t.value, t.truth) for t in e.tests]


def test_a_loop_over_the_parameters_with_a_dimension_test() -> None:
    (fill,) = _passes(
        """
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        """
    )
    assert (fill.name, fill.detail, fill.target) == ("parameters", "", "")
    assert _tests(fill) == [("dims", (), "gt", 1, True)]
    assert fill.span.line == 7  # (the fill's own line: the finding points there)


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("p.ndim >= 2", [("dims", (), "ge", 2, True)]),
        ("len(p.shape) == 1", [("dims", (), "eq", 1, True)]),
        ("len(p.size()) != 1", [("dims", (), "ne", 1, True)]),
        ("not p.dim() > 1", [("dims", (), "gt", 1, False)]),
        ('"bias" in n', [("name", ("bias",), "in", 0, True)]),
        ('"norm" not in n', [("name", ("norm",), "in", 0, False)]),
        ('n.endswith(("a", "b"))', [("name", ("a", "b"), "endswith", 0, True)]),
        (
            'p.dim() > 1 and "w" in n',
            [("dims", (), "gt", 1, True), ("name", ("w",), "in", 0, True)],
        ),
    ],
)
def test_tests_on_the_item_understood(test: str, expected: list[object]) -> None:
    (fill,) = _passes(
        f"""
        for n, p in self.named_parameters():
            if {test}:
                p.data.normal_(0, 0.02)
        """
    )
    assert _tests(fill) == expected


@pytest.mark.parametrize(
    "test",
    [
        "p.requires_grad",  # (not a test initlint decides)
        "p.dim() > 1 or n == 'x'",  # (a choice)
        "p.dim() > k",  # (a size held elsewhere)
        "not (p.dim() > 1 and 'w' in n)",  # (the negation of a conjunction)
    ],
)
def test_a_fill_under_a_test_not_understood_is_left_out(test: str) -> None:
    assert not _passes(
        f"""
        for n, p in self.named_parameters():
            if {test}:
                p.data.normal_(0, 0.02)
        """
    )


def test_module_walks_fill_parts_under_isinstance_and_else() -> None:
    fills = _passes(
        """
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
        """
    )
    assert [(f.name, f.target) for f in fills] == [
        ("modules", "weight"),
        ("modules", "bias"),
        ("modules", "weight"),
    ]
    linear = ("isinstance", ("nn.Linear", "nn.Conv2d"), "", 0)
    assert _tests(fills[1]) == [(*linear, True), ("present", ("bias",), "", 0, True)]
    assert _tests(fills[2]) == [(*linear, False), ("isinstance", ("nn.LayerNorm",), "", 0, True)]


def test_a_continue_guards_what_follows() -> None:
    (fill,) = _passes(
        """
        for n, m in self.named_modules():
            if n.startswith("backbone."):
                continue
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)
        """
    )
    assert _tests(fill) == [
        ("name", ("backbone.",), "startswith", 0, False),
        ("isinstance", ("nn.Linear",), "", 0, True),
    ]
    # a ``continue`` anywhere else: nothing after it is claimed
    assert not _passes(
        """
        for n, m in self.named_modules():
            if isinstance(m, nn.Linear):
                if n.startswith("backbone."):
                    continue
                nn.init.zeros_(m.bias)
        """
    )


def test_a_slice_a_fill_from_its_own_numbers_or_a_deeper_part_is_no_pass_fill() -> None:
    for fill in ("p[0].zero_()", "p.data.copy_(p / 2)", "nn.init.zeros_(m.attn.bias)"):
        assert not _passes(
            f"""
            for p in self.parameters():
                {fill}
            """.replace("m.attn", "p.attn")
        ), fill


def test_a_walk_over_a_held_module_names_it() -> None:
    (fill,) = _passes(
        """
        for p in self.encoder.parameters():
            nn.init.normal_(p)
        """
    )
    assert (fill.name, fill.detail) == ("parameters", "encoder")


def test_a_function_that_only_fills_its_argument_is_a_visitor() -> None:
    fills = _passes(
        '''
        """Initialise one module."""
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
        ''',
        params="self, m",
    )
    assert [(f.name, f.detail, f.target) for f in fills] == [("apply", "visit", "weight")]
    # the object's settings read on the way (a number, no tensor of it): a visitor still
    fill = "if isinstance(m, nn.Linear):\n    nn.init.normal_(m.weight, std={})"
    for body in (
        "std = self.config.init_std\n" + fill.format("std"),
        fill.format("self.config.init_std"),
    ):
        assert [(f.name, f.target) for f in _passes(body, params="self, m")] == [
            ("apply", "weight")
        ]
    # a method of the object run, or the object handed on: no visitor
    for body in ("std = self.init_std()\n" + fill.format("std"), fill.format("pick(self)")):
        assert not _passes(body, params="self, m"), body


_SPAN = Span(1, 0, 1, 0)


def _fill(walk_part: str, *tests: ItemTest, detail: str = "") -> Effect:
    return Effect(kind="pass", span=_SPAN, detail=detail, target=walk_part, tests=tests)


def _is_a(classes: tuple[str, ...], name: str) -> bool | None:
    return name in classes if classes != ("?",) else None


_LINEAR = ("torch.nn.Linear",)
TENSORS = [
    Tensor("proj.weight", "proj", "weight", "parameter", 2, _LINEAR, 3, 1),
    Tensor("proj.bias", "proj", "bias", "parameter", 1, _LINEAR, 1, 1),
    Tensor("level", "", "level", "parameter", None, ("pkg.M",), 3, 2),
    Tensor("stats", "", "stats", "buffer", 2, ("pkg.M",), 3, 3),
    Tensor("block.scale", "block", "scale", "", None, ("?",), 2, 4),
]


def _names(found: frozenset[tuple[int, str, int]]) -> set[str]:
    return {name for _, name, _ in found}


def test_coverage_of_a_tensor_walk() -> None:
    dims = ItemTest("dims", (), "gt", 1)
    assert _names(covered(_fill("", dims), "parameters", TENSORS, _is_a)) == {"proj.weight"}
    # no test: every parameter, whatever its dimensions; a buffer only by a buffer walk
    every = covered(_fill(""), "parameters", TENSORS, _is_a)
    assert _names(every) == {"proj.weight", "proj.bias", "level"}
    assert _names(covered(_fill(""), "buffers", TENSORS, _is_a)) == {"stats"}
    # a name test reads the dotted name; an undecided one claims nothing
    named = ItemTest("name", ("bias",), "in")
    assert _names(covered(_fill("", named), "named_parameters", TENSORS, _is_a)) == {"proj.bias"}
    assert (
        _names(covered(_fill("", ItemTest("name", (), "odd")), "parameters", TENSORS, _is_a))
        == set()
    )


def test_coverage_of_a_module_walk() -> None:
    linear = ItemTest("isinstance", ("torch.nn.Linear",))
    weight = covered(_fill("weight", linear), "modules", TENSORS, _is_a)
    assert weight == frozenset({(1, "proj.weight", 3)})
    # with no test every module is filled there; whether one of a class not known is an
    # instance of one named cannot be told: no claim
    assert _names(covered(_fill("scale"), "modules", TENSORS, _is_a)) == {"block.scale"}
    scaled = ItemTest("isinstance", ("pkg.Scaled",))
    assert _names(covered(_fill("scale", scaled), "modules", TENSORS, _is_a)) == set()
    # ``children()`` does not yield the object itself
    own = ItemTest("isinstance", ("pkg.M",))
    assert _names(covered(_fill("level", own), "modules", TENSORS, _is_a)) == {"level"}
    assert _names(covered(_fill("level", own), "children", TENSORS, _is_a)) == set()
    # a walk over one held module covers only that module's parts
    held = covered(_fill("weight", linear, detail="proj"), "modules", TENSORS, _is_a)
    assert _names(held) == {"proj.weight"}


def test_dimensions_of_a_registered_factory() -> None:
    def call(name: str, *children: Expr) -> Expr:
        return Expr("call", name=name, attr=name.rpartition(".")[2], children=children)

    a, b = Expr("name", name="a"), Expr("name", name="b")
    assert factory_dims(call("torch.zeros", a, b)) == 2
    assert factory_dims(call("torch.empty", Expr("op", name="tuple", children=(a, b, a)))) == 3
    assert factory_dims(call("torch.Tensor", Expr("const", value=4), a)) == 2
    assert factory_dims(call("torch.zeros", a)) is None  # (a size, or a shape)
    assert factory_dims(call("torch.Tensor", Expr("const", value=1.0))) is None  # (data)
    assert factory_dims(call("torch.arange", a)) is None


def test_a_visitor_may_compute_locals_from_a_modules_settings() -> None:
    fills = _passes(
        """
        if isinstance(m, nn.Conv2d):
            fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
            fan_out //= m.groups
            m.weight.data.normal_(0, math.sqrt(2.0 / fan_out))
        """,
        params="self, m",
    )
    assert [(f.detail, f.target) for f in fills] == [("visit", "weight")]
    # a local that rebinds the module, or reads a tensor's numbers: no visitor
    for body in (
        "m = m.block\nnn.init.zeros_(m.weight)",
        "scale = m.weight.abs().max()\nnn.init.normal_(m.bias, std=scale)",
    ):
        assert not _passes(body, params="self, m"), body


def test_a_walk_whose_tests_read_the_objects_settings_is_a_pass_still() -> None:
    fills = _passes(
        """
        for n, m in self.named_modules():
            if isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear) and m.out_features == self.num_classes:
                nn.init.constant_(m.bias, -4.6)
        """
    )
    # (the first fill is claimed; the second's test reads a setting not decided here)
    assert [(f.name, f.target) for f in fills] == [("named_modules", "weight")]
    # a method of the object called in a test may read anything: no pass
    assert not _passes(
        """
        for m in self.modules():
            if isinstance(m, nn.Embedding) and self.wants(m):
                nn.init.normal_(m.weight, std=0.02)
        """
    )

"""``initlint.records.dataclass`` behaves as ``dataclasses.dataclass``: the same equality,
hash values, text and hashability, for every class shape initlint uses and the edge cases
of the standard library's rules."""

from __future__ import annotations

import ast
import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from initlint import records

ROOT = Path(__file__).resolve().parents[1] / "initlint"


def _pair(make: Any, **options: Any) -> tuple[type, type]:
    """The same class body decorated by the standard library and by records."""
    return dataclasses.dataclass(**options)(make()), records.dataclass(**options)(make())


def _plain() -> type:
    class Plain:
        a: int
        b: str = "x"
        c: tuple[int, ...] = ()

    return Plain


def _one() -> type:
    class One:
        a: float

    return One


def _empty() -> type:
    class Empty:
        pass

    return Empty


def _options() -> type:
    class Options:
        a: int
        hidden: str = dataclasses.field(default="h", repr=False)
        ignored: int = dataclasses.field(default=0, compare=False)
        unhashed: int = dataclasses.field(default=0, hash=False)
        hashed_only: int = dataclasses.field(default=0, compare=False, hash=True)

    return Options


def _own_methods() -> type:
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, type(self))

        def __repr__(self) -> str:
            return "own"

    return Own


def _own_hash() -> type:
    class OwnHash:
        a: int

        def __hash__(self) -> int:
            return 7

    return OwnHash


SHAPES = [_plain, _one, _empty, _options, _own_methods, _own_hash]
OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"slots": True},
    {"eq": False},
    {"frozen": True, "repr": False},
    {"frozen": True, "eq": False},
]


def _values(cls: type) -> list[tuple[Any, ...]]:
    n = len([f for f in dataclasses.fields(cls) if f.init])
    base: list[Any] = [1, "s", (1, 2), 3, 4][:n]
    nan: list[Any] = [math.nan, "s", (1,), 3, 4][:n]
    other: list[Any] = [2, "t", (), 5, 6][:n]
    return [tuple(base), tuple(nan), tuple(other)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("make", SHAPES, ids=lambda m: m.__name__)
def test_equality_hash_and_text_match_the_standard_library(make: Any, options: Any) -> None:
    std, ours = _pair(make, **options)
    assert (std.__hash__ is None) == (ours.__hash__ is None)
    assert (std.__hash__ is object.__hash__) == (ours.__hash__ is object.__hash__)
    rows = _values(std)
    for args in rows:
        s1, s2, o1, o2 = std(*args), std(*args), ours(*args), ours(*args)
        if options.get("repr", True):  # (else object's, with the address)
            assert repr(s1).replace("_pair.<locals>.", "") == repr(o1).replace(
                "_pair.<locals>.", ""
            )
        assert (s1 == s2) == (o1 == o2)
        assert (s1 != s2) == (o1 != o2)
        if std.__hash__ not in (None, object.__hash__):  # else by identity
            assert hash(s1) == hash(o1)
        for other_args in rows:
            assert (s1 == std(*other_args)) == (o1 == ours(*other_args))
        assert (o1 == object()) is False  # NotImplemented, then identity
    same, mine = std(*rows[0]), ours(*rows[0])
    assert (same == same) == (mine == mine)


def test_a_field_changed_on_one_side_breaks_equality_and_the_hash_follows() -> None:
    cls = records.dataclass(frozen=True)(_options())
    a = cls(1, "h", 0, 0, 0)
    assert a != cls(1, "other", 0, 0, 0)  # repr=False still compares
    assert a == cls(1, "h", 9, 0, 0)  # compare=False
    assert a != cls(2, "h", 0, 0, 0)
    assert hash(a) == hash(cls(1, "h", 0, 5, 0))  # hash=False
    assert hash(a) != hash(cls(1, "h", 0, 0, 5))  # hash=True, compare=False
    assert repr(a).endswith("(a=1, ignored=0, unhashed=0, hashed_only=0)")


def test_subclass_fields_and_recursive_text() -> None:
    @records.dataclass
    class Node:
        name: str
        children: list[Any] = dataclasses.field(default_factory=list)

    @records.dataclass(frozen=True)
    class Base:
        a: int

    @records.dataclass(frozen=True)
    class Child(Base):
        b: int = 0

    node = Node("n")
    node.children.append(node)
    assert repr(node).endswith("Node(name='n', children=[...])")
    assert Child(1, 2) != Child(1, 3)
    assert Child(1, 2) != Base(1)  # another class: not equal
    assert hash(Child(1, 2)) == hash((1, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        Child(1, 2).a = 3  # type: ignore[misc]


def test_unhandled_options_go_to_the_standard_library() -> None:
    cls = records.dataclass(order=True, frozen=True)(_plain())
    assert cls(1) < cls(2)
    assert cls.__dataclass_params__.eq  # type: ignore[attr-defined]


def test_initlint_takes_dataclass_from_records() -> None:
    """Every record gets the shared methods: no module imports the standard library's
    decorator itself (the equivalence above holds for the one that is used)."""
    offenders = []
    for path in ROOT.rglob("*.py"):
        if path.name == "records.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                if any(alias.name == "dataclass" for alias in node.names):
                    offenders.append(str(path.relative_to(ROOT)))
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "dataclass"
                and isinstance(node.value, ast.Name)
                and node.value.id == "dataclasses"
            ):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_field_values_rebuild_an_instance_even_with_one_tuple_field() -> None:
    @records.dataclass(frozen=True)
    class Pair:
        a: int
        b: tuple[int, ...]

    @records.dataclass(frozen=True)
    class One:
        items: tuple[int, ...]

    for obj in (Pair(1, (2, 3)), One((4, 5))):
        values = records.field_values(type(obj))(obj)
        assert type(values) is tuple
        assert type(obj)(*values) == obj  # a bare tuple would have become (4, 5) as args

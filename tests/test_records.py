"""``initlint.records.dataclass`` behaves as ``dataclasses.dataclass``: the same equality,
hash values, text and hashability, for every class shape initlint uses and the edge cases
of the standard library's rules."""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import inspect
import math
import pickle
from functools import partial
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


def _strip(text: str) -> str:
    return text.replace("_pair.<locals>.", "").replace("_pairs.<locals>.", "")


def _error(call: Any) -> str:
    try:
        call()
    except (TypeError, AttributeError) as exc:  # FrozenInstanceError is one
        return f"{type(exc).__name__}: {_strip(str(exc))}"
    return "no error"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("make", SHAPES, ids=lambda m: m.__name__)
def test_init_and_frozen_methods_match_the_standard_library(make: Any, options: Any) -> None:
    std, ours = _pair(make, **options)
    assert str(inspect.signature(std)) == str(inspect.signature(ours))
    assert std.__init__.__annotations__ == ours.__init__.__annotations__  # type: ignore[misc]
    assert _strip(std.__init__.__qualname__) == _strip(ours.__init__.__qualname__)  # type: ignore[misc]
    assert std.__doc__ == ours.__doc__
    assert std.__match_args__ == ours.__match_args__  # type: ignore[attr-defined]
    std_params, our_params = std.__dataclass_params__, ours.__dataclass_params__  # type: ignore[attr-defined]
    for flag in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(std_params, flag) == getattr(our_params, flag)
    args = _values(std)[0]
    names = [f.name for f in dataclasses.fields(std)]
    s, o = std(*args), ours(**dict(zip(names, args, strict=True)))
    assert [getattr(s, n) for n in names] == [getattr(o, n) for n in names]
    assert _error(lambda: std(*args, 0)) == _error(lambda: ours(*args, 0))  # one too many
    assert _error(lambda: std(x=1)) == _error(lambda: ours(x=1))  # no such argument
    if names:
        assert _error(lambda: std()) == _error(lambda: ours())  # missing
    for name in (*names, "other"):
        got = _error(partial(setattr, o, name, 9)), _error(partial(delattr, o, name))
        expected = _error(partial(setattr, s, name, 9)), _error(partial(delattr, s, name))
        if options.get("slots") and options.get("frozen") and name == "other":
            # The standard library's methods hold the class from before slots were added
            # (CPython gh-90562), so a name that is no field fails inside its super() call
            # with a TypeError; ours raise FrozenInstanceError. Either way it is refused.
            assert all(e.startswith("TypeError: super(type, obj)") for e in expected)
            assert got == (
                "FrozenInstanceError: cannot assign to field 'other'",
                "FrozenInstanceError: cannot delete field 'other'",
            )
            continue
        assert got == expected
    if options.get("frozen"):
        replaced = dataclasses.replace(o, **{n: getattr(o, n) for n in names[:1]})
        assert [getattr(replaced, n) for n in names] == [getattr(o, n) for n in names]
        assert copy.copy(o) == o or not options.get("eq", True)


def test_a_subclass_of_a_frozen_record_sets_its_own_attributes_but_no_field() -> None:
    """The frozen ``__setattr__`` refuses any name on the class itself and only field
    names on a plain subclass (as the standard library's does)."""
    for decorate in (dataclasses.dataclass(frozen=True), records.dataclass(frozen=True)):
        base = decorate(_plain())

        class Sub(base):  # type: ignore[valid-type,misc]
            pass

        sub = Sub(1)
        sub.extra = 2
        assert sub.extra == 2
        with pytest.raises(dataclasses.FrozenInstanceError):
            sub.a = 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            base(1).extra = 2


@records.dataclass(frozen=True, slots=True)
class _FrozenSlots:
    a: int
    b: tuple[int, ...] = ()


@records.dataclass(frozen=True)
class _Frozen:
    a: int
    b: str = "x"


@records.dataclass(frozen=True)
class _FrozenChild(_Frozen):
    c: int = 0


def test_frozen_records_pickle_copy_and_replace() -> None:
    for obj in (_FrozenSlots(1, (2,)), _Frozen(1, "y"), _FrozenChild(1, "y", 2)):
        assert pickle.loads(pickle.dumps(obj)) == obj
        assert copy.deepcopy(obj) == obj
        assert dataclasses.replace(obj, a=5).a == 5
        assert dataclasses.asdict(obj)["a"] == 1
    assert _FrozenSlots.__slots__ == ("a", "b")  # type: ignore[attr-defined]
    assert _FrozenChild.__dataclass_params__.frozen  # type: ignore[attr-defined]


def _pairs() -> list[tuple[str, Any]]:
    """Shapes the shared ``__init__`` does not write: the standard library's must be used."""

    def factory() -> type:
        class Factory:
            a: int
            items: list[int] = dataclasses.field(default_factory=list)

        return Factory

    def post_init() -> type:
        class PostInit:
            a: int

            def __post_init__(self) -> None:
                object.__setattr__(self, "a", self.a + 1)

        return PostInit

    def init_var() -> type:
        class WithInitVar:
            a: int
            scale: dataclasses.InitVar[int] = 1

        return WithInitVar

    def not_in_init() -> type:
        class NotInInit:
            a: int
            b: int = dataclasses.field(default=4, init=False)

        return NotInInit

    def keyword_only() -> type:
        class KeywordOnly:
            a: int
            b: int = dataclasses.field(default=2, kw_only=True)

        return KeywordOnly

    def own_init() -> type:
        class OwnInit:
            a: int

            def __init__(self, value: int = 3) -> None:
                object.__setattr__(self, "a", value * 2)

        return OwnInit

    return [
        ("factory", factory),
        ("post_init", post_init),
        ("init_var", init_var),
        ("not_in_init", not_in_init),
        ("keyword_only", keyword_only),
        ("own_init", own_init),
    ]


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize(("name", "make"), _pairs(), ids=[n for n, _ in _pairs()])
def test_other_shapes_construct_as_the_standard_library_does(
    name: str, make: Any, frozen: bool
) -> None:
    std, ours = _pair(make, frozen=frozen)
    assert str(inspect.signature(std)) == str(inspect.signature(ours))
    first = dataclasses.fields(std)[0].name
    built = [cls(**({"value": 5} if name == "own_init" else {first: 5})) for cls in (std, ours)]
    assert [dataclasses.astuple(b) for b in built[:1]] == [dataclasses.astuple(built[1])]
    assert _error(lambda: setattr(built[0], first, 1)) == _error(
        lambda: setattr(built[1], first, 1)
    )


def test_the_standard_librarys_class_errors_are_raised() -> None:
    def late_default() -> type:
        class Late:
            a: int = 1
            b: int  # type: ignore[misc]

        return Late

    def own_setattr() -> type:
        class OwnSetattr:
            a: int

            def __setattr__(self, name: str, value: object) -> None:
                pass

        return OwnSetattr

    for make, options in ((late_default, {}), (own_setattr, {"frozen": True})):
        with pytest.raises(TypeError) as std:
            dataclasses.dataclass(**options)(make())
        with pytest.raises(TypeError) as ours:
            records.dataclass(**options)(make())
        assert str(std.value) == str(ours.value)


def test_a_plain_record_is_built_without_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the module is for: once the template for its number of fields exists, a
    plain frozen record costs no ``exec`` (the standard library's costs three)."""
    records.dataclass(frozen=True)(_plain())  # the 3-field template, compiled
    calls: list[object] = []
    real = builtins.exec

    def counting(*args: Any, **kwargs: Any) -> None:
        calls.append(args[0])
        real(*args, **kwargs)

    monkeypatch.setattr(builtins, "exec", counting)
    records.dataclass(frozen=True, slots=True)(_plain())
    assert calls == []
    dataclasses.dataclass(frozen=True, eq=False, repr=False)(_plain())
    assert len(calls) == 3  # __init__, __setattr__, __delattr__

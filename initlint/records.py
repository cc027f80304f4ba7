"""``dataclass``: the standard library's, with ``__eq__``, ``__hash__`` and ``__repr__``
built from closures rather than compiled from source text.

``dataclasses.dataclass`` writes each of those methods as Python source and ``exec``-s it:
about 0.3 ms a class, ~20 ms of every check's start-up for the ~70 records it imports (a
tenth of a warm run on vLLM's layers). These methods compare, hash and print the same tuples
and text as the generated ones, field options (``repr``, ``compare``, ``hash``) included,
and follow the standard library's rules for when a class gets a ``__hash__``. A class that
defines one of them itself keeps it. Options this module does not take over
(``order``, ``unsafe_hash``) go to the standard library unchanged. The one visible
difference: ``__dataclass_params__`` reports ``eq`` and ``repr`` as False.

Type checkers see ``dataclasses.dataclass`` itself, so that they treat these classes as
dataclasses (frozen ones included)."""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(cls: type | None = None, /, **options: Any) -> Any:
        """``dataclasses.dataclass(cls, **options)``, its three methods shared (see above)."""

        def wrap(cls: type) -> type:
            return _build(cls, options)

        return wrap if cls is None else wrap(cls)


def _build(cls: type, options: dict[str, Any]) -> type:
    if options.get("order") or options.get("unsafe_hash"):
        return dataclasses.dataclass(cls, **options)
    repr_, eq = options.get("repr", True), options.get("eq", True)
    frozen = options.get("frozen", False)
    own = dict(cls.__dict__)  # before the standard library adds to it
    built: type = dataclasses.dataclass(cls, **{**options, "repr": False, "eq": False})
    fields = dataclasses.fields(built)
    if repr_ and "__repr__" not in own:
        _set(built, "__repr__", _repr([f.name for f in fields if f.repr]))
    if not eq:
        return built
    compared = [f.name for f in fields if f.compare]
    if "__eq__" not in own:
        _set(built, "__eq__", _eq(_values(compared)))
    own_hash = own.get("__hash__", _MISSING)
    explicit = not (own_hash is _MISSING or (own_hash is None and "__eq__" in own))
    if not explicit:  # the standard library's rule (unsafe_hash=False)
        hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
        if frozen:
            _set(built, "__hash__", _hash(_values(hashed)))
        else:
            built.__hash__ = None  # type: ignore[assignment]
    return built


_MISSING = object()


def _set(cls: type, name: str, fn: Callable[..., Any]) -> None:
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)


def field_values(cls: type) -> Callable[[object], tuple[object, ...]]:
    """The tuple of a dataclass instance's field values, in field order (what
    ``cls(*values)`` rebuilds it from, when every field is an ``__init__`` argument)."""
    return _values([f.name for f in dataclasses.fields(cls)])


def _values(names: list[str]) -> Callable[[object], tuple[object, ...]]:
    """The tuple of ``names``' values, as the generated methods build it."""
    if len(names) > 1:
        return attrgetter(*names)
    if not names:
        return lambda _obj: ()
    one = attrgetter(names[0])
    return lambda obj: (one(obj),)


def _eq(values: Callable[[object], tuple[object, ...]]) -> Callable[[object, object], Any]:
    def __eq__(self: object, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[object], tuple[object, ...]]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))

    return __hash__


def _repr(names: list[str]) -> Callable[[object], str]:
    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__

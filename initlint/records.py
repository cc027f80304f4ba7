"""``dataclass``: the standard library's, with its methods built from closures and shared
code rather than compiled from source text.

``dataclasses.dataclass`` writes each method it adds as Python source and ``exec``-s it:
about 0.3 ms a method. For the ~70 records a check imports that was ~45 ms of every
start-up, a quarter of a warm run on vLLM's layers. Here:

- ``__eq__``, ``__hash__`` and ``__repr__`` are closures over ``attrgetter``. They compare,
  hash and print the same tuples and text as the generated ones, field options (``repr``,
  ``compare``, ``hash``) included, and follow the standard library's rules for when a class
  gets a ``__hash__``. A class that defines one of them itself keeps it.
- ``__init__`` is one compiled template per number of fields, its names replaced by the
  fields' (``CodeType.replace``): the same signature, defaults, annotations, errors and
  assignments as the generated one. A frozen class's ``__setattr__`` and ``__delattr__``
  (and, with slots, ``__getstate__`` and ``__setstate__``) are closures doing what the
  generated ones do. This covers the plain shape: fields with defaults or none, no
  dataclass base, no ``__post_init__``, ``InitVar``, ``KW_ONLY``, ``kw_only``, factory or
  ``init=False`` field. Any other class gets the standard library's ``__init__`` and frozen
  methods.

Options this module does not take over (``order``, ``unsafe_hash``) go to the standard
library unchanged. ``__dataclass_params__`` reports the options given.

Type checkers see ``dataclasses.dataclass`` itself, so that they treat these classes as
dataclasses (frozen ones included)."""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import reprlib
import types
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(cls: type | None = None, /, **options: Any) -> Any:
        """``dataclasses.dataclass(cls, **options)``, its methods shared (see above)."""

        def wrap(cls: type) -> type:
            return _build(cls, options)

        return wrap if cls is None else wrap(cls)


def _build(cls: type, options: dict[str, Any]) -> type:
    if options.get("order") or options.get("unsafe_hash"):
        return dataclasses.dataclass(cls, **options)
    repr_, eq = options.get("repr", True), options.get("eq", True)
    frozen = options.get("frozen", False)
    own = dict(cls.__dict__)  # before the standard library adds to it
    shared = options.get("init", True) and _plain_shape(cls, own, options)
    taken = {"repr": False, "eq": False} | ({"init": False, "frozen": False} if shared else {})
    built: type = dataclasses.dataclass(cls, **{**options, **taken})
    fields = dataclasses.fields(built)
    if shared:
        _set_init(built, fields, own, frozen)
        if frozen:
            _set_frozen(built, fields, own, options.get("slots", False))
    params = built.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.repr, params.eq, params.frozen = (
        options.get("init", True),
        repr_,
        eq,
        frozen,
    )
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


def _plain_shape(cls: type, own: dict[str, Any], options: dict[str, Any]) -> bool:
    """Whether the class's ``__init__`` is one the shared template writes (see above):
    decided before the standard library runs, from the class as written."""
    if options.get("kw_only") or hasattr(cls, "__post_init__"):
        return False
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        return False  # inherited fields and frozen-ness: the standard library's rules
    for annotation in own.get("__annotations__", {}).values():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if "InitVar" in text or "KW_ONLY" in text:
            return False
    return not any(
        isinstance(v, dataclasses.Field)
        and (v.default_factory is not dataclasses.MISSING or not v.init or v.kw_only is True)
        for v in own.values()
    )


# One ``__init__`` per number of fields and kind of assignment, compiled once.
_TEMPLATES: dict[tuple[int, bool], types.CodeType] = {}
_TEMPLATE_GLOBALS: dict[str, Any] = {"__builtins__": builtins, "_setattr": object.__setattr__}


def _template(count: int, frozen: bool) -> types.CodeType:
    code = _TEMPLATES.get((count, frozen))
    if code is None:
        names = [f"a{i}" for i in range(count)]
        body = [
            f"    _setattr(self, {name!r}, {name})" if frozen else f"    self.{name} = {name}"
            for name in names
        ]
        source = f"def __init__({', '.join(['self', *names])}):\n" + ("\n".join(body) or "    pass")
        namespace: dict[str, Any] = {}
        exec(source, _TEMPLATE_GLOBALS, namespace)  # noqa: S102 - our own fixed text
        code = _TEMPLATES[(count, frozen)] = namespace["__init__"].__code__
    return code


def _set_init(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], own: dict[str, Any], frozen: bool
) -> None:
    """The standard library's ``__init__`` for the plain shape, from the shared template."""
    if "__init__" in own:
        return  # the class's own, as the standard library keeps it
    names = [f.name for f in fields]
    defaults: list[Any] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            defaults.append(f.default)
        elif defaults:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    code = _template(len(names), frozen)
    rename = {f"a{i}": name for i, name in enumerate(names)}
    rename["self"] = "__dataclass_self__" if "self" in names else "self"
    qualname = f"{cls.__qualname__}.__init__"
    code = code.replace(
        co_varnames=tuple(rename.get(v, v) for v in code.co_varnames),
        co_names=tuple(rename.get(v, v) for v in code.co_names),
        co_consts=tuple(rename.get(c, c) if type(c) is str else c for c in code.co_consts),
        co_qualname=qualname,
    )
    init = types.FunctionType(code, _TEMPLATE_GLOBALS, "__init__", tuple(defaults) or None)
    init.__qualname__ = qualname
    init.__module__ = cls.__module__
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    cls.__init__ = init  # type: ignore[misc]
    if not own.get("__doc__"):  # the text the standard library writes from the signature
        try:
            signature = str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            signature = ""
        cls.__doc__ = cls.__name__ + signature


def _set_frozen(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], own: dict[str, Any], slots: bool
) -> None:
    """What ``frozen=True`` adds: assigning or deleting a field raises, and, with slots,
    pickling goes through the field values."""
    for name in ("__setattr__", "__delattr__"):
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    names = tuple(f.name for f in fields)
    error = dataclasses.FrozenInstanceError

    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]

    _set(cls, "__setattr__", __setattr__)
    _set(cls, "__delattr__", __delattr__)
    if slots:
        for name, method in (("__getstate__", _getstate), ("__setstate__", _setstate)):
            if name not in own:
                setattr(cls, name, method)


def _getstate(self: object) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]


def _setstate(self: object, state: list[object]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):  # type: ignore[arg-type]
        object.__setattr__(self, f.name, value)


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

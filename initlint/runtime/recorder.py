"""Records effects while a factory runs: patched nn.Module methods plus a profile hook.

Everything is recorded for every object; ``collect`` keeps what happened to the object the
factory returned, ``collect_objects`` keeps it per object for a whole-model trace. Objects are
held through weak references where they allow it, so temporaries die as they would without the
recorder and a reused ``id`` cannot be mistaken for the result. Each object gets an ordinal the
first time something happens to it; a dead object's ``id`` reused by a new one gets a new
ordinal, so "the same object" means the same identity, never the same name.
"""

from __future__ import annotations

import functools
import inspect
import sys
import weakref
from collections.abc import Callable, Sequence
from types import CodeType, FrameType
from typing import Any

from initlint.records import dataclass

from .model import EventKind, TraceEvent
from .paths import (
    FrameInfo,
    default_roots,
    excluded_dirs,
    frame_info,
    is_library,
    is_under,
    normalize,
    pick_site,
    qualname_of,
)

_STACK_DEPTH = 8  # user frames kept per event, to pick the first project frame later
# Attribute-protocol hooks run on every access; they are not init work.
_SKIPPED_METHODS = frozenset({"__setattr__", "__getattr__", "__getattribute__", "__delattr__"})
# Other dunders (__repr__, __eq__, __getitem__, ...) are protocol plumbing, not init work.
_COUNTED_DUNDERS = frozenset({"__init__", "__post_init__", "__call__"})
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_MISSING = object()


@dataclass
class _Record:
    kind: EventKind
    name: str
    bytes: int
    target: Callable[[], object]
    stack: tuple[FrameInfo, ...]
    file: str = ""  # the callee's file, for calls
    ident: int = 0  # ordinal of the target object
    arguments: int = 0  # fingerprint of a call's arguments (0 for storage)
    in_init: bool = False  # while a project __init__ of the target was running
    wraps: bool = False  # a submodule assigned over the one it contains: the old one survives
    start: int = 0  # for calls: how many tensors had been stored when the call began
    stores: int = 0  # for calls: how many storage events had happened when the call began
    read: bool = False  # a call that only handed back tensors stored before it: a getter
    # The value this store replaced (a weak reference; None when there was none or it cannot
    # be referenced weakly): when it still lives in the constructed object at the end (kept
    # in a container, aliased under another name, wrapped), it was used, not thrown away.
    replaced: Callable[[], object] | None = None


@dataclass
class TracedObject:
    """One object something happened to, with its events in order."""

    ident: int
    cls: type
    target: Callable[[], object]
    # (event, argument fingerprint, in its own __init__, "file:line" of each project frame)
    events: list[tuple[TraceEvent, int, bool, tuple[str, ...]]]


@dataclass(frozen=True)
class Discard:
    """A submodule replaced by assignment: its whole tree (ordinals) is the replaced value."""

    parent: int
    name: str
    members: frozenset[int]


_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _weak(value: object) -> Callable[[], object] | None:
    """A weak reference to a replaced value (None for none, or one that allows none: then it
    cannot be told to live on, and counts as thrown away)."""
    if value is _MISSING or value is None:
        return None
    try:
        return weakref.ref(value)
    except TypeError:
        return None


class _Alive:
    """What the constructed objects still hold at the end, by identity: every module of
    their trees, its parameters, buffers and the values of its plain attributes (and of the
    lists, tuples and dicts among them, one level down). Computed once per object."""

    def __init__(self, torch: Any) -> None:
        self._module = torch.nn.Module
        self._held: dict[int, frozenset[int]] = {}

    def kept(self, record: _Record) -> bool:
        """The value ``record``'s store replaced still lives in the object it was stored on."""
        if record.replaced is None:
            return False
        old, target = record.replaced(), record.target()
        if old is None or target is None:
            return False  # (collected: nothing kept it)
        return id(old) in self._of(target)

    def _of(self, target: object) -> frozenset[int]:
        key = id(target)
        if key not in self._held:
            self._held[key] = frozenset(id(v) for v in self._values(target))
        return self._held[key]

    def _values(self, target: object) -> list[object]:
        try:
            modules = list(target.modules()) if isinstance(target, self._module) else [target]
        except Exception:  # noqa: BLE001 - a tree that cannot be walked: the object alone
            modules = [target]
        out: list[object] = []
        for m in modules:
            state = getattr(m, "__dict__", {})
            for table in ("_parameters", "_buffers", "_modules"):
                out += [v for v in state.get(table, {}).values() if v is not None]
            for value in state.values():
                out.append(value)
                if isinstance(value, list | tuple):
                    out += value
                elif isinstance(value, dict):
                    out += value.values()
        return out


def _fingerprint(value: Any, depth: int = 0) -> object:
    """A hashable stand-in for an argument: its value for plain data, else its identity.

    Identity can repeat after a temporary dies; that only makes two calls look equal."""
    if isinstance(value, _SCALARS):
        return (type(value).__name__, value)
    if depth < 2 and isinstance(value, (tuple, list, frozenset)) and len(value) <= 16:
        return (type(value).__name__, tuple(_fingerprint(v, depth + 1) for v in value))
    if depth < 2 and isinstance(value, dict) and len(value) <= 16:
        items = sorted(((repr(k), _fingerprint(v, depth + 1)) for k, v in value.items()), key=repr)
        return ("dict", tuple(items))
    return ("id", id(value))


def _ref(obj: object) -> Callable[[], object]:
    try:
        return weakref.ref(obj)
    except TypeError:  # no weakref support: hold it (rare; __slots__ classes)
        return lambda: obj


def _is_accessor(code: CodeType, target: object) -> bool:
    """Whether ``code`` is a property's getter/setter/deleter or a cached_property's function
    on ``target``'s class: reading an attribute is not a call of init work."""
    try:
        found = inspect.getattr_static(type(target), code.co_name, None)
    except Exception:  # noqa: BLE001 - an exotic metaclass: count the call
        return False
    if isinstance(found, property):
        funcs: tuple[Any, ...] = (found.fget, found.fset, found.fdel)
    elif isinstance(found, functools.cached_property):
        funcs = (found.func,)
    else:
        return False
    return any(getattr(f, "__code__", None) is code for f in funcs)


def _held(module: Any, name: str) -> object:
    """What ``module`` holds under ``name`` now (a parameter, buffer, submodule or attribute)."""
    state = module.__dict__
    for table in ("_parameters", "_buffers", "_modules"):
        found = state.get(table, {}).get(name, _MISSING)
        if found is not _MISSING:
            return found
    return state.get(name, _MISSING)


def _contains(outer: Any, inner: Any) -> bool:
    """Whether module ``inner`` sits in module ``outer``'s tree (a wrapper around it)."""
    try:
        return any(m is inner for m in outer.modules())
    except Exception:  # noqa: BLE001 - a tree that cannot be walked: not a wrapper
        return False


class Recorder:
    """Install with ``start()``, always undo with ``stop()``, then ``collect(result)``."""

    def __init__(self, torch: Any, roots: Sequence[str] | None) -> None:
        self._torch = torch
        self._roots = tuple(roots) if roots is not None else None
        self._excluded = excluded_dirs(torch.__file__)
        self._records: list[_Record] = []
        self._code_ok: dict[CodeType, bool] = {}
        self._accessor: dict[CodeType, bool] = {}
        self._file_ok: dict[str, bool] = {}
        self._open: dict[FrameType, tuple[tuple[int, CodeType], _Record | None, int]] = {}
        self._initializing: dict[int, int] = {}  # ordinal -> project __init__ frames running
        self._active: dict[tuple[int, CodeType], int] = {}
        self._inside = 0  # >0 while a patched method runs: nested registrations are its own
        self._saved: list[tuple[type, str, Any]] = []
        self._previous_profile: Any = None
        self._boundary: FrameType | None = None  # the frame that runs the factory
        self._idents: dict[int, tuple[Callable[[], object], int]] = {}  # id(obj) -> (ref, ordinal)
        self._classes: dict[int, type] = {}  # ordinal -> class
        # id(tensor) -> (ref, order) of each tensor stored as a buffer, parameter or attribute
        self._stored: dict[int, tuple[Callable[[], object], int]] = {}
        self._stored_count = 0
        self._stores = 0  # storage events so far (buffers, parameters, attributes)
        self.discards: list[Discard] = []

    @property
    def roots(self) -> tuple[str, ...] | None:
        """The project roots given, or None for the default (the result's top package)."""
        return self._roots

    # ---- installing -------------------------------------------------------------------------

    def start(self) -> None:
        """Install; the caller's frame is the boundary: frames above it are not the factory's."""
        self._boundary = sys._getframe(1)
        module = self._torch.nn.Module
        for name, make in (
            ("register_buffer", self._wrap_register("buffer")),
            ("register_parameter", self._wrap_register("parameter")),
            ("__setattr__", self._wrap_setattr),
            ("__delattr__", self._wrap_delattr),
        ):
            original = module.__dict__[name]
            self._saved.append((module, name, original))
            setattr(module, name, make(original))
        self._previous_profile = sys.getprofile()
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(self._previous_profile)
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)
        self._open.clear()
        self._active.clear()
        self._initializing.clear()
        self._boundary = None

    # ---- patched nn.Module methods ----------------------------------------------------------

    def _wrap_register(self, kind: EventKind) -> Callable[[Any], Any]:
        def make(original: Any) -> Any:
            # torch's own parameter names (``register_parameter(name, param)``,
            # ``register_buffer(name, tensor, persistent)``): the call may name them
            try:
                signature = inspect.signature(original)
                name_key, value_key = list(signature.parameters)[1:3]
            except (TypeError, ValueError):  # a signature that names neither
                return original

            @functools.wraps(original)
            def register(module: Any, *args: Any, **kwargs: Any) -> None:
                if self._inside:
                    return original(module, *args, **kwargs)  # type: ignore[no-any-return]
                bound = signature.bind(module, *args, **kwargs).arguments
                name, tensor = bound[name_key], bound.get(value_key)
                held = _held(module, name)
                self._inside += 1
                try:
                    original(module, *args, **kwargs)
                finally:
                    self._inside -= 1
                if tensor is not None:  # a None placeholder is declared, not built
                    self._add(kind, module, name, tensor, sys._getframe(1))
                    self._records[-1].replaced = _weak(held)

            return register

        return make

    def _wrap_setattr(self, original: Any) -> Any:
        tensor_type = self._torch.Tensor
        parameter_type = self._torch.nn.Parameter
        buffer_type = getattr(self._torch.nn, "Buffer", ())

        module_type = self._torch.nn.Module

        @functools.wraps(original)
        def __setattr__(module: Any, name: str, value: Any) -> None:
            drop = self._dropped(module, name) if value is None and not self._inside else None
            if drop is not None:
                original(module, name, value)
                self._record_drop(module, name, sys._getframe(1), drop)
                return
            if self._inside or not isinstance(value, tensor_type | module_type):
                original(module, name, value)
                return
            kind: EventKind
            if isinstance(value, module_type):
                kind = "attribute"  # a submodule: its bytes are its parameters and buffers
            elif isinstance(value, parameter_type):
                kind = "parameter"
            elif isinstance(value, buffer_type) or name in module.__dict__.get("_buffers", ()):
                kind = "buffer"
            else:
                kind = "attribute"
            held = _held(module, name)
            wraps = False
            if isinstance(value, module_type) and isinstance(held, module_type):
                wraps = held is not value and _contains(value, held)
                if held is not value and not wraps:
                    self._discard(module, name, held)
            self._inside += 1
            try:
                original(module, name, value)
            finally:
                self._inside -= 1
            if held is value:
                return  # the value it already holds (weight_norm hands the module back): no build
            self._add(kind, module, name, value, sys._getframe(1), wraps=wraps)
            self._records[-1].replaced = _weak(held)

        return __setattr__

    def _wrap_delattr(self, original: Any) -> Any:
        @functools.wraps(original)
        def __delattr__(module: Any, name: str) -> None:
            frame = sys._getframe(1)
            # (torch's own re-plumbing, e.g. parametrize moving a weight into its
            # parametrization, hands the tensor on: not a build thrown away)
            ours = not str(frame.f_globals.get("__name__", "")).startswith("torch.")
            drop = self._dropped(module, name) if ours and not self._inside else None
            original(module, name)
            if drop is not None:
                self._record_drop(module, name, frame, drop)

        return __delattr__

    def _dropped(self, module: Any, name: str) -> tuple[Any, EventKind] | None:
        """What ``module.name`` holds and its kind, when it is a module or tensor (a drop of
        it throws a build away); None otherwise. Read before the drop: a ``del`` takes the
        name out of ``_buffers``."""
        held = _held(module, name)
        if not isinstance(held, self._torch.Tensor | self._torch.nn.Module):
            return None
        kind: EventKind = "attribute"
        if isinstance(held, self._torch.nn.Parameter):
            kind = "parameter"
        elif name in module.__dict__.get("_buffers", ()):
            kind = "buffer"
        return held, kind

    def _record_drop(self, module: Any, name: str, frame: Any, drop: tuple[Any, EventKind]) -> None:
        """A module or tensor dropped (set to None, or deleted): the build that made it is
        thrown away, recorded as a store of nothing so that it shows as a repeat."""
        held, kind = drop
        if isinstance(held, self._torch.nn.Module):
            self._discard(module, name, held)
        self._add(kind, module, name, None, frame)
        self._records[-1].replaced = _weak(held)

    def _discard(self, parent: Any, name: str, old: Any) -> None:
        try:
            members = frozenset(self._ident(m) for m in old.modules())
        except Exception:  # a module whose tree cannot be walked: the module alone
            members = frozenset({self._ident(old)})
        self.discards.append(Discard(self._ident(parent), name, members))

    def _add(
        self, kind: EventKind, target: Any, name: str, value: Any, frame: Any, wraps: bool = False
    ) -> None:
        ident = self._ident(target)
        record = _Record(
            kind, name, self._bytes(value), self._idents[id(target)][0], self._stack(frame)
        )
        record.ident = ident
        record.in_init = ident in self._initializing
        record.wraps = wraps
        self._records.append(record)
        self._stores += 1
        self._remember(value)

    def _remember(self, value: Any) -> None:
        """Note a stored tensor (or a stored module's tensors) with the order it was stored in."""
        tensors = (
            [*value.parameters(), *value.buffers()]
            if isinstance(value, self._torch.nn.Module)
            else [value]
        )
        for t in tensors:
            if isinstance(t, self._torch.Tensor) and self._stored_at(t) is None:
                self._stored[id(t)] = (_ref(t), self._stored_count)
                self._stored_count += 1

    def _stored_at(self, tensor: Any) -> int | None:
        entry = self._stored.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def _ident(self, obj: object) -> int:
        """The ordinal of ``obj``: stable while it lives, never shared with a dead object."""
        entry = self._idents.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        ordinal = len(self._classes) + 1
        self._idents[id(obj)] = (_ref(obj), ordinal)
        self._classes[ordinal] = type(obj)
        return ordinal

    # ---- the profile hook: project method calls ---------------------------------------------

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            ok = self._code_ok.get(code)
            if ok is None:
                ok = self._code_ok[code] = self._is_candidate(code)
            if ok:
                self._enter(frame, code)
        elif event == "return" and self._open:
            entry = self._open.pop(frame, None)
            if entry is not None:
                key, record, initializing = entry
                if initializing:
                    running = self._initializing[initializing] - 1
                    if running:
                        self._initializing[initializing] = running
                    else:
                        del self._initializing[initializing]
                left = self._active[key] - 1
                if left:
                    self._active[key] = left
                else:
                    del self._active[key]
                if record is not None:
                    record.bytes = self._bytes(arg, built_after=record.start)
                    record.read = (
                        record.bytes == 0 and self._stores == record.stores and self._bytes(arg) > 0
                    )

    def _enter(self, frame: FrameType, code: CodeType) -> None:
        target = frame.f_locals.get("self", _MISSING)
        if target is _MISSING:
            return
        accessor = self._accessor.get(code)
        if accessor is None:
            accessor = self._accessor[code] = _is_accessor(code, target)
        if accessor:
            return
        key = (id(target), code)
        depth = self._active.get(key, 0)
        self._active[key] = depth + 1
        ordinal = self._ident(target)
        initializing = 0
        if code.co_name == "__init__":
            initializing = ordinal
            self._initializing[ordinal] = self._initializing.get(ordinal, 0) + 1
        record = None
        if depth == 0:  # a nested or recursive call of the same method is not a new call
            name = qualname_of(code, target)
            stack = self._stack(frame.f_back)
            ref = self._idents[id(target)][0]
            record = _Record("call", name, 0, ref, stack, normalize(code.co_filename), ordinal)
            record.arguments = self._arguments(frame, code)
            record.in_init = ordinal in self._initializing
            record.start = self._stored_count
            record.stores = self._stores
            self._records.append(record)
        self._open[frame] = (key, record, initializing)

    @staticmethod
    def _arguments(frame: FrameType, code: CodeType) -> int:
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & inspect.CO_VARARGS) + bool(
            code.co_flags & inspect.CO_VARKEYWORDS
        )
        local = frame.f_locals
        names = [n for n in code.co_varnames[:count] if n != "self"]
        return hash(tuple(_fingerprint(local.get(n)) for n in names))

    def _is_candidate(self, code: CodeType) -> bool:
        if code.co_flags & _GENERATOR_FLAGS or code.co_name in _SKIPPED_METHODS:
            return False
        name = code.co_name
        if name.startswith("__") and name.endswith("__") and name not in _COUNTED_DUNDERS:
            return False
        if "self" not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
            return False
        file = normalize(code.co_filename)
        if self._roots is not None:
            return is_under(file, self._roots)
        return self._is_user_file(file)

    # ---- helpers ----------------------------------------------------------------------------

    def _is_user_file(self, file: str) -> bool:
        ok = self._file_ok.get(file)
        if ok is None:
            ok = self._file_ok[file] = not (
                file.startswith("<") or is_under(file, self._excluded) or is_library(file)
            )
        return ok

    def _stack(self, frame: FrameType | None) -> tuple[FrameInfo, ...]:
        stack: list[FrameInfo] = []
        while frame is not None and frame is not self._boundary and len(stack) < _STACK_DEPTH:
            if self._is_user_file(normalize(frame.f_code.co_filename)):
                stack.append(frame_info(frame))
            frame = frame.f_back
        return tuple(stack)

    def _bytes(self, value: Any, built_after: int | None = None) -> int:
        """Bytes of the tensors in ``value``. With ``built_after`` (a call's result), a tensor
        already stored before the call began is not counted: returning it is a read (a getter
        such as ``get_parameter_or_buffer``), not a build."""
        if isinstance(value, dict):
            value = tuple(value.values())
        if isinstance(value, (tuple, list)):
            return sum(self._tensor_bytes(v, built_after) for v in value)
        return self._tensor_bytes(value, built_after)

    def _tensor_bytes(self, value: Any, built_after: int | None = None) -> int:
        if isinstance(value, self._torch.nn.Module):
            tensors = [*value.parameters(), *value.buffers()]
            return sum(self._tensor_bytes(t, built_after) for t in tensors)
        if not isinstance(value, self._torch.Tensor):
            return 0
        if built_after is not None:
            stored = self._stored_at(value)
            if stored is not None and stored < built_after:
                return 0
        try:
            return int(value.numel()) * int(value.element_size())
        except Exception:  # exotic tensor subclasses (nested, sparse)
            return 0

    # ---- results ----------------------------------------------------------------------------

    def collect(self, result: object) -> tuple[TraceEvent, ...]:
        """Events that happened to ``result``; calls only of project code."""
        roots = self._roots if self._roots is not None else default_roots(type(result))
        events: list[TraceEvent] = []
        alive = _Alive(self._torch)
        for record in self._records:
            if record.target() is not result or record.read:
                continue
            if record.kind == "call" and not is_under(record.file, roots):
                continue
            site, owner = pick_site(record.stack, roots)
            wraps = record.wraps or alive.kept(record)
            events.append(TraceEvent(record.kind, record.name, record.bytes, site, owner, wraps))
        return tuple(events)

    def collect_objects(self, roots: Sequence[str]) -> list[TracedObject]:
        """Every object something happened to, in first-event order; calls of project code."""
        objects: dict[int, TracedObject] = {}
        alive = _Alive(self._torch)
        for record in self._records:
            if record.read or record.kind == "call" and not is_under(record.file, roots):
                continue
            traced = objects.get(record.ident)
            if traced is None:
                cls = self._classes[record.ident]
                traced = objects[record.ident] = TracedObject(record.ident, cls, record.target, [])
            site, owner = pick_site(record.stack, roots)
            wraps = record.wraps or alive.kept(record)
            event = TraceEvent(record.kind, record.name, record.bytes, site, owner, wraps)
            frames = tuple(f"{f[0]}:{f[1]}" for f in record.stack if is_under(f[0], roots))
            traced.events.append((event, record.arguments, record.in_init, frames))
        return sorted(objects.values(), key=lambda o: o.ident)

    def ident_of(self, obj: object) -> int | None:
        entry = self._idents.get(id(obj))
        return entry[1] if entry is not None and entry[0]() is obj else None

"""Random small nn.Module hierarchies, as a model and as the source of a package.

The generator only builds constructs that the init simulation claims to understand (docs/design.md):
single bases inside the package with an ``nn.Module`` root, ``super().__init__(...)`` with
positional and keyword constants or threaded parameters, ``*args, **kwargs`` forwarding,
``kwargs.pop("flag", None)`` followed by an explicit ``flag=...``, ``bool`` flag parameters with
constant defaults guarding ``if flag:`` / ``if not flag:`` blocks, and ``register_buffer`` with a
torch factory or a ``self._make()`` helper value, in the body after the super call.

Every program it builds constructs without error when each class is called with no arguments:
the arguments of each super call are drawn from what the parent chain really accepts (see
``Iface``). The property test still rejects any program whose construction raises ``TypeError``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

BUFFERS = ("cache", "table")
ATTRS = ("freqs",)  # tensor attributes: never registered as buffers, so no name clash
FLAGS = ("init_x", "init_y", "init_z")
MAX_POSITIONAL = 2


@dataclass(frozen=True)
class Term:
    """One operand of a guard: ``[not ][self.]name``."""

    name: str
    negate: bool = False
    self_attr: bool = False

    def render(self) -> str:
        return f"{'not ' if self.negate else ''}{'self.' if self.self_attr else ''}{self.name}"


@dataclass(frozen=True)
class Reg:
    """``self.register_buffer(name, value)`` (a name in BUFFERS) or ``self.name = value`` (a name
    in ATTRS), under ``if <terms joined by op>:`` when there are terms."""

    name: str
    guard: tuple[Term, ...] = ()
    op: str = "and"
    via_make: bool = False

    @property
    def kind(self) -> str:
        return "buffer" if self.name in BUFFERS else "attribute"


@dataclass(frozen=True)
class Klass:
    name: str
    module: int
    base: int | None  # index of an earlier class; None: nn.Module
    has_init: bool = True  # False: no __init__ of its own (the rest is ignored but make)
    form: str = "super"  # "super" | "super2": super(X, self) | "explicit": A.__init__(self, ...)
    # Levels skipped: super(X, self) with X = the skip-th ancestor (0: the class itself), or
    # A.__init__(self) with A = the (skip + 1)-th ancestor. Either way A's __init__ runs next.
    skip: int = 0
    pos: tuple[tuple[str, bool], ...] = ()  # positional-or-keyword flags (name, default)
    kwonly: tuple[tuple[str, bool], ...] = ()
    star: bool = False  # (*args, **kwargs), forwarded to the super call
    pops: tuple[str, ...] = ()  # kwargs.pop(name, None) before the super call
    stores: tuple[tuple[str, bool], ...] = ()  # self.<flag> = <flag>; True: before super
    call_pos: tuple[str, ...] = ()  # "True" | "False" | own parameter | self.<stored before>
    pos_after_star: bool = False  # super().__init__(*args, True) vs (True, *args)
    call_kw: tuple[tuple[str, str], ...] = ()
    kw_after_star: bool = False  # super().__init__(*args, **kwargs, k=v) vs (k=v, **kwargs)
    regs: tuple[Reg, ...] = ()
    make: str | None = None  # defines _make() returning torch.<make>(2); roots always do

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.pos + self.kwonly)


@dataclass(frozen=True)
class Program:
    package: str
    modules: int
    classes: tuple[Klass, ...]
    import_style: tuple[str, ...]  # per module: "relative" | "absolute" | "module"

    def module_name(self, index: int) -> str:
        return f"m{index}"

    def files(self) -> dict[str, str]:
        """Relative path -> source; the package plus a pyproject.toml."""
        out = {
            "pyproject.toml": f'[project]\nname = "{self.package}"\nversion = "0"\n',
            f"{self.package}/__init__.py": "",
        }
        for m in range(self.modules):
            out[f"{self.package}/{self.module_name(m)}.py"] = self._module_source(m)
        return out

    def ancestors(self, index: int) -> list[int | None]:
        """Indices of the bases of class ``index``, nearest first, ending with None (nn.Module)."""
        out: list[int | None] = []
        cur = self.classes[index].base
        while cur is not None:
            out.append(cur)
            cur = self.classes[cur].base
        return [*out, None]

    def called(self, index: int) -> int | None:
        """The class whose ``__init__`` the super call of class ``index`` runs (None: nn.Module)."""
        return self.ancestors(index)[self.classes[index].skip]

    def _ref(self, k: Klass, target: int | None) -> str:
        if target is None:
            return "nn.Module"
        other = self.classes[target]
        if other.module == k.module or self.import_style[k.module] != "module":
            return other.name
        return f"{self.module_name(other.module)}.{other.name}"

    def _referenced(self, index: int) -> list[int]:
        k = self.classes[index]
        refs = [k.base]
        if k.has_init and k.form == "explicit":
            refs.append(self.called(index))
        elif k.has_init and k.form == "super2" and k.skip:
            refs.append(self.ancestors(index)[k.skip - 1])
        return [r for r in refs if r is not None]

    def _module_source(self, m: int) -> str:
        imports: list[str] = []
        for i, k in enumerate(self.classes):
            if k.module != m:
                continue
            for ref in self._referenced(i):
                other = self.classes[ref]
                if other.module == m:
                    continue
                mod = self.module_name(other.module)
                style = self.import_style[m]
                if style == "relative":
                    line = f"from .{mod} import {other.name}"
                elif style == "absolute":
                    line = f"from {self.package}.{mod} import {other.name}"
                else:
                    line = f"from . import {mod}"
                if line not in imports:
                    imports.append(line)
        lines = ["import torch", "from torch import nn", *imports]
        for k in self.classes:
            if k.module == m:
                lines += ["", "", *self._class_source(k)]
        return "\n".join(lines) + "\n"

    def _class_source(self, k: Klass) -> list[str]:
        out = [f"class {k.name}({self._ref(k, k.base)}):"]
        if k.has_init:
            out += self._init_source(k)
        if k.make is not None:
            if k.has_init:
                out.append("")
            out += ["    def _make(self):", f"        return torch.{k.make}(2)"]
        if len(out) == 1:
            out.append("    pass")
        return out

    def _super_call(self, k: Klass, args: list[str]) -> str:
        index = self.classes.index(k)
        if k.form == "super2":
            x = k.name if not k.skip else self._ref(k, self.ancestors(index)[k.skip - 1])
            return f"super({x}, self).__init__({', '.join(args)})"
        if k.form == "explicit":
            target = self._ref(k, self.called(index))
            return f"{target}.__init__({', '.join(['self', *args])})"
        return f"super().__init__({', '.join(args)})"

    def _init_source(self, k: Klass) -> list[str]:
        sig = ["self", *(f"{n}: bool = {d}" for n, d in k.pos)]
        if k.star:
            sig.append("*args")
        elif k.kwonly:
            sig.append("*")
        sig += [f"{n}: bool = {d}" for n, d in k.kwonly]
        if k.star:
            sig.append("**kwargs")
        args = list(k.call_pos)
        kws = [f"{n}={v}" for n, v in k.call_kw]
        if k.star:
            args.insert(0 if k.pos_after_star else len(args), "*args")
            args += ["**kwargs", *kws] if k.kw_after_star else [*kws, "**kwargs"]
        else:
            args += kws
        body = [f"self.{n} = {n}" for n, before in k.stores if before]
        body += [f'kwargs.pop("{p}", None)' for p in k.pops]
        body.append(self._super_call(k, args))
        body += [f"self.{n} = {n}" for n, before in k.stores if not before]
        for r in k.regs:
            value = "self._make()" if r.via_make else "torch.zeros(4)"
            if r.kind == "buffer":
                stmt = f'self.register_buffer("{r.name}", {value})'
            else:
                stmt = f"self.{r.name} = {value}"
            if not r.guard:
                body.append(stmt)
            else:
                cond = f" {r.op} ".join(t.render() for t in r.guard)
                body += [f"if {cond}:", f"    {stmt}"]
        out = [f"    def __init__({', '.join(sig)}):"]
        out += [f"        {line}" for line in body]
        return out


@dataclass(frozen=True)
class Iface:
    """What a class's ``__init__`` accepts from a subclass's super call.

    ``positional``: the parameter names that positional arguments bind to, in order (through
    ``*args`` forwarding into the parent chain, as far as that is safe). ``keywords``: the keyword
    names it accepts without a TypeError (own parameters, plus, with ``**kwargs``, what the parent
    chain accepts and the class does not pass itself, plus what it pops).
    """

    positional: tuple[str, ...]
    keywords: frozenset[str]


ROOT = Iface((), frozenset())  # nn.Module.__init__ takes no arguments


def iface(k: Klass, parent: Iface) -> Iface:
    if not k.has_init:
        return parent
    own_pos = tuple(n for n, _ in k.pos)
    if not k.star:
        return Iface(own_pos, frozenset(k.params))
    explicit_kw = {n for n, _ in k.call_kw}
    used = len(k.call_pos)
    rest: list[str] = []
    for name in parent.positional[used:]:
        if name in explicit_kw or (k.pos_after_star and used):
            break  # an extra positional there would clash with an explicit argument
        rest.append(name)
    bound = set(parent.positional[:used])
    forwarded = (parent.keywords - explicit_kw - bound) | set(k.pops)
    return Iface(own_pos + tuple(rest), frozenset(k.params) | forwarded)


def _value(draw: st.DrawFn, own: tuple[str, ...], before: tuple[str, ...]) -> str:
    """A super-call argument: a constant, an own flag, or a flag stored on self before."""
    return draw(st.sampled_from(("True", "False", *own, *(f"self.{n}" for n in before))))


def _guard(draw: st.DrawFn, own: tuple[str, ...], attrs: frozenset[str]) -> tuple[Term, ...]:
    """0-2 terms over the class's own flags and the flags stored on self so far."""
    pool = [Term(n) for n in own] + [Term(n, self_attr=True) for n in sorted(attrs)]
    if not pool:
        return ()
    terms = draw(st.lists(st.sampled_from(pool), max_size=2, unique=True))
    return tuple(Term(t.name, draw(st.booleans()), t.self_attr) for t in terms)


@st.composite
def programs(draw: st.DrawFn, package: str = "hpkg") -> Program:
    n = draw(st.integers(2, 4))
    modules = draw(st.integers(1, 3))
    # Module indices never decrease along the class list, so imports cannot form a cycle.
    placed = sorted(draw(st.lists(st.integers(0, modules - 1), min_size=n, max_size=n)))
    classes: list[Klass] = []
    ifaces: list[Iface] = []
    stored: list[frozenset[str]] = []  # flags on self once each class's __init__ chain ran
    for i in range(n):
        # Mostly a chain (the previous class), sometimes a sibling or a new root.
        base = None if i == 0 else draw(st.sampled_from((i - 1, i - 1, i - 1, None, *range(i - 1))))
        make = "zeros" if base is None else draw(st.sampled_from((None, "ones")))
        if base is not None and not draw(st.integers(0, 5)):
            klass = Klass(f"C{i}", placed[i], base, has_init=False, make=make)
            classes.append(klass)
            ifaces.append(ifaces[base])
            stored.append(stored[base])
            continue
        chain: list[int | None] = []
        cur = base
        while cur is not None:
            chain.append(cur)
            cur = classes[cur].base
        chain.append(None)
        form = draw(st.sampled_from(("super", "super", "super2", "explicit")))
        skip = 0
        if form != "super" and len(chain) > 1 and not draw(st.integers(0, 3)):
            skip = draw(st.integers(1, len(chain) - 1))  # skips the next __init__(s)
        called = chain[skip]
        parent = ROOT if called is None else ifaces[called]
        inherited = frozenset() if called is None else stored[called]
        star = draw(st.booleans())
        flags = draw(st.lists(st.sampled_from(FLAGS), unique=True, max_size=2))
        pos: list[tuple[str, bool]] = []
        kwonly: list[tuple[str, bool]] = []
        for flag in flags:
            (kwonly if draw(st.booleans()) else pos).append((flag, draw(st.booleans())))
        own = tuple(flags)
        stores = tuple((f, draw(st.booleans())) for f in own if draw(st.booleans()))
        before = tuple(f for f, pre in stores if pre)
        # Positional arguments: constants or threaded parameters.
        npos = draw(st.integers(0, min(MAX_POSITIONAL, len(parent.positional))))
        call_pos = tuple(_value(draw, own, before) for _ in range(npos))
        free = sorted(parent.keywords - set(parent.positional[:npos]))
        names = draw(st.lists(st.sampled_from(free), unique=True, max_size=2)) if free else []
        call_kw = tuple((name, _value(draw, own, before)) for name in names)
        pops: tuple[str, ...] = ()
        if star:
            # Pop what is passed explicitly (the fix's shape), sometimes a stray name too.
            popped = [name for name in names if draw(st.booleans())]
            if draw(st.booleans()):
                popped.append(draw(st.sampled_from(FLAGS)))
            pops = tuple(dict.fromkeys(popped))
        attrs = inherited | {f for f, _ in stores}
        regs = tuple(
            Reg(
                draw(st.sampled_from((BUFFERS[0], *BUFFERS, *ATTRS))),  # "cache" twice as often
                _guard(draw, own, attrs),
                draw(st.sampled_from(("and", "or"))),
                draw(st.booleans()),
            )
            for _ in range(draw(st.sampled_from((1, 2, 0))))
        )
        klass = Klass(
            name=f"C{i}",
            module=placed[i],
            base=base,
            form=form,
            skip=skip,
            pos=tuple(pos),
            kwonly=tuple(kwonly),
            star=star,
            pops=pops,
            stores=stores,
            call_pos=call_pos,
            pos_after_star=star and draw(st.booleans()),
            call_kw=call_kw,
            kw_after_star=draw(st.booleans()),
            regs=regs,
            make=make,
        )
        classes.append(klass)
        ifaces.append(iface(klass, parent))
        stored.append(attrs)
    styles = tuple(
        draw(st.sampled_from(("relative", "absolute", "module"))) for _ in range(modules)
    )
    return Program(package, modules, tuple(classes), styles)


def with_redo(draw: st.DrawFn, program: Program, sometimes: bool = False) -> Program:
    """``program`` where a class and one of its ancestors, both with an ``__init__``, do the
    same work (an unguarded ``register_buffer`` or tensor attribute, added where missing).
    ``program`` itself when no class has such an ancestor, and, with ``sometimes``, in one
    draw out of 4."""
    pairs = [
        (i, a)
        for i, k in enumerate(program.classes)
        for a in program.ancestors(i)
        if a is not None and k.has_init and program.classes[a].has_init
    ]
    if not pairs or (sometimes and not draw(st.integers(0, 3))):
        return program
    i, a = draw(st.sampled_from(pairs))
    name = draw(st.sampled_from((*BUFFERS, *ATTRS)))
    classes = list(program.classes)
    for index, via_make in ((a, False), (i, draw(st.booleans()))):
        k = classes[index]
        if name not in {r.name for r in k.regs}:
            classes[index] = replace(k, regs=(*k.regs, Reg(name, via_make=via_make)))
    return replace(program, classes=tuple(classes))

"""Issue 8: on generated hierarchies, IL001/IL002/IL003 agree exactly with construction.

Each example is a small package (``gen_hierarchies``): 2-4 nn.Module classes in 1-3 modules. For
every class C, constructed with no arguments under ``trace_init``, the oracle is read from the
trace's buffer (and tensor attribute) events: C repeats buffer b when b is registered by ancestor
code (an event whose owner is not the class of C's first ``__init__``, i.e. during
``super().__init__()``) and later again by that ``__init__`` itself. That is what IL001 claims
(the first occurrence in the ancestor part, the repeat in C's own code after the super
call). It is narrower than "b is registered twice": when Middle registers b again after Base did,
constructing Child(Middle) registers b twice too, but the finding belongs to Middle, not to Child
(the oracle also checks that every pair it reports is in ``trace.repeated_names``). The static
side is ``analyze()`` on the written package: the (class, buffer) pairs of its IL001 diagnostics,
a diagnostic counting for every class in ``Diagnostic.classes``. Tensor attributes
(``self.freqs = ...``) are compared the same way against IL003, and the ``self._make()`` helper
call against IL002: called by ancestor code, called again by C's ``__init__``, and its result
not stored into a buffer/attribute that is itself a repeat (that pair is one finding: IL002 in
docs/rules.md).

Agreement must be total: the generator only builds constructs the analysis claims to understand.
Locals and kwargs.pop() under an ``if`` are pinned by the regression tests at the end (they were
bugs once: the simulation applied them even when the branch could not or might not run).
Profiles: see conftest.py (60 derandomized examples by default).
"""

from __future__ import annotations

import ast
import gc
import importlib
import itertools
import os
import re
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gen_hierarchies import Klass, Program, Reg, Term, programs  # noqa: E402
from hypothesis import event, given, reject, settings, target  # noqa: E402

from initlint.driver import analyze  # noqa: E402
from initlint.runtime import trace_init  # noqa: E402

PROFILE = settings.get_profile(os.environ.get("INITLINT_HYPOTHESIS_PROFILE", "initlint-ci"))
_STATEMENT = {
    "IL001": ("buffer", re.compile(r'self\.register_buffer\("(\w+)"')),
    "IL002": ("call", re.compile(r"self\.(_\w+)\(")),
    "IL003": ("attribute", re.compile(r"self\.(\w+) = ")),
}
_packages = itertools.count()

Pairs = set[tuple[str, str, str]]  # (class name, buffer | attribute | call, name)


@pytest.fixture(scope="module", autouse=True)
def _cheap_gc() -> Iterator[None]:
    """trace_init runs gc.collect() per construction; with torch loaded that is ~0.2 s. Freezing
    what is alive now (torch, initlint) makes it ~1 ms without changing what is traced."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def static_pairs(root: Path, *, definite_only: bool = False) -> Pairs:
    """(class, kind, name) of every IL001-IL003 finding; with ``definite_only``, of the
    definite ones (a "possible" one holds for some arguments of the constructed class)."""
    analysis = analyze([root], cwd=root, use_cache=False, jobs=1)
    internal = [d for d in analysis.diagnostics if d.code.startswith("IL9")]
    assert not internal, internal
    pairs: Pairs = set()
    for d in analysis.diagnostics:
        if d.code not in _STATEMENT or (definite_only and d.confidence != "definite"):
            continue
        kind, pattern = _STATEMENT[d.code]
        line = (root / d.path).read_text().splitlines()[d.line - 1]
        match = pattern.search(line)
        assert match, f"{d.code} at {d.path}:{d.line} is not about a {kind}: {line!r}"
        assert d.classes, d
        pairs.update((q.rsplit(".", 1)[1], kind, match[1]) for q in d.classes)
    return pairs


def _top_init_owner(cls: type) -> str:
    top = next(c for c in cls.__mro__ if "__init__" in vars(c))
    return f"{top.__module__}.{top.__qualname__}"


def runtime_pairs(root: Path, package: str, classes: list[tuple[str, str]]) -> Pairs:
    """The oracle: (C, kind, b) when b is set in C's ancestor part and again after it.

    ``classes``: (module below ``package``, class name). A construction that raises TypeError
    (an argument the generator should not have passed) rejects the example.
    """
    pairs: Pairs = set()
    sys.path.insert(0, str(root))
    try:
        for module, name in classes:
            cls = getattr(importlib.import_module(f"{package}.{module}"), name)
            try:
                trace = trace_init(cls)
            except TypeError:
                reject()
            own = _top_init_owner(cls)
            ancestor_did: set[tuple[str, str]] = set()
            found: Pairs = set()
            for ev in trace.events:
                if ev.kind == "call":
                    # A repeated _make() call always feeds a registration here: into the
                    # buffer the ancestor's call fed, it is that buffer's IL001; into another
                    # one, it builds a second table kept next to the first, no repeat
                    # (issue 16: an IL002 whose result goes to another attribute is false).
                    continue
                key = (ev.kind, ev.name)
                repeat = ev.owner == own and key in ancestor_did
                if repeat:
                    found.add((name, *key))
                if ev.owner != own:
                    ancestor_did.add(key)
            for _, kind, what in found:
                names = {n.rsplit(".", 1)[-1] for n in trace.repeated_names(kind)}  # type: ignore[arg-type]
                assert what in names
            pairs |= found
    finally:
        sys.path.remove(str(root))
        for mod in [n for n in sys.modules if n.partition(".")[0] == package]:
            del sys.modules[mod]
    return pairs


def check_files(
    package: str, files: dict[str, str], classes: list[tuple[str, str]]
) -> tuple[Pairs, Pairs]:
    """Write ``files`` (``{package}`` in a path or text is replaced) to a temporary project and
    return (static pairs, runtime pairs)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in files.items():
            path = root / rel.format(package=package)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.replace("{package}", package))
        return static_pairs(root), runtime_pairs(root, package, classes)


def _fresh_package() -> str:
    return f"hp_{os.getpid()}_{next(_packages)}"


def source_of(program: Program) -> str:
    files = program.files()
    return "\n".join(f"# --- {rel}\n{text}" for rel, text in files.items() if rel.endswith(".py"))


def compare(program: Program) -> tuple[Pairs, Pairs]:
    program = replace(program, package=_fresh_package())
    classes = [(program.module_name(k.module), k.name) for k in program.classes]
    static, runtime = check_files(program.package, program.files(), classes)
    # The runtime constructs each class with its defaults. The constructed class's own
    # parameters are unknown to the checker (docs/design.md, "Guards"): a finding that depends on
    # one is "possible". Every repeat at the defaults is reported; every definite finding
    # repeats at the defaults too.
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in program.files().items():
            path = root / rel.format(package=program.package)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.replace("{package}", program.package))
        definite = static_pairs(root, definite_only=True)
    assert definite <= runtime <= static, (
        f"static only: {sorted(static - runtime)} (definite: {sorted(definite - runtime)}); "
        f"runtime only: {sorted(runtime - static)}\n{source_of(program)}"
    )
    return static, runtime


def compare_source(source: str) -> tuple[Pairs, Pairs]:
    """One module ``{package}.m`` holding ``source``; every top-level class is constructed."""
    source = textwrap.dedent(source)
    classes = [("m", n.name) for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    files = {
        "pyproject.toml": '[project]\nname = "{package}"\nversion = "0"\n',
        "{package}/__init__.py": "",
        "{package}/m.py": source,
    }
    return check_files(_fresh_package(), files, classes)


@PROFILE
@given(programs())
def test_static_findings_iff_runtime_repeats(program: Program) -> None:
    static, _ = compare(program)
    target(float(len(static)), label="findings")  # steer towards programs with findings
    for kind in sorted({kind for _, kind, _ in static}) or ["none"]:
        event(f"finding kind: {kind}")


# ---- the oracle and the generator themselves ------------------------------------------------


def test_oracle_attributes_a_repeat_to_the_class_that_does_it() -> None:
    """Base registers, Middle re-registers, Child(Middle) does nothing: only Middle repeats."""
    program = Program(
        "hpkg",
        1,
        (
            Klass("C0", 0, None, regs=(Reg("cache"),), make="zeros"),
            Klass("C1", 0, 0, regs=(Reg("cache", via_make=True),)),
            Klass("C2", 0, 1),
        ),
        ("relative",),
    )
    static, runtime = compare(program)
    assert static == runtime == {("C1", "buffer", "cache")}


def test_generated_source_covers_the_constructs() -> None:
    """A fixed program with every construct the generator draws; the answer worked out by hand.

    C0 keeps ``init_x`` on self and builds ``cache`` under it, and ``freqs``. C1 passes its
    stored ``self.init_y`` (False) positionally after ``*args``: C0 skips ``cache``, C1 builds it
    itself (not a repeat, but from a repeated ``self._make()``: IL002) and rebuilds ``freqs``
    (IL003). C2 has no ``__init__``: it inherits
    C1's finding. C3 pops and passes ``init_y=True``: C0 builds ``cache``, C3 registers it again.
    """
    program = Program(
        "hpkg",
        3,
        (
            Klass(
                "C0",
                0,
                None,
                form="explicit",
                pos=(("init_x", True),),
                stores=(("init_x", False),),
                regs=(
                    Reg("cache", (Term("init_x", self_attr=True),)),
                    Reg("freqs", via_make=True),
                ),
                make="zeros",
            ),
            Klass(
                "C1",
                1,
                0,
                form="super2",
                pos=(("init_y", False),),
                star=True,
                stores=(("init_y", True),),
                call_pos=("self.init_y",),
                pos_after_star=True,
                regs=(
                    Reg(
                        "cache",
                        (Term("init_x", negate=True, self_attr=True), Term("init_y", negate=True)),
                        via_make=True,
                    ),
                    Reg("freqs"),
                ),
            ),
            Klass("C2", 1, 1, has_init=False, make="ones"),
            Klass(
                "C3",
                2,
                2,
                kwonly=(("init_z", True),),
                star=True,
                pops=("init_y",),
                call_kw=(("init_y", "True"),),
                regs=(Reg("cache", (Term("init_z"),), "or"),),
            ),
        ),
        ("relative", "absolute", "module"),
    )
    files = program.files()
    for rel, expected in [
        ("hpkg/m0.py", "        nn.Module.__init__(self)\n        self.init_x = init_x\n"),
        ("hpkg/m0.py", '        if self.init_x:\n            self.register_buffer("cache", '),
        ("hpkg/m0.py", "        self.freqs = self._make()\n"),
        ("hpkg/m1.py", "from hpkg.m0 import C0\n"),
        ("hpkg/m1.py", "def __init__(self, init_y: bool = False, *args, **kwargs):\n"),
        ("hpkg/m1.py", "        self.init_y = init_y\n        super(C1, self).__init__(*args, "),
        ("hpkg/m1.py", "__init__(*args, self.init_y, **kwargs)\n"),
        ("hpkg/m1.py", "        if not self.init_x and not init_y:\n"),
        ("hpkg/m1.py", "class C2(C1):\n    def _make(self):\n        return torch.ones(2)\n"),
        ("hpkg/m2.py", "from . import m1\n"),
        ("hpkg/m2.py", "class C3(m1.C2):\n"),
        ("hpkg/m2.py", "def __init__(self, *args, init_z: bool = True, **kwargs):\n"),
        ("hpkg/m2.py", '        kwargs.pop("init_y", None)\n'),
        ("hpkg/m2.py", "super().__init__(*args, init_y=True, **kwargs)\n        if init_z:\n"),
    ]:
        assert expected in files[rel], (rel, expected, files[rel])
    expected = {
        # (C1's _make() call is no repeat: C0 called it for freqs, here it builds cache,
        # a second object; issue 16 counts that as a false IL002.)
        ("C1", "attribute", "freqs"),
        ("C2", "attribute", "freqs"),
        ("C3", "buffer", "cache"),
    }
    static, runtime = compare(program)
    assert static == runtime == expected


# ---- regressions: disagreements found while widening the generator --------------------------
#
# The simulation applies ``local`` and ``kwargs.pop`` effects without looking at their guard
# (initlint/simulation/engine.py, _Run._effect: the ``local`` and ``pop`` branches come before
# any use of ``shadow``/``status``). A guard that an explicit constant switches off ("shadow",
# kept for IL004) or an UNKNOWN guard still rebinds the local / removes the key. The generator
# therefore never puts a local or a pop under an ``if``.

_BASE = """
    import torch
    from torch import nn


    class Base(nn.Module):
        def __init__(self, init_cache={default}):
            super().__init__()
            if init_cache:
                self.register_buffer("cache", torch.zeros(4))
"""


def test_pop_under_switched_off_guard() -> None:
    static, runtime = compare_source(
        _BASE.format(default=False)
        + """
    class Mid(Base):
        def __init__(self, keep=False, **kwargs):
            if keep:
                kwargs.pop("init_cache", None)
            super().__init__(**kwargs)


    class Child(Mid):
        def __init__(self):
            super().__init__(keep=False, init_cache=True)
            self.register_buffer("cache", torch.ones(4))
    """
    )
    assert runtime == {("Child", "buffer", "cache")}
    assert static == runtime  # static: set() -- init_cache was popped, so Base skips the cache


def test_local_under_switched_off_guard() -> None:
    static, runtime = compare_source(
        _BASE.format(default=True)
        + """
    class Mid(Base):
        def __init__(self, fast=False):
            build = True
            if fast:
                build = False
            super().__init__(init_cache=build)


    class Child(Mid):
        def __init__(self):
            super().__init__(fast=False)
            self.register_buffer("cache", torch.ones(4))


    class ChildDefault(Mid):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.ones(4))
    """
    )
    assert runtime == {("Child", "buffer", "cache"), ("ChildDefault", "buffer", "cache")}
    assert static == runtime  # static: only ChildDefault (fast=False has an origin: "shadow")


def test_local_under_unknown_guard() -> None:
    static, runtime = compare_source(
        _BASE.format(default=True)
        + """
    class Mid(Base):
        def __init__(self, n=8):
            build = True
            if n < 4:
                build = False
            super().__init__(init_cache=build)


    class Child(Mid):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.ones(4))
    """
    )
    assert runtime == {("Child", "buffer", "cache")}
    # static: set(), definite. `build` may be True or False: expected a "possible" IL001.
    assert static == runtime

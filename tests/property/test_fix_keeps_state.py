"""Issue 14: no fix, safe or unsafe, changes what a constructed object ends with.

Generated two-class programs put the shapes that used to be fixed wrongly next to a redo:

- state written between the two calls (``self.n = n * 2`` / ``self.n *= 2`` before C calls the
  helper again);
- a reader of the built attribute after it in the ancestor, inline or in a helper method;
- C reading the old value before rebuilding it;
- C redoing the work only under a condition (a parameter of its own, or ``self``);
- the ancestor's flag gating more than the redone work;
- the redo identical to the ancestor's work or different.

Each program is written to a temporary project and fixed with ``run_fix(unsafe=True)``. The
runtime oracle constructs every class with several arguments (every condition both ways)
before and after the fix, and compares the final buffers, parameters and tensor attributes by
name, dtype, shape and value (the values here do not depend on the seed). Any difference, and
any construction that worked before and fails after, fails the property.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import os
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from hypothesis import event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from initlint.fix.api import run_fix  # noqa: E402

_NAME = os.environ.get("INITLINT_HYPOTHESIS_PROFILE", "initlint-ci")
PROFILE = settings.get_profile(_NAME)
if _NAME == "initlint-ci":
    PROFILE = settings(PROFILE, max_examples=40)
_packages = itertools.count()


@dataclass(frozen=True)
class Shape:
    mode: str  # buffer | attr | call: how the ancestor does the work
    base_flag: bool  # the work sits under `if init_cache:`
    extra_under_flag: bool  # the flag also guards `self.scale = ...`
    reader: str  # "" | inline | helper: the ancestor reads `self.cache` after the work
    between: str  # "" | assign | aug: C writes `self.n` before the redo
    child_reads: bool  # C reads `self.cache` before rebuilding it
    cond: str  # "" | param | self: C's redo sits under a condition
    identical: bool  # C's redo computes what the ancestor's did (given the same self.n)

    def source(self) -> str:
        value = "torch.arange(self.n, dtype=torch.float32).outer(torch.ones(64))"
        work = {
            "buffer": f'self.register_buffer("cache", {value})',
            "attr": f"self.cache = {value}",
            "call": "self._build()",
        }[self.mode]
        base_params = "self, n=4096, init_cache=True" if self.base_flag else "self, n=4096"
        body = ["super().__init__()", "self.n = n"]
        if self.base_flag:
            body.append("if init_cache:")
            body.append(f"    {work}")
            if self.extra_under_flag:
                body.append("    self.scale = torch.ones(2)")
        else:
            body.append(work)
        if self.reader == "inline":
            body.append("self.total = self.cache.sum()")
        elif self.reader == "helper":
            body.append("self._post()")
        base = "\n".join(f"        {line}" for line in body)

        if self.identical:
            redo = work
        else:
            size = "w" if self.child_reads else "self.n"
            new = f"torch.ones({size}, 64) * 3"
            redo = (
                f'self.register_buffer("cache", {new})'
                if self.mode != "attr"
                else f"self.cache = {new}"
            )
        child_params = "self, n=4096, *, big" if self.cond == "param" else "self, n=4096"
        lines = ["super().__init__(n)"]
        if self.between == "assign":
            lines.append("self.n = n * 2")
        elif self.between == "aug":
            lines.append("self.n *= 2")
        if self.child_reads:
            lines.append("w = self.cache.numel() + 1")
        if self.cond:
            lines.append("if big:" if self.cond == "param" else "if self.n > 2:")
            lines.append(f"    {redo}")
        else:
            lines.append(redo)
        child = "\n".join(f"        {line}" for line in lines)
        return (
            "import torch\nfrom torch import nn\n\n\n"
            f"class Base(nn.Module):\n    def __init__({base_params}):\n{base}\n\n"
            "    def _build(self):\n"
            f'        self.register_buffer("cache", {value})\n\n'
            "    def _post(self):\n        self.total = self.cache.sum()\n\n\n"
            f"class Child(Base):\n    def __init__({child_params}):\n{child}\n"
        )

    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """(class, keyword arguments) of every construction the oracle makes."""
        out: list[tuple[str, dict[str, Any]]] = [("Base", {"n": n}) for n in (1, 3)]
        bigs = [{"big": True}, {"big": False}] if self.cond == "param" else [{}]
        out += [("Child", {"n": n, **b}) for n in (1, 3) for b in bigs]
        return out


shapes = st.builds(
    Shape,
    mode=st.sampled_from(["buffer", "attr", "call"]),
    base_flag=st.booleans(),
    extra_under_flag=st.booleans(),
    reader=st.sampled_from(["", "inline", "helper"]),
    between=st.sampled_from(["", "assign", "aug"]),
    child_reads=st.booleans(),
    cond=st.sampled_from(["", "param", "self"]),
    identical=st.booleans(),
)


def _describe(t: Any) -> tuple[str, tuple[int, ...], list[Any]]:
    return str(t.dtype), tuple(t.shape), t.detach().flatten().tolist()


def construct_all(root: Path, package: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Per construction: its final state, or the exception's type name."""
    import torch

    out: list[Any] = []
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(f"{package}.m")
        for name, kwargs in calls:
            try:
                obj = getattr(module, name)(**kwargs)
            except Exception as exc:  # noqa: BLE001 - the oracle compares failures too
                out.append(("raises", type(exc).__name__))
                continue
            out.append(
                {
                    "buffer": {n: _describe(b) for n, b in obj.named_buffers()},
                    "parameter": {n: _describe(p) for n, p in obj.named_parameters()},
                    "tensor": {n: _describe(v) for n, v in vars(obj).items() if torch.is_tensor(v)},
                }
            )
    finally:
        sys.path.remove(str(root))
        for mod in [n for n in sys.modules if n.partition(".")[0] == package]:
            del sys.modules[mod]
    return out


def check_keeps_state(source: str, calls: list[tuple[str, dict[str, Any]]]) -> int:
    """Fix ``source`` (module ``<package>.m``); assert every construction ends the same."""
    package = f"hk_{os.getpid()}_{next(_packages)}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text(f'[project]\nname = "{package}"\nversion = "0"\n')
        (root / package).mkdir()
        (root / package / "__init__.py").write_text("")
        path = root / package / "m.py"
        path.write_text(source)
        before = construct_all(root, package, calls)
        old = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        try:
            _, outcome, _ = run_fix(
                [root], unsafe=True, write=True, use_cache=False, cwd=root, jobs=1
            )
            fixed = path.read_text()
            ast.parse(fixed)
            context = f"\n--- before:\n{source}\n--- after:\n{fixed}"
            assert outcome.failed == [], f"{outcome.failed}{context}"
            after = construct_all(root, package, calls)
        finally:
            sys.dont_write_bytecode = old
        for (name, kwargs), b, a in zip(calls, before, after, strict=True):
            assert a == b, f"{name}(**{kwargs}) ends differently: {b} -> {a}{context}"
        return len(outcome.applied)


@PROFILE
@given(shapes)
def test_no_fix_changes_the_final_state(shape: Shape) -> None:
    applied = check_keeps_state(shape.source(), shape.calls())
    event(f"fixes applied: {applied}")


@pytest.mark.parametrize(
    "shape",
    [
        # The issue's numbered cases, each one way: the property must be able to see them.
        Shape("call", False, False, "", "aug", False, "", True),  # 1: self.max_pos *= 4
        Shape("call", False, False, "", "assign", False, "", True),  # 1: self.n = n * 2
        Shape("attr", False, False, "helper", "", False, "", False),  # 2: reader in a helper
        Shape("attr", False, False, "inline", "", False, "", False),  # 2: inline reader
        Shape("buffer", True, False, "", "", True, "", False),  # 2: C reads before rebuild
        Shape("buffer", True, False, "", "", False, "param", False),  # 3: if big:
        Shape("buffer", True, False, "", "", False, "self", False),  # 3: if self.n > 2:
        Shape("buffer", True, True, "", "", False, "", False),  # 5: flag gates more
    ],
)
def test_issue_cases_keep_the_state(shape: Shape) -> None:
    check_keeps_state(shape.source(), shape.calls())


def test_the_property_sees_fixes() -> None:
    """Not vacuous: shapes with a state-keeping fix get it applied."""
    fixable = [
        Shape("call", False, False, "", "aug", False, "", True),  # a new flag
        Shape("buffer", True, False, "", "", False, "param", False),  # init_cache=not big
        Shape("buffer", True, False, "", "", False, "", False),  # init_cache=False
        Shape("call", False, False, "", "", False, "", True),  # delete the identical redo
    ]
    assert [check_keeps_state(s.source(), s.calls()) for s in fixable] == [1, 1, 1, 1]


def test_source_is_valid_python() -> None:
    shape = Shape("call", True, True, "helper", "aug", True, "param", False)
    ast.parse(textwrap.dedent(shape.source()))

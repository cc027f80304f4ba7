"""A switch-off fix passes an ancestor's flag to ``super().__init__()`` so that the
ancestor skips work the subclass redoes. Where the flag does more than switch that work off
(it sizes another module, is kept on the object, goes into another constructor, or switches
other work on), passing it changes the model: no fix is offered, and the reason says where
the flag is used. Checked at runtime: after ``initlint fix`` every class ends with the same
state as before, and the one fix offered is applied."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from initlint.api import check, fix  # noqa: E402

SOURCE = """
import torch
from torch import nn


class Body(nn.Module):
    def __init__(self, lite):
        super().__init__()
        self.w = nn.Linear(8, 8 if lite else 16)


class Shaped(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        self.embed = nn.Linear(size, 8 if lite else size)
        if not lite:
            self.head = nn.Linear(size, 4096)


class ShapedChild(Shaped):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Kept(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        self.lite = lite
        if not lite:
            self.head = nn.Linear(size, 4096)


class KeptChild(Kept):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Handed(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        self.body = Body(lite)
        if not lite:
            self.head = nn.Linear(size, 4096)


class HandedChild(Handed):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Built(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        self._build(size, lite)
        if not lite:
            self.head = nn.Linear(size, 4096)

    def _build(self, size, lite):
        self.embed = nn.Linear(size, 6 if lite else size)


class BuiltChild(Built):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Other(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        if not lite:
            self.head = nn.Linear(size, 4096)
        else:
            self.adapter = nn.Linear(size, 4096)


class OtherChild(Other):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Local(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        n = size
        if lite:
            n = 8
        self.embed = nn.Linear(size, n)
        if not lite:
            self.head = nn.Linear(size, 4096)


class LocalChild(Local):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Checked(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        assert not (lite and size > 32)
        if not lite:
            self.head = nn.Linear(size, 4096)


class CheckedChild(Checked):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Hook(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        self._post(size, lite)
        if not lite:
            self.head = nn.Linear(size, 4096)

    def _post(self, size, lite):
        pass


class HookChild(Hook):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class HookGrandChild(HookChild):
    def _post(self, size, lite):
        self.proj = nn.Linear(size, 8 if lite else size)


class Placeholder(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        print("lite:", lite)
        if not lite:
            self.head = nn.Linear(size, 4096)
        else:
            self.head = None


class PlaceholderChild(Placeholder):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Early(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        if not lite:
            self.head = nn.Linear(size, 4096)
        else:
            self.out_dim = 0


class EarlyChild(Early):
    def __init__(self):
        self.out_dim = 8  # (before the super call: the ancestor's placeholder would win)
        super().__init__()
        self.head = nn.Linear(64, 8)


class Looped(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        n = 0
        if not lite:
            for _ in range(2):
                self.head = nn.Linear(size, 4096)
                n += 1
        self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(n))


class LoopedChild(Looped):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)


class Plain(nn.Module):
    def __init__(self, size=64, lite=False):
        super().__init__()
        if not lite:
            self.head = nn.Linear(size, 4096)


class PlainChild(Plain):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(64, 8)
"""

CHILDREN = (
    "ShapedChild",
    "KeptChild",
    "HandedChild",
    "BuiltChild",
    "OtherChild",
    "LocalChild",
    "CheckedChild",
    "HookChild",
    "HookGrandChild",
    "PlaceholderChild",
    "EarlyChild",
    "LoopedChild",
    "PlainChild",
)
FIXED = ("PlaceholderChild", "PlainChild")  # the flag guards the work alone


def _state(cls: type) -> dict[str, object]:
    obj = cls()
    shapes: dict[str, object] = {k: tuple(v.shape) for k, v in obj.state_dict().items()}
    shapes.update({k: v for k, v in vars(obj).items() if not k.startswith("_")})
    return shapes


@pytest.fixture
def module(source_module: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    return source_module("flag_uses", SOURCE)


def _line(text: str) -> int:
    """The first line of ``SOURCE`` (as written to the file) that ends with ``text``."""
    return next(i + 1 for i, line in enumerate(SOURCE.splitlines()) if line.endswith(text))


def test_a_flag_used_besides_its_guard_gets_no_switch_off_fix(module: Path) -> None:
    report = check([module], cwd=module, use_cache=False)
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in report.diagnostics}
    assert set(found) == set(CHILDREN) - {"HookGrandChild"}  # (HookChild's finding)
    used = {
        "ShapedChild": ("Shaped.__init__", _line("8 if lite else size)")),
        "KeptChild": ("Kept.__init__", _line("self.lite = lite")),
        "HandedChild": ("Handed.__init__", _line("self.body = Body(lite)")),
        "BuiltChild": ("Built.__init__", _line("self._build(size, lite)")),
        "LocalChild": ("Local.__init__", _line("        if lite:")),
        "CheckedChild": ("Checked.__init__", _line("assert not (lite and size > 32)")),
        # (handed to a method: a subclass anywhere may override it, as HookGrandChild does)
        "HookChild": ("Hook.__init__", _line("self._post(size, lite)")),
        # (a loop under the test may do more than the work switched off)
        "LoopedChild": ("Looped.__init__", _line("        n = 0") + 1),
    }
    for name, (fn, line) in used.items():
        assert found[name].fix is None, name
        assert f"is also used by {fn} (flag_uses.py:{line})" in found[name].no_fix, name
    assert "flag `lite` also switches on `self.adapter`" in found["OtherChild"].no_fix
    assert "flag `lite` also switches on `self.out_dim`" in found["EarlyChild"].no_fix
    for name in FIXED:
        assert found[name].fix is not None, name


def test_fixing_changes_only_the_work_switched_off(module: Path) -> None:
    m = importlib.import_module("flag_uses")
    before = {name: _state(getattr(m, name)) for name in CHILDREN}
    fix([module], cwd=module, use_cache=False, unsafe=True)
    text = (module / "flag_uses.py").read_text()
    assert text.count("super().__init__(lite=True)") == len(FIXED)
    fixed = importlib.reload(m)
    for name in CHILDREN:
        assert _state(getattr(fixed, name)) == before[name], name

"""``A if test else B`` whose test the constants a frame holds decide is the value it picks,
as Python evaluates only that one: an ancestor storing ``None if augs is None else
build(augs)`` builds nothing where the subclass passes ``augs=None``, so the subclass's own
build is the first, not a repeat. Undecided, the value costs what either pick costs."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


def build(augs):
    return nn.Linear(4096, 4096)


class Base(nn.Module):
    def __init__(self, augs=None):
        super().__init__()
        self.transform = None if augs is None else build(augs)


class Placeholder(Base):
    def __init__(self):
        super().__init__(augs=None)
        self.transform = nn.Linear(4096, 1024)


class Given(Base):
    def __init__(self):
        super().__init__(augs=["flip"])
        self.transform = nn.Linear(4096, 1024)


class Passed(Base):
    def __init__(self, augs):
        super().__init__(augs=augs)
        self.transform = nn.Linear(4096, 1024)
"""


def test_a_decided_conditional_expression_is_the_value_it_picks(
    check_source: Callable[..., Report],
) -> None:
    found = {
        d.class_name.rsplit(".", 1)[-1]: (d.severity, d.confidence)
        for d in check_source(SOURCE).diagnostics
    }
    # (Placeholder: the ancestor stored None; Given and Passed: a test of a list, or of an
    # argument, is not decided, and a build heavy on one pick only is a warning)
    assert found == {"Given": ("warning", "definite"), "Passed": ("warning", "definite")}


REBOUND = """
from torch import nn


def read_augs(path):
    return ["flip", path]


class Looped(nn.Module):
    def __init__(self, widths=(1024, 1024, 1024)):
        super().__init__()
        prev = None
        for w in widths:
            self.proj = None if prev is None else nn.Linear(prev, w)
            prev = w


class AfterLoop(Looped):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(1024, 512)


class Walrus(nn.Module):
    def __init__(self, augs=None, path=None):
        super().__init__()
        if path is not None and (augs := read_augs(path)) is None:
            raise ValueError(path)
        self.transform = None if augs is None else nn.Linear(4096, 4096)


class FromPath(Walrus):
    def __init__(self):
        super().__init__(augs=None, path="augs.yaml")
        self.transform = nn.Linear(4096, 1024)


class Shadowed(nn.Module):
    def __init__(self, use=None, dims=(4096, 4096)):
        super().__init__()
        self.projs = [nn.Linear(d, d) if use else None for d, use in zip(dims, (1, 1))]


class Replaced(Shadowed):
    def __init__(self):
        super().__init__(use=None)
        self.projs = [nn.Linear(4096, 1024)]


class Imported(nn.Module):
    def __init__(self, os=None):
        super().__init__()
        import os

        self.t = None if os is None else nn.Linear(4096, 4096)


class ImportedAgain(Imported):
    def __init__(self):
        super().__init__(os=None)
        self.t = nn.Linear(4096, 1024)
"""


def test_a_name_bound_again_does_not_decide(check_source: Callable[..., Report]) -> None:
    # (a later pass of the loop, an assignment expression, a comprehension's own name and
    # an import each bind the tested name to a value the constant passed is not)
    found = _reported(check_source, REBOUND)
    assert found == {"AfterLoop", "FromPath", "Replaced", "ImportedAgain"}


LOOP_GUARD = """
from torch import nn


class Stages(nn.Module):
    def __init__(self, widths=(1024, 1024, 1024)):
        super().__init__()
        prev = None
        for w in widths:
            if prev is not None:
                self.proj = nn.Linear(prev, w)
            prev = w
        self.proj = nn.Linear(1024, 512)
"""


def test_a_guard_in_a_loop_reads_what_a_later_pass_binds(
    check_source: Callable[..., Report],
) -> None:
    # ``prev`` is None on the first pass only: the later passes build the projection that
    # the statement after the loop replaces unread
    found = [(d.code, d.line) for d in check_source(LOOP_GUARD).diagnostics]
    assert found == [("IL005", 13)]


LOOPS_READ_APART = """
from torch import nn


class DeadLoop(nn.Module):
    def __init__(self, extra=0, use_bias=True):
        super().__init__()
        if extra > 0:
            for _ in range(extra):
                use_bias = True
        self.bias = None
        if use_bias:
            self.bias = nn.Linear(1024, 1024)


class NoBias(DeadLoop):
    def __init__(self):
        super().__init__(extra=0, use_bias=False)
        self.bias = nn.Linear(1024, 512)


class Unrolled(nn.Module):
    def __init__(self, widths=(1024, 1024)):
        super().__init__()
        for name in ("a", "b"):
            prev = None
            for w in widths:
                if prev is not None:
                    setattr(self, name, nn.Linear(prev, w))
                prev = w


class RebuildsB(Unrolled):
    def __init__(self):
        super().__init__()
        self.b = nn.Linear(1024, 512)
"""


def test_a_loop_that_does_not_run_binds_nothing_and_each_copy_is_a_loop(
    check_source: Callable[..., Report],
) -> None:
    # (NoBias: ``extra=0`` rules the loop out, so ``use_bias=False`` still decides; the
    # written-out name loop reads its inner loop once per name, each a loop of its own)
    found = _reported(check_source, LOOPS_READ_APART)
    assert found == {"RebuildsB"}


DEFINED = """
from torch import nn


class Hooked(nn.Module):
    def __init__(self, hook=None):
        super().__init__()
        if hook is None:

            def hook(x):
                return x

        self.proj = nn.Linear(4096, 4096) if hook is not None else None


class OwnProj(Hooked):
    def __init__(self):
        super().__init__(hook=None)
        self.proj = nn.Linear(4096, 1024)


class Matched(nn.Module):
    def __init__(self, cfg=None, augs=None):
        super().__init__()
        match cfg:
            case {"augs": augs}:
                pass
        self.t = None if augs is None else nn.Linear(4096, 4096)


class FromConfig(Matched):
    def __init__(self):
        super().__init__(cfg={"augs": [1]}, augs=None)
        self.t = nn.Linear(4096, 1024)
"""


def test_a_def_or_a_match_capture_binds_the_name_again(
    check_source: Callable[..., Report],
) -> None:
    found = _reported(check_source, DEFINED)
    assert found == {"OwnProj", "FromConfig"}


CHANGED_IN_LOOPS = """
from torch import nn


class Head(nn.Module):
    def __init__(self, dim=1024, use_head=True, **kwargs):
        super().__init__()
        self.head = None
        if use_head:
            self.head = nn.Linear(dim, dim)


class Popped(Head):
    def __init__(self, **kwargs):
        kwargs["use_head"] = False
        for k in list(kwargs):
            if k.startswith("_"):
                kwargs.pop(k)
        super().__init__(**kwargs)
        self.head = nn.Linear(1024, 512)


class Guarded(nn.Module):
    def __init__(self, extra=0, use_bias=True):
        super().__init__()
        for _ in range(2):
            if extra > 0:
                use_bias = True
        self.bias = None
        if use_bias:
            self.bias = nn.Linear(1024, 1024)


class NoBias(Guarded):
    def __init__(self):
        super().__init__(extra=0, use_bias=False)
        self.bias = nn.Linear(1024, 512)


class Defaulted(nn.Module):
    def __init__(self, augs=None):
        super().__init__()
        self.pick = lambda x, a=(augs := [1]): a
        self.t = None if augs is None else nn.Linear(4096, 4096)


class Rebuilt(Defaulted):
    def __init__(self):
        super().__init__(augs=None)
        self.t = nn.Linear(4096, 1024)
"""


def test_what_a_loop_changes_in_place_or_never_binds_keeps_its_value(
    check_source: Callable[..., Report],
) -> None:
    # (Popped: the loop takes other keys out of the pack, so ``use_head=False`` decides;
    # NoBias: the ancestor's loop binds ``use_bias`` only under ``extra > 0``, false here;
    # Rebuilt: a lambda's default binds ``augs`` in the function, when the lambda is made)
    found = _reported(check_source, CHANGED_IN_LOOPS)
    assert found == {"Rebuilt"}


def _reported(check_source: Callable[..., Report], text: str) -> set[str]:
    """The classes of ``text`` with a finding."""
    return {d.class_name.rsplit(".", 1)[-1] for d in check_source(text).diagnostics}

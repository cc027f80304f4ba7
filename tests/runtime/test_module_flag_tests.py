"""A test of a name the module binds at its top level (``if _init_weights:``, ``if
_is_cuda:``) gives one answer in every frame of a construction: a base's ``if _is_cuda:``
build and a subclass's ``if not _is_cuda:`` build never both run (no finding), and a held
module's pass under the flag is thrown away by the holder's pass under the same flag (the
vendored-transformers ``init_weights``: IL005, possibly, as both depend on the flag).
Checked against construction, with the flag either way."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import filled_twice, lost  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
import os
from contextlib import contextmanager

from torch import nn

_init_weights = True
_is_cuda = os.environ.get("FLAG_TESTS_CUDA") == "1"


@contextmanager
def no_init_weights():
    global _init_weights
    old = _init_weights
    _init_weights = False
    try:
        yield
    finally:
        _init_weights = old


class PreTrained(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.d = d

    def init_weights(self):
        if _init_weights:
            self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)


class Encoder(PreTrained):
    def __init__(self, d=16):
        super().__init__(d)
        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(2)])
        self.init_weights()


class ForMasked(PreTrained):
    def __init__(self, d=16):
        super().__init__(d)
        self.encoder = Encoder(d)
        self.head = nn.Linear(d, d)
        self.init_weights()


class Base(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        if _is_cuda:
            self.proj = nn.Linear(d, d)


class Other(Base):
    def __init__(self, d=16):
        super().__init__(d)
        if not _is_cuda:
            self.proj = nn.Linear(d, 2 * d)


class Again(Base):
    def __init__(self, d=16):
        super().__init__(d)
        if _is_cuda:
            self.proj = nn.Linear(d, 2 * d)
"""


@pytest.fixture
def module(source_module: Callable[[str, str], Path]) -> Path:
    return source_module("module_flag_tests", SOURCE)


def test_one_flag_one_answer(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's modules read from its sources)
    report = check([module], cwd=module, use_cache=False)
    found = sorted(
        (d.class_name.rsplit(".", 1)[-1], d.code, d.line, "possibly" in d.message)
        for d in report.diagnostics
    )
    # (the second pass is reported where it runs, the base's method, for ForMasked)
    assert found == [("Again", "IL003", 69, True), ("PreTrained", "IL005", 29, True)]
    passes = [d.message for d in report.diagnostics if d.code == "IL005"]
    assert "`self.encoder.layers.*.weight`" in passes[0] and "(in ForMasked)" in passes[0]
    path = str(module / "module_flag_tests.py")
    for cuda in ("0", "1"):
        monkeypatch.setenv("FLAG_TESTS_CUDA", cuda)
        m = importlib.reload(importlib.import_module("module_flag_tests"))
        assert lost(m.Other) == set()  # (one of the two builds runs, never both)
        assert lost(m.Again) == ({("weight", (16, 16)), ("bias", (16,))} if cuda == "1" else set())
        # (both passes fill at the same line, the init function's)
        twice = filled_twice(m.ForMasked, path, same_line=True)
        assert twice == {"encoder.layers.*.weight"}
        with m.no_init_weights():
            assert filled_twice(m.ForMasked, path, same_line=True) == set()

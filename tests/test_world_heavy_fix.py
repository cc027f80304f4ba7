"""Heavy work redone only where a state outside the construction decides (a file missing)
is a warning, but it is heavy: a new constructor parameter that switches it off is worth
offering, and the reason for offering none never calls its cost unknown."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import os

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, path):
        super().__init__()
        if not os.path.exists(path):
            self.register_buffer("table", torch.randn(4096, 4096))


class Child(Base):
    def __init__(self, path):
        super().__init__(path)
        self.register_buffer("table", torch.randn(4096, 1024))


class Light(nn.Module):
    def __init__(self, path):
        super().__init__()
        if not os.path.exists(path):
            self.act = nn.GELU()


class LightChild(Light):
    def __init__(self, path):
        super().__init__(path)
        self.act = nn.ReLU()
"""


def test_a_heavy_repeat_on_a_world_path_gets_a_new_flag(
    check_source: Callable[..., Report],
) -> None:
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in check_source(SOURCE).diagnostics}
    heavy = found["Child"]
    assert heavy.severity == "warning"
    assert heavy.fix is not None and heavy.fix.applicability == "unsafe"
    assert "pass `init_table=False` to super().__init__()" in heavy.fix.message
    light = found["LightChild"]
    assert light.fix is None
    assert "is light work: not worth a new constructor parameter" in light.no_fix


CACHE = """
import os

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, path):
        super().__init__()
        if not os.path.exists(path):
            self.register_buffer("table", torch.zeros(4096, 4096))
            torch.save(self.table, path)


class Child(Base):
    def __init__(self, path):
        super().__init__(path)
        self.register_buffer("table", torch.zeros(4096, 1024))


class Helped(nn.Module):
    def __init__(self, path):
        super().__init__()
        if not os.path.exists(path):
            self._build(path)

    def _build(self, path):
        self.register_buffer("table", torch.zeros(4096, 4096))
        torch.save(self.table, path)


class HelpedChild(Helped):
    def __init__(self, path):
        super().__init__(path)
        self.register_buffer("table", torch.zeros(4096, 1024))
"""


def test_a_new_flag_never_skips_writing_a_file(check_source: Callable[..., Report]) -> None:
    # (guarding the build would move the ``torch.save`` under the flag too: the cache a
    # later construction reads would never be written)
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in check_source(CACHE).diagnostics}
    assert set(found) == {"Child", "HelpedChild"}
    assert found["Child"].fix is None
    assert "would also skip writing the file at m.py:13" in found["Child"].no_fix
    assert found["HelpedChild"].fix is None  # (the write is in the helper the build runs)
    assert "would also skip writing the file" in found["HelpedChild"].no_fix

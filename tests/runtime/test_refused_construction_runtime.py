"""A construction Python refuses raises before the work after it: checked at runtime, the
class that builds ``Model(config)`` without Model's required argument cannot be built, so
its second pass never runs; the one that passes it fills the held weight twice."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from registrations import fills_per_tensor  # noqa: E402

from initlint.api import check  # noqa: E402

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, config):
        super().__init__()

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)


class Model(Base):
    def __init__(self, config, args):
        super().__init__(config)
        self.fc = nn.Linear(1024, 1024)
        self.apply(self.init_weights)


class Refused(Base):
    def __init__(self, config):
        super().__init__(config)
        self.bert = Model(config)
        self.apply(self.init_weights)


class Bound(Base):
    def __init__(self, config, args=None):
        super().__init__(config)
        self.bert = Model(config, args)
        self.apply(self.init_weights)
"""


def test_a_refused_construction_runs_nothing_after_it(
    source_module: Callable[[str, str], Path],
) -> None:
    root = source_module("refused_builds", SOURCE)
    m = importlib.import_module("refused_builds")
    with pytest.raises(TypeError):
        m.Refused({})
    made, fills = fills_per_tensor("normal_", lambda: m.Bound({}))
    assert fills[id(made.bert.fc.weight)] == 2  # (4 MiB drawn twice)
    found = {d.class_name for d in check([root], cwd=root, use_cache=False).diagnostics}
    assert found == {"refused_builds.Bound"}

"""A method called through a class (``Model.from_cfg(cfg)``) is found through that class's
MRO, as Python finds it (a classmethod inherited from a mixin), and costs what its body
does; a value a class holds that is not a method is unknown when called, never cheap. A
factory that builds whatever class a config names (``from_config_dict``) is no load by its
name: it costs what its body builds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from initlint.api import check

SOURCE = """
import torch
from torch import nn
from somewhere_unknown import instantiate


class Serial:
    @classmethod
    def from_config_dict(cls, cfg):
        instance = instantiate(cfg)
        return instance

    @classmethod
    def table(cls, n):
        return torch.zeros(n, n)


class Inherited(nn.Module, Serial):
    def __init__(self, cfg, n=8):
        super().__init__()
        self.encoder = Inherited.from_config_dict(cfg)
        self.cache = Inherited.table(n)


class Model(Inherited):
    def __init__(self, cfg, n=8):
        super().__init__(cfg, n)
        self.encoder = self.from_config_dict(cfg)
        self.cache = Inherited.table(n)
"""


def test_a_method_reached_through_a_class_costs_its_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")  # nn.Module read from its source: no `table` of its own
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "serial"\n')
    (tmp_path / "serial.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted(
        (d.message.split("`")[1], d.severity, "not known" in d.message) for d in report.diagnostics
    )
    assert found == [
        ("self.cache", "error", False),  # a 2-D table, through the inherited classmethod
        ("self.encoder", "warning", True),  # whatever the config names: not known
    ]


FACTORY = """
import torch
from torch import nn


class Base(nn.Module):
    @classmethod
    def _from_config(cls, config, **kwargs):
        model = cls(config, **kwargs)
        return model


class Text(Base):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.dim)


class Outer(Base):
    def __init__(self, config):
        super().__init__()
        self.lm = Text._from_config(config)


class Sub(Outer):
    def __init__(self, config):
        super().__init__(config)
        self.lm = Text(config)
"""


def test_cls_in_a_classmethod_is_the_class_it_was_called_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Text._from_config(c)`` runs ``cls(c)`` with ``cls`` bound to ``Text``: it builds a
    ``Text``, as costly as ``Text(c)``, so building it again is an error."""
    pytest.importorskip("torch")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "factory"\n')
    (tmp_path / "factory.py").write_text(FACTORY)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted(
        (d.message.split("`")[1], d.severity, "not known" in d.message) for d in report.diagnostics
    )
    assert found == [("self.lm", "error", False)]

"""A rebuilt object whose construction is heavy only on some of its own paths (an ``if`` its
parameters' defaults do not take, a configured strategy) is only possibly heavy: a warning
that says so, not an error. Each ``if`` takes its cheaper branch, a parameter's test the
branch its default chooses, and a branch that reaches a ``raise`` is no path; where the
cheapest path holds work of unknown cost, the build stays heavy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from initlint.api import Report, check

SOURCE = """
import torch
import torch.nn as nn


class Decoder:
    \"\"\"Loads a language model only when given one.\"\"\"

    def __init__(self, cfg, lm_path=None):
        self.cfg = cfg
        if lm_path is not None:
            self.lm = torch.load(lm_path)


class Strategy:
    \"\"\"A beam search builds a table, the greedy default nothing.\"\"\"

    def __init__(self, cfg):
        if cfg.strategy == "beam":
            self.table = torch.zeros(cfg.n, cfg.n)
        else:
            self.table = None


class Picked(nn.Module):
    \"\"\"Heavy on every branch: the one left raises.\"\"\"

    def __init__(self, kind):
        super().__init__()
        if kind == "a":
            self.net = nn.Linear(1024, 1024)
        elif kind == "b":
            self.net = nn.Conv2d(256, 256, 3)
        else:
            raise ValueError(kind)


class Optional(nn.Module):
    \"\"\"A projection only when asked for (``A if c else None``).\"\"\"

    def __init__(self, d, project):
        super().__init__()
        self.proj = nn.Linear(d, d) if project else None


class Opaque:
    \"\"\"Unknown work on every path, heavy work on one.\"\"\"

    def __init__(self, cfg, make):
        self.part = make(cfg)
        if cfg.big:
            self.table = torch.zeros(cfg.n, cfg.n)


class Base(nn.Module):
    def __init__(self, cfg, make):
        super().__init__()
        self.decoding = Decoder(cfg, cfg.lm_path)
        self.strategy = Strategy(cfg)
        self.picked = Picked(cfg.kind)
        self.optional = Optional(8, cfg.project)
        self.opaque = Opaque(cfg, make)


class Child(Base):
    def __init__(self, cfg, make):
        super().__init__(cfg, make)
        self.decoding = Decoder(cfg, cfg.lm_path)
        self.strategy = Strategy(cfg)
        self.picked = Picked(cfg.kind)
        self.optional = Optional(8, cfg.project)
        self.opaque = Opaque(cfg, make)
"""


def _found(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "decoders"\n')
    (tmp_path / "decoders.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {
        d.message.split("`")[1]: (d.severity, d.message)
        for d in report.diagnostics
        if d.class_name.endswith("Child")
    }


def test_heavy_only_on_a_configured_path_is_a_warning(tmp_path: Path) -> None:
    found = _found(tmp_path)
    for attr in ("self.decoding", "self.strategy", "self.optional"):
        severity, message = found[attr]
        assert severity == "warning", attr
        assert "heavy only on some paths of its construction" in message, attr


def test_heavy_on_every_path_that_does_not_raise_stays_an_error(tmp_path: Path) -> None:
    severity, message = _found(tmp_path)["self.picked"]
    assert severity == "error"
    assert "heavy only on some paths" not in message


def test_unknown_work_on_the_cheapest_path_is_no_reason_to_lower(tmp_path: Path) -> None:
    # the cheapest path may be heavy too: the build stays priced by its heaviest path
    assert _found(tmp_path)["self.opaque"][0] == "error"


DEFAULTS = """
from torch import nn


class On(nn.Module):
    def __init__(self, use_skip=True):
        super().__init__()
        self.skip = nn.Linear(1024, 1024) if use_skip else None
        self.skip = nn.Linear(8, 4)


class Off(nn.Module):
    def __init__(self, use_skip=False):
        super().__init__()
        self.skip = nn.Linear(1024, 1024) if use_skip else None
        self.skip = nn.Linear(8, 4)


class Shadowed(nn.Module):
    # The comprehension's own ``big``, not the parameter, picks each value.

    def __init__(self, sizes, big=True):
        super().__init__()
        self.blocks = [nn.Linear(8, 8) if big else nn.ReLU() for big in sizes]
        self.blocks = []


class NotPlain(nn.Module):
    def __init__(self, plain=False):
        super().__init__()
        self.skip = None if not plain else nn.Linear(1024, 1024)
        self.skip = nn.Linear(8, 4)
"""


def test_a_parameter_picks_its_defaults_value(check_source: Callable[..., Report]) -> None:
    # ``A if flag else B`` on the cheapest path: the value the parameter's default picks
    report = check_source(DEFAULTS)
    found = {d.class_name.rsplit(".", 1)[-1]: d.severity for d in report.diagnostics}
    assert found == {"On": "error", "Off": "warning", "NotPlain": "warning", "Shadowed": "warning"}

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


HELPER = """
from torch import nn


def make_out(layer, vocab, size):
    if isinstance(layer, nn.Module):
        out = layer
    elif layer is None:
        out = nn.Linear(size, vocab)
    else:
        raise ValueError(layer)
    return out


class Base(nn.Module):
    def __init__(self, vocab, output_layer=None):
        super().__init__()
        self.out = make_out(output_layer, vocab, 256)


class Passed(Base):
    # the class's own parameter, passed on: the ancestor's frame holds its default
    def __init__(self, vocab, output_layer=None):
        super().__init__(vocab, output_layer=output_layer)
        self.out = nn.Linear(512, vocab)


class Given(Base):
    # a module passed in: the helper returns it, and builds nothing
    def __init__(self, vocab, output_layer=None):
        super().__init__(vocab, output_layer=output_layer or nn.Identity())
        self.out = nn.Linear(512, vocab)


class Own(nn.Module):
    def __init__(self, vocab, output_layer=None):
        super().__init__()
        self.out = make_out(output_layer, vocab, 256)
        self.out = nn.Linear(512, vocab)
"""


def test_a_helper_takes_the_branch_its_arguments_defaults_pick(
    check_source: Callable[..., Report],
) -> None:
    # ``isinstance(None, nn.Module)`` is false and ``None is None`` true: with its arguments
    # at their defaults the helper builds the Linear, so the build is heavy, not "some paths"
    report = check_source(HELPER)
    found = {d.class_name.rsplit(".", 1)[-1]: d for d in report.diagnostics}
    assert found["Passed"].severity == "error"
    assert found["Own"].severity == "error"
    assert "heavy only on some paths" not in found["Passed"].message
    # an argument that is not the default (a module or'ed in) leaves the cheap branch open
    assert found["Given"].severity == "warning"


ISINSTANCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, layer=None):
        super().__init__()
        if isinstance(layer, nn.Module):
            self.out = layer
        else:
            self.out = nn.Linear(1024, 1024)


class Child(Base):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(1024, 8)


class Maybe(Base):
    def __init__(self, layer):
        super().__init__(layer)
        self.out = nn.Linear(1024, 8)
"""


def test_isinstance_of_none_is_decided(check_source: Callable[..., Report]) -> None:
    report = check_source(ISINSTANCE)
    found = {d.class_name.rsplit(".", 1)[-1]: d.message for d in report.diagnostics}
    assert "is rebuilt" in found["Child"]  # the ancestor's ``else`` surely ran
    assert "is possibly rebuilt" in found["Maybe"]  # a caller's module may be passed


RETURNS = """
from torch import nn


def make_head(layer, size, vocab):
    if layer is not None:
        return layer
    return nn.Linear(size, vocab)


def make_mixer(layer, size):
    if layer is None:
        pass
    else:
        return layer
    return nn.Linear(size, size)


class Base(nn.Module):
    def __init__(self, head, mixer, size=4096, vocab=50000):
        super().__init__()
        self.head = make_head(head, size, vocab)
        self.mixer = make_mixer(mixer, size)


class Child(Base):
    def __init__(self, head, mixer):
        super().__init__(head, mixer)
        self.head = nn.Linear(4096, 8)
        self.mixer = nn.Linear(4096, 8)


class Defaulted(nn.Module):
    def __init__(self, size=4096, vocab=50000, head=None):
        super().__init__()
        self.head = make_head(head, size, vocab)
        self.head = nn.Linear(size, 8)


def make_tail(layer, size):
    if layer is not None:
        return layer
    layer = nn.Linear(size, 50000)
    return layer


class Tailed(nn.Module):
    def __init__(self, size=4096, tail=None):
        super().__init__()
        self.tail = make_tail(tail, size)


class TailChild(Tailed):
    def __init__(self):
        super().__init__()
        self.tail = nn.Linear(4096, 8)


class Early(nn.Module):
    def __init__(self, size=4096, lite=True):
        super().__init__()
        self.embed = nn.Linear(size, size)
        if lite:
            return
        self.head = nn.Linear(size, 50000)


class Full(Early):
    def __init__(self, size=4096):
        super().__init__(size, lite=False)
        self.head = nn.Linear(size, 8)


class Lite(Early):
    def __init__(self, size=4096):
        super().__init__(size)
        self.head = nn.Linear(size, 8)
"""


def test_a_build_after_an_early_return_runs_only_where_the_test_failed(
    check_source: Callable[..., Report],
) -> None:
    # ``if layer is not None: return layer`` ends the helper where a layer is passed: the
    # build after it is heavy only on the path where none is (the ``else: return`` too)
    report = check_source(RETURNS)
    found = {
        (d.class_name.rsplit(".", 1)[-1], d.message.split("`")[1]): d for d in report.diagnostics
    }
    for attr in ("self.head", "self.mixer"):
        assert found["Child", attr].severity == "warning", attr
        assert "heavy only on some paths" in found["Child", attr].message, attr
    # with the argument at its default (None), the helper goes on to build (the test made
    # before the name is bound anew)
    assert found["Defaulted", "self.head"].severity == "error"
    assert found["TailChild", "self.tail"].severity == "error"
    # after ``if lite: return`` the head is built only where ``lite`` is false
    assert found["Full", "self.head"].severity == "error"
    assert not any(name == "Lite" for name, _ in found)

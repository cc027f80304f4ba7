"""A construction Python surely refuses (``self.bert = Model(config)`` where
``Model.__init__`` requires ``args``) raises TypeError at that statement: nothing after it
runs, so no later work repeats what came before. Only where the ``__init__`` Python runs is
surely the one initlint read."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
from torch import nn


class Base(nn.Module):
    def __init__(self, config):
        super().__init__()

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)


{decorator}class Model(Base):
    def __init__(self, config, args):
        super().__init__(config)
        self.fc = nn.Linear(4096, 4096)
        self.apply(self.init_weights)


class Head(Base):
    def __init__(self, config, args=None, **extra):
        super().__init__(config)
        {build}
        self.apply(self.init_weights)
"""


def _found(report: Report) -> list[tuple[str, str]]:
    return [(d.code, d.class_name) for d in report.diagnostics]


@pytest.mark.parametrize(
    ("build", "decorator", "found"),
    [
        # the required ``args`` left out: TypeError, the pass after never runs
        ("self.bert = Model(config)", "", []),
        ("bert = Model(config)\n        self.bert = bert", "", []),
        ("self.bert = Model(config, args, 3)", "", []),
        ("self.bert = Model(config, argz=args)", "", []),
        # bound: the pass fills Model's weight again
        ("self.bert = Model(config, args)", "", [("IL005", "m.Head")]),
        ("self.bert = Model(config, args=args)", "", [("IL005", "m.Head")]),
        # a pack of unknown length may hold it
        ("self.bert = Model(config, **extra)", "", [("IL005", "m.Head")]),
        # a decorated class may take other arguments than its ``__init__`` says
        ("self.bert = Model(config)", "@register\n", [("IL005", "m.Head")]),
    ],
)
def test_a_refused_construction_ends_the_path(
    check_source: Callable[..., Report], build: str, decorator: str, found: list[object]
) -> None:
    text = SOURCE.format(build=build, decorator=decorator)
    if decorator:
        text = "def register(cls):\n    return cls\n" + text
    assert _found(check_source(text)) == found


SHADOWED = """
import functools
from torch import nn


class Model(nn.Module):
    def __init__(self, config, args):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)


class Small(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)


{module_binding}


class Head(nn.Module):
    def __init__(self, config{param}):
        super().__init__()
        {local_binding}
        self.body = Model(config)
        self.body = nn.Linear(1024, 1024)
"""


@pytest.mark.parametrize(
    ("module_binding", "param", "local_binding"),
    [
        # the name the call reads is the frame's, not the module's class
        ("", ", Model=Small", ""),
        ("", "", "Model = Small"),
        ("", "", "from m import Small as Model"),
        # the module binds it again: which class the call makes is not sure
        ("Model = functools.partial(Model, args=None)", "", ""),
    ],
)
def test_a_construction_of_a_name_bound_otherwise_is_not_refused(
    check_source: Callable[..., Report], module_binding: str, param: str, local_binding: str
) -> None:
    text = SHADOWED.format(module_binding=module_binding, param=param, local_binding=local_binding)
    # (the call binds: what it built is replaced unread)
    assert [d.code for d in check_source(text).diagnostics] == ["IL005"]

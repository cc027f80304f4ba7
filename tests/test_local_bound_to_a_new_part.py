"""A local bound on one branch to a part of an object made there (``model =
densenet121().features``) and on another to a built object (``model = resnet50()``) is
still followed: a part replaced on it (``model.fc = nn.Identity()``) throws away what the
other branch's construction built, on the paths where that branch ran."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CLASSES = """
import torch.nn as nn


class Res(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 7)
        self.fc = nn.Linear(2048, 1000)


class Dense(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 64, 7))


class Backbone(nn.Module):
    def __init__(self, name: str):
        super().__init__()
{body}
        self.model = model
"""

BRANCHES = """\
        if name == "dense":
            model = Dense().features
        else:
            model = Res()
"""


@pytest.mark.parametrize(
    "body",
    [
        # the part replaced on the paths where ``model`` holds ``Res()``
        BRANCHES + '        if "res" in name:\n            model.fc = nn.Identity()\n',
        BRANCHES + "        model.fc = nn.Identity()\n",
        # a read of a plain attribute of the part does not use its weights
        BRANCHES + "        self.width = model.fc.in_features\n        model.fc = nn.Identity()\n",
    ],
)
def test_a_part_replaced_on_the_paths_that_built_it(
    check_source: Callable[..., Report], body: str
) -> None:
    source = CLASSES.format(body=body)
    lines = [t.strip() for t in source.splitlines()]
    line = lines.index("model.fc = nn.Identity()") + 1
    found = check_source(source).diagnostics
    assert [(d.code, d.line, d.confidence, d.severity) for d in found] == [
        ("IL005", line, "possible", "error")
    ]


@pytest.mark.parametrize(
    "body",
    [
        # the object used whole before the replacement
        BRANCHES + "        self.out = model(None)\n        model.fc = nn.Identity()\n",
        # no branch builds an object with the part
        "        model = Dense().features\n        model.fc = nn.Identity()\n",
        # the part replaced only where the name holds no built object
        '        if name == "dense":\n            model = Dense().features\n'
        "            model.fc = nn.Identity()\n        else:\n            model = Res()\n",
    ],
)
def test_no_finding_where_the_built_object_is_used_or_absent(
    check_source: Callable[..., Report], body: str
) -> None:
    assert check_source(CLASSES.format(body=body)).diagnostics == ()

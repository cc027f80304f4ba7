"""A project function whose every ``return`` constructs one of several classes or builders
(``net = models[name](**kwargs)`` over a table it writes out, then ``return net``) builds one
of them: an object stored from it (``self.pretrained = get_backbone(name)``) whose part the
class replaces or drops unread (``self.pretrained.fc = None``) throws away what each of them
builds of that part; possibly, when only some of them build it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
from torch import nn


class ResNet(nn.Module):
    def __init__(self, layers=4, num_classes=1000):
        super().__init__()
        self.body = nn.Sequential(*[nn.Conv2d(64, 64, 3) for _ in range(layers)])
        self.fc = nn.Linear(2048, num_classes)


class Wide(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.body = nn.Conv2d(64, 128, 3)
        {wide_head}


def resnet50(**kwargs):
    return ResNet(4, **kwargs)


def wide50(**kwargs):
    model = Wide(**kwargs)
    return model


def get_backbone(name, **kwargs):
    models = {{
        "resnet50": resnet50,
        "wide50": {second},
    }}
    net = models[name](**kwargs)
    return net


class Seg(nn.Module):
    def __init__(self, backbone="resnet50"):
        super().__init__()
        self.pretrained = get_backbone(backbone)
        self.pretrained.fc = None
"""


def _found(report: Report) -> list[tuple[str, str, str]]:
    return [(d.code, d.severity, d.confidence) for d in report.diagnostics]


@pytest.mark.parametrize(
    ("wide_head", "second", "found"),
    [
        # each builds a head of 8 MiB or more: thrown away whichever it is
        ("self.fc = nn.Linear(4096, num_classes)", "wide50", [("IL005", "error", "definite")]),
        # one of them builds none: on some paths only
        ("self.head = nn.Linear(4096, num_classes)", "wide50", [("IL005", "error", "possible")]),
        # one of them is not known here: nothing claimed
        ("self.fc = nn.Linear(4096, num_classes)", "make_wide()", []),
    ],
)
def test_an_object_a_factory_picks_from_a_table_throws_away_the_part_dropped(
    check_source: Callable[..., Report], wide_head: str, second: str, found: list[object]
) -> None:
    text = SOURCE.format(wide_head=wide_head, second=second)
    assert _found(check_source(text)) == found


def test_the_message_names_the_factory(check_source: Callable[..., Report]) -> None:
    text = SOURCE.format(wide_head="self.fc = nn.Linear(4096, num_classes)", second="wide50")
    (d,) = check_source(text).diagnostics
    assert "`self.pretrained.fc` (a part of the get_backbone that Seg.__init__" in d.message


CHANGED = """
from torch import nn

KEPT = []


class ResNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.fc = nn.Linear(2048, num_classes)


class Wide(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.fc = nn.Linear(4096, num_classes)


def get_backbone(name, **kwargs):
    models = {{"resnet50": ResNet, "wide50": Wide}}
    net = models[name](**kwargs)
    {between}
    return net


class Seg(nn.Module):
    def __init__(self, backbone="resnet50"):
        super().__init__()
        self.pretrained = get_backbone(backbone)
        self.pretrained.fc = None
"""


@pytest.mark.parametrize(
    "between",
    [
        # the factory replaces the part itself: the caller drops what the factory put there
        "net.fc = nn.Identity()",
        # the factory hands the object on: it may be kept elsewhere
        "KEPT.append(net)",
    ],
)
def test_a_factory_that_does_more_with_its_object_is_not_followed(
    check_source: Callable[..., Report], between: str
) -> None:
    text = CHANGED.format(between=between)
    caller = text.splitlines().index("        self.pretrained.fc = None") + 1
    assert [d.line for d in check_source(text).diagnostics if d.line == caller] == []

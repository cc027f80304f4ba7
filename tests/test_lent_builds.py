"""An object a subclass builds for its base's ``__init__`` alone (``super().__init__(Net())``,
or a local it hands there and never mentions again), of which that ``__init__`` keeps only
some parts (``self.stem = net.stem``), throws the rest away (IL005), as a built local does.
Not reported: the base keeping the object whole (reading none of its parts too), the
subclass using it after the call, an object the base only reads settings of, an object the
subclass was given. A factory that binds its
result on two paths to the same class (``model = Net(1001)`` or ``Net(n)``) builds that
class."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

BASES = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3)
        self.body = nn.Sequential(nn.Conv2d(64, 64, 3), nn.Conv2d(64, 64, 3))
        self.fc = nn.Linear(2048, num_classes)


def make_net(pretrained=False):
    if pretrained:
        model = Net(num_classes=1001)
        model.fc = nn.Linear(2048, 1000)
    else:
        model = Net()
    return model


class Encoder(nn.Module):
    def __init__(self, net, channels):
        super().__init__()
        self.stem = net.stem
        self.body = net.body
        self.channels = channels


class Keeper(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.stem = net.stem
        self.net = net


class Holder(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net


class Sizer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.width = cfg.width
        self.proj = nn.Linear(cfg.width, cfg.width)


class Cfg:
    def __init__(self, width=64):
        self.width = width
"""


def _findings(check_source: Callable[..., Report], body: str) -> list[tuple[int, str, str]]:
    report = check_source(BASES + body)
    first = len(BASES.splitlines()) + 1
    return [
        (d.line - first, d.severity, d.message)
        for d in report.diagnostics
        if d.code == "IL005" and d.line >= first
    ]


def test_an_object_built_in_the_super_call_and_kept_in_part(check_source):
    found = _findings(
        check_source,
        """
class Inline(Encoder):
    def __init__(self):
        super().__init__(Net(), [64])
""",
    )
    assert len(found) == 1, found
    line, severity, message = found[0]
    assert (line, severity) == (3, "error")
    assert "`fc` of the object `Net(...)` built for the base's __init__ as `net`" in message
    assert "takes only other parts of it" in message


def test_a_local_handed_to_the_super_call_and_never_used_again(check_source):
    found = _findings(
        check_source,
        """
class Local(Encoder):
    def __init__(self, channels=(64,)):
        net = Net()
        super().__init__(net, list(channels))
""",
    )
    assert [(line, sev) for line, sev, _ in found] == [(3, "error")], found
    assert "built into the local `net`" in found[0][2]


def test_a_factory_whose_two_paths_build_one_class(check_source):
    found = _findings(
        check_source,
        """
class FromFactory(Encoder):
    def __init__(self, pretrained=False):
        super().__init__(make_net(pretrained), [64])
""",
    )
    assert [(line, sev) for line, sev, _ in found] == [(3, "error")], found
    assert "`make_net(...)`" in found[0][2]


def test_kept_used_after_or_only_read_is_not_reported(check_source):
    found = _findings(
        check_source,
        """
class KeptWhole(Keeper):
    def __init__(self):
        super().__init__(Net())


class UsedAfter(Encoder):
    def __init__(self):
        net = Net()
        super().__init__(net, [64])
        self.head = net.fc


class Settings(Sizer):
    def __init__(self):
        super().__init__(Cfg(128))


class TakenThenHeld(Holder):
    def __init__(self):
        net = Net()
        stem = net.stem
        super().__init__(net)
        self.stem = stem


class Passed(Encoder):
    def __init__(self, net):
        super().__init__(net, [64])
""",
    )
    assert found == [], found


def test_reported_once_not_again_in_a_subclass(check_source):
    found = _findings(
        check_source,
        """
class Inline(Encoder):
    def __init__(self):
        super().__init__(Net(), [64])


class Deeper(Inline):
    def __init__(self):
        super().__init__()
""",
    )
    assert [(line, sev) for line, sev, _ in found] == [(3, "error")], found

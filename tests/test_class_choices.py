"""A value that is one of several classes written in the code is followed: a conditional
expression of classes, an item of a tuple of them, what a function returns when each of its
``return``s gives one. Calling it costs what the classes cost where they agree (all heavy, or
none more than light); where they differ, or one of the choices is not known, the cost is
unknown: a warning that says so, with the confidence its path has."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn

REGISTRY = {}


def get_conv_layer(spatial_dim=3, transpose=False):
    if spatial_dim == 2:
        return nn.ConvTranspose2d if transpose else nn.Conv2d
    return nn.ConvTranspose3d if transpose else nn.Conv3d


def conv_factory(dim):
    types = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
    return types[dim - 1]


def maybe_conv(dim):
    if dim == 0:
        return None
    return nn.Conv2d


def head_layer(tiny):
    return nn.Identity if tiny else nn.Linear


class Block(nn.Module):
    def __init__(self, c, dim="3d", kind="a"):
        super().__init__()
        conv = get_conv_layer(spatial_dim=2 if dim == "2d" else 3)
        self.dw = conv(c, c, 7, groups=c)
        self.pw = conv_factory(3)
        pick = conv_factory(3)
        self.proj = pick(c, c, 1)
        norm = nn.BatchNorm2d if dim == "2d" else nn.BatchNorm3d
        self.norm = norm(c)
        layer = head_layer(c < 4)
        self.head = layer(c, c)
        extra = maybe_conv(c)
        self.extra = extra(c, c, 1)
        self.act = REGISTRY[kind](c)


class Down(Block):
    def __init__(self, c, dim="3d", kind="a"):
        super().__init__(c, dim, kind)
        conv = get_conv_layer(spatial_dim=2 if dim == "2d" else 3)
        self.dw = conv(c, c, 7, stride=2, groups=c)
        pick = conv_factory(3)
        self.proj = pick(c, 2 * c, 1)
        norm = nn.BatchNorm2d if dim == "2d" else nn.BatchNorm3d
        self.norm = norm(c)
        layer = head_layer(c < 4)
        self.head = layer(c, c)
        extra = maybe_conv(c)
        self.extra = extra(c, c, 3)
        self.act = REGISTRY[kind](c)


def make_head(d, big=False):
    layer = nn.Identity
    if big:
        layer = nn.Linear
    return layer(d, d)


class Guarded(nn.Module):
    def __init__(self, c, big=False):
        super().__init__()
        self.head = make_head(c, big)


class GuardedAgain(Guarded):
    def __init__(self, c, big=False):
        super().__init__(c, big)
        self.head = make_head(c, big)


class Defaulted(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.head = make_head(c)


class DefaultedAgain(Defaulted):
    def __init__(self, c):
        super().__init__(c)
        self.head = make_head(c)


class Shadowed(nn.Module):
    def __init__(self, c, Conv2d=None):
        super().__init__()
        self.layer = Conv2d(c, c)


class ShadowedAgain(Shadowed):
    def __init__(self, c, Conv2d=None):
        super().__init__(c, Conv2d)
        self.layer = Conv2d(c, c)
"""

HEADER = "from torch.nn import Conv2d\n"


def _found(tmp_path: Path, source: str) -> dict[tuple[str, str], tuple[str, str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "layers"\n')
    (tmp_path / "layers.py").write_text(source)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    out = {}
    for d in report.diagnostics:
        attr = d.message.split("`")[1].removeprefix("self.")
        out[(d.class_name.rsplit(".", 1)[-1], attr)] = (d.severity, d.confidence, d.message)
    return out


def test_classes_a_value_is_one_of_are_priced(tmp_path: Path) -> None:
    found = _found(tmp_path, HEADER + SOURCE)
    # every conv a helper may return, and every item of a tuple of convs: heavy
    assert found[("Down", "dw")][:2] == ("error", "definite")
    assert found[("Down", "proj")][:2] == ("error", "definite")
    # batch norms of either dimension: light
    assert found[("Down", "norm")][:2] == ("warning", "definite")
    assert "not known" not in found[("Down", "norm")][2]


def test_choices_that_disagree_or_are_not_all_known_stay_unknown(tmp_path: Path) -> None:
    found = _found(tmp_path, HEADER + SOURCE)
    # an identity or a linear layer: which one runs is not known
    severity, confidence, message = found[("Down", "head")]
    assert (severity, confidence) == ("warning", "definite")
    assert "what that build costs is not known here" in message
    # a helper that may return None: not all of its returns are classes
    assert found[("Down", "extra")][:2] == ("warning", "definite")
    assert "not known" in found[("Down", "extra")][2]
    # a registry filled at run time: unknown, and still sure it is rebuilt
    assert found[("Down", "act")][:2] == ("warning", "definite")


def test_a_local_bound_on_some_paths_holds_either_value(tmp_path: Path) -> None:
    found = _found(tmp_path, HEADER + SOURCE)
    severity, _, message = found[("GuardedAgain", "head")]
    assert severity == "warning"  # an identity by default, a linear layer if asked
    assert "not known" in message
    # a call that leaves the flag out: the identity its default picks
    severity, _, message = found[("DefaultedAgain", "head")]
    assert severity == "warning"
    assert "not known" not in message


def test_an_argument_is_not_the_module_level_class_it_shadows(tmp_path: Path) -> None:
    found = _found(tmp_path, HEADER + SOURCE)
    severity, _, message = found[("ShadowedAgain", "layer")]
    assert severity == "warning"
    assert "not known" in message

"""What a construction builds with its parameters' defaults decides whether a rebuild of it
is heavy: ``nn.Linear(d, n) if n > 0 else nn.Identity()`` with ``n=1000`` builds the Linear.
A comparison of a default with a constant is decided as Python decides it; a parameter an
open ``**kwargs`` pack may give keeps its default on the cheapest path, and a class given as
such a default is possibly what calling the parameter builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

HEAD = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d=64, num_classes=1000, **kwargs):
        super().__init__()
        self.head = nn.Linear(d, num_classes) if num_classes > 0 else nn.Identity()


class Child(Base):
    def __init__(self, d=64, **kwargs):
        super().__init__({passed})
        del self.head
"""


@pytest.mark.parametrize(
    ("passed", "severity"),
    [
        ("d=d", "error"),  # the default 1000 > 0: the Linear is built
        ("d=d, **kwargs", "error"),  # the pack may name num_classes; its default stands
        ("d=d, num_classes=0", "warning"),  # the Identity: nothing heavy
        # a pack the class fills itself gives a value of its own, not the default
        ("d=d, **{'num_classes': 0, **kwargs}", "warning"),
    ],
)
def test_a_default_compared_with_a_constant_picks_the_build(
    tmp_path: Path, passed: str, severity: str
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    (tmp_path / "model.py").write_text(HEAD.format(passed=passed))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [(d.code, d.severity) for d in report.diagnostics if d.path.endswith("model.py")]
    assert found == [("IL005", severity)]


EMBED = """
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Conv2d(3, d, 16, 16)


class Base(nn.Module):
    def __init__(self, d=64, embed_layer=PatchEmbed):
        super().__init__()
        self.patch_embed = embed_layer(d)


class Child(Base):
    def __init__(self, d=64, **kwargs):
        super().__init__(d=d, **kwargs)
        self.patch_embed = PatchEmbed(d)
"""


def test_a_class_default_an_open_pack_may_replace_is_possibly_built(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    (tmp_path / "model.py").write_text(EMBED)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [d for d in report.diagnostics if d.path.endswith("model.py")]
    assert [(d.code, d.severity, d.confidence) for d in found] == [("IL003", "error", "possible")]


FILLED = """
from torch import nn


class Base(nn.Module):
    def __init__(self, d=64, num_classes=1000, **kwargs):
        super().__init__()
        self.head = nn.Linear(d, num_classes) if num_classes > 0 else nn.Identity()


class Child(Base):
    def __init__(self, d=64, **kwargs):
        {fill}
        super().__init__(d=d, **kwargs)
        self.head = nn.Linear(d, 10)
"""


@pytest.mark.parametrize(
    ("fill", "severity"),
    [
        ('kwargs["num_classes"] = 0', "warning"),
        ('kwargs.setdefault("num_classes", 0)', "warning"),
        ("kwargs.update(num_classes=0)", "warning"),
        ('kwargs.pop("num_classes", None)', "error"),  # popped: the default stands
        ("pass", "error"),
    ],
)
def test_a_pack_the_class_fills_does_not_leave_the_default(
    tmp_path: Path, fill: str, severity: str
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    (tmp_path / "model.py").write_text(FILLED.format(fill=fill))
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = [(d.code, d.severity) for d in report.diagnostics if d.path.endswith("model.py")]
    assert found == [("IL003", severity)]

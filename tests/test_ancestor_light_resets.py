"""An ancestor that stores a light value (an argument, ``self.head = head``) over what an
earlier ancestor built drops that build itself: a subclass that builds the attribute again
replaces the light value, and is no rebuild of the dropped build (IL003). The drop is the
middle ancestor's own (IL005, reported on it). An ancestor's store on some paths only, or
one made from the value it replaces, is no reset."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch.nn as nn


class Heavy(nn.Module):
    def __init__(self, n=1000):
        super().__init__()
        self.fc = nn.Linear(n, n)


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Heavy()


class Mid(Base):
    def __init__(self, head=None):
        super().__init__()
        self.head = head


class Leaf(Mid):
    def __init__(self):
        super().__init__()
        self.head = Heavy()


class MidSometimes(Base):
    def __init__(self, head=None):
        super().__init__()
        if head is not None:
            self.head = head


class LeafSometimes(MidSometimes):
    def __init__(self):
        super().__init__()
        self.head = Heavy()


class Direct(Base):
    def __init__(self):
        super().__init__()
        self.head = Heavy()
"""


def _found(tmp_path: Path) -> set[tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "resets"\n')
    (tmp_path / "resets.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {(d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics}


def test_a_light_value_an_ancestor_stores_resets_the_attribute(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert ("Leaf", "IL003") not in found
    assert ("Mid", "IL005") in found  # (the middle ancestor drops the build itself)
    assert ("LeafSometimes", "IL003") in found  # (the reset runs on some paths only)
    assert ("Direct", "IL003") in found

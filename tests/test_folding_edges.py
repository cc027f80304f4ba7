"""Edges of folding guards and of pricing the cheapest path: arithmetic that Python itself
cannot do over the values known (an int too large for a float) leaves the test undecided
rather than ending the check, and the arms of a ``match`` (one unnamed condition for all of
them) are no ``if`` whose other branch builds nothing: a build heavy on every arm that does
not raise stays heavy."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
from torch import nn


class Huge(nn.Module):
    def __init__(self, d=4096, n=HUGE):
        super().__init__()
        if n * 1.5 > 2:
            self.head = nn.Linear(d, d)


class HugeChild(Huge):
    def __init__(self, d=4096):
        super().__init__(d)
        self.head = nn.Linear(d, d)


class Matched(nn.Module):
    def __init__(self, kind):
        super().__init__()
        match kind:
            case "a":
                self.net = nn.Conv2d(256, 256, 3)
            case _:
                raise ValueError(kind)


class Base(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.matched = Matched(kind)


class Child(Base):
    def __init__(self, kind):
        super().__init__(kind)
        self.matched = Matched(kind)
""".replace("HUGE", str(10**400))  # a default written out: an int no float can hold


def _found(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "edges"\n')
    (tmp_path / "edges.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rsplit(".", 1)[-1]: (d.code, d.severity) for d in report.diagnostics}


def test_arithmetic_python_cannot_do_leaves_the_test_undecided(tmp_path: Path) -> None:
    # the repeat is found; no internal error (IL902) ends the class's check
    assert _found(tmp_path)["HugeChild"] == ("IL003", "error")


def test_a_match_heavy_on_every_arm_that_does_not_raise_stays_heavy(tmp_path: Path) -> None:
    assert _found(tmp_path)["Child"] == ("IL003", "error")

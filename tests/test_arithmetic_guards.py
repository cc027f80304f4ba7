"""An ancestor's guard that compares arithmetic of its parameters (``num_blocks -
att_layer_num <= 0``) is decided as Python decides it when the super call leaves the
operands at their defaults, or passes constants: a branch that never runs is no build to
throw away, and a build on a branch that always runs is a certain repeat. Operands not
known leave the test undecided."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
from torch import nn


class Decoder(nn.Module):
    def __init__(self, d=8, num_blocks=6, att_layer_num=6):
        super().__init__()
        if num_blocks - att_layer_num <= 0:
            self.extra = None
        else:
            self.extra = nn.Linear(d, d)
        if num_blocks > 2:
            self.head = nn.Linear(d, d)


class Defaults(Decoder):
    \"\"\"Leaves the blocks at their defaults: no extra is ever built, the head always is.\"\"\"

    def __init__(self, d=8, n=6):
        super().__init__(d)
        if n > 3:
            self.extra = nn.Linear(d, d)
        self.head = nn.Linear(d, d)


class Deeper(Decoder):
    \"\"\"Passes constants that take the other branch: the extra is built, then rebuilt.\"\"\"

    def __init__(self, d=8):
        super().__init__(d, num_blocks=8, att_layer_num=2)
        self.extra = nn.Linear(d, d)


class Given(Decoder):
    \"\"\"Passes what it was given: the ancestor's test is not known.\"\"\"

    def __init__(self, d=8, blocks=6):
        super().__init__(d, num_blocks=blocks)
        self.extra = nn.Linear(d, d)
"""


def _found(tmp_path: Path) -> list[tuple[str, str, str]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "decoders"\n')
    (tmp_path / "decoders.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return sorted(
        (d.class_name.rsplit(".", 1)[-1], d.message.split("`")[1], d.confidence)
        for d in report.diagnostics
    )


def test_a_branch_the_defaults_never_take_builds_nothing_to_throw_away(tmp_path: Path) -> None:
    found = [f for f in _found(tmp_path) if f[0] == "Defaults"]
    # no `self.extra` finding; the head's build always runs: a definite repeat
    assert found == [("Defaults", "self.head", "definite")]


def test_constants_passed_decide_the_test(tmp_path: Path) -> None:
    assert [f for f in _found(tmp_path) if f[0] == "Deeper"] == [
        ("Deeper", "self.extra", "definite")
    ]


def test_operands_not_known_leave_the_test_undecided(tmp_path: Path) -> None:
    assert [f for f in _found(tmp_path) if f[0] == "Given" and f[1] == "self.extra"] == [
        ("Given", "self.extra", "possible")
    ]

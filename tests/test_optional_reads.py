"""IL004's reader test: an attribute read only through getattr/hasattr, or not read at all,
is not read plainly."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.driver import analyze
from initlint.rules.readers import no_plain_reads, reads_under

HEAD = """\
class Owner:
    def __init__(self):
        self.x: int | None
        self.x = None
"""


@pytest.mark.parametrize(
    ("body", "optional"),
    [
        ('    def f(self):\n        return getattr(self, "x", None)\n', True),
        ("    def f(self):\n        return hasattr(self, 'x')\n", True),
        ('    def f(self):\n        return getattr(self, "x", None) or self.x\n', False),
        ("    def f(self):\n        self.x += 1\n", False),
        ("    def f(self):\n        return self.x == 1\n", False),
        ("    def f(self):\n        return self.xy\n", True),  # no reader of x at all
        ('    def f(self):\n        y = getattr(self, "x", None)\n        return self.xy\n', True),
    ],
)
def test_no_plain_reads(tmp_path: Path, body: str, optional: bool) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "m.py").write_text(HEAD + body)
    analysis = analyze([tmp_path], cwd=tmp_path, use_cache=False)
    info = analysis.index.class_info("m.Owner")
    assert info is not None
    assert no_plain_reads([info], "x") is optional


@pytest.mark.parametrize(
    ("body", "under"),
    [
        ("    def f(self):\n        if not self.lazy:\n            return self.x\n", True),
        (
            "    def f(self):\n        if self.lazy:\n            return 0\n        else:\n"
            "            return self.x\n",
            True,
        ),
        ("    def f(self):\n        return self.x\n", False),
        # a read under another test than the setup's may find it missing
        ("    def f(self):\n        if self.ready:\n            return self.x\n", False),
        ("    def f(self):\n        self.x += 1\n", False),  # an augmented store reads too
    ],
)
def test_reads_under_every_test_of_the_setup(tmp_path: Path, body: str, under: bool) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "m.py").write_text(HEAD + body)
    analysis = analyze([tmp_path], cwd=tmp_path, use_cache=False)
    info = analysis.index.class_info("m.Owner")
    assert info is not None
    assert reads_under([info], "x", frozenset({"not self.lazy"})) is under
    # no read sits under both tests of a setup made under both
    assert reads_under([info], "x", frozenset({"not self.lazy", "self.ready"})) is False

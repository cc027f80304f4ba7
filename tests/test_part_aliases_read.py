"""Which locals are read as the part of the object they name (``facts/aliases.py``): bound
once to ``self.a.b`` and never changed, their part not stored again after."""

from __future__ import annotations

import ast

import pytest

from initlint.facts.aliases import without_part_aliases


def _read(body: str) -> str:
    fn = ast.parse(f"def __init__(self, d):\n{body}").body[0]
    assert isinstance(fn, ast.FunctionDef)
    return ast.unparse(without_part_aliases(fn, "self"))


def test_an_alias_reads_as_its_part() -> None:
    out = _read(
        "    lm = self.vlm.language_model\n    if hasattr(lm, 'head'):\n        del lm.head\n"
    )
    assert "del self.vlm.language_model.head" in out
    assert "hasattr(self.vlm.language_model, 'head')" in out
    assert "lm =" not in out


@pytest.mark.parametrize(
    "body",
    [
        "    lm = self.vlm.lm\n    lm = self.other\n    del lm.head\n",  # bound twice
        "    lm = self.vlm.lm\n    for lm in self.parts:\n        pass\n    del lm.head\n",
        "    lm = self.vlm.lm\n    self.vlm = Other()\n    del lm.head\n",  # the part changed
        "    lm = self.vlm.lm\n    setattr(self, 'vlm', Other())\n    del lm.head\n",
        "    lm = self.vlm.lm\n    f = lambda: lm\n    del lm.head\n",  # a closure holds it
        "    d = self.vlm.lm\n    del d.head\n",  # a parameter
    ],
)
def test_other_locals_stay_as_they_are(body: str) -> None:
    fn = ast.parse(f"def __init__(self, d):\n{body}").body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert without_part_aliases(fn, "self") is fn

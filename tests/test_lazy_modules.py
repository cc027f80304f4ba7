"""A package whose ``__init__`` puts a lazy stand-in for itself in ``sys.modules`` (as large
model libraries do, importing each name on first use) serves at run time what its
type-checking branch imports: a class imported from it is the class that branch names, and
a subclass's rebuild of what that class built is found. The type-checking branch of any
other module stays unread (what it binds does not exist at run time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import check

LAZY_INIT = """
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .modeling import *
    from .config import Config
else:
    from ._lazy import LazyModule

    sys.modules[__name__] = LazyModule(__name__, globals()["__file__"])
"""

PLAIN_INIT = """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .modeling import *
"""

MODELING = """
import torch
from torch import nn

__all__ = ["Head"]


class Head(nn.Module):
    def __init__(self, width=64, vocab=1000):
        super().__init__()
        self.lm_head = nn.Linear(width, vocab)
"""

USER = """
from torch import nn

from lib import Head


class Retriever(Head):
    def __init__(self, width=64):
        super().__init__(width)
        self.lm_head = nn.Identity()
"""


@pytest.mark.parametrize(("init", "found"), [(LAZY_INIT, ["IL003"]), (PLAIN_INIT, [])])
def test_a_lazy_package_serves_what_its_type_checking_branch_imports(
    tmp_path: Path, init: str, found: list[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "__init__.py").write_text(init)
    (lib / "modeling.py").write_text(MODELING)
    (lib / "config.py").write_text("class Config:\n    pass\n")
    (lib / "_lazy.py").write_text("class LazyModule:\n    def __init__(self, *a):\n        pass\n")
    (tmp_path / "user.py").write_text(USER)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    assert [d.code for d in report.diagnostics if d.path.endswith("user.py")] == found

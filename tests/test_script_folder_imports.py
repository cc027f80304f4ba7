"""An absolute import that names no installed, standard-library or top-level project
module works only while a folder above the importing file is on the path (a vendored
research tree whose scripts run from their own folder: ``from decoder.parts import Disc``
inside ``pkg/vendor/decoder/exp.py``). It means the module below the nearest such folder,
so the class it names is simulated, and its rebuild priced by its construction, not left
unknown."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

PARTS = """
import torch.nn as nn


class Disc(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(512, 1024, (5, 1)) for _ in range(4)])
"""

EXP = """
import torch.nn as nn
from decoder.parts import Disc


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.disc = Disc()


class Sub(Base):
    def __init__(self):
        super().__init__()
        self.disc = Disc()
"""


def _severities(tmp_path: Path, folder: str) -> dict[str, str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "vendoring"\n')
    where = tmp_path / folder
    where.mkdir(parents=True)
    parts = Path(folder).parts
    for n in range(1, len(parts) + 1):
        (tmp_path.joinpath(*parts[:n]) / "__init__.py").write_text("")
    (where / "parts.py").write_text(PARTS)
    (where / "exp.py").write_text(EXP)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rsplit(".", 1)[-1]: d.severity for d in report.diagnostics}


def test_an_import_below_a_folder_above_the_file_resolves_there(tmp_path: Path) -> None:
    assert _severities(tmp_path, "pkg/vendor/decoder") == {"Sub": "error"}


def test_the_same_tree_at_the_top_resolves_as_before(tmp_path: Path) -> None:
    assert _severities(tmp_path, "decoder") == {"Sub": "error"}

"""An absolute import that names no installed, standard-library or top-level project
module works only while a folder above the importing file is on the path (a vendored
research tree whose scripts run from their own folder: ``from decoder.parts import Disc``
inside ``pkg/vendor/decoder/exp.py``). It means the module below the nearest such folder,
so the class it names is simulated, and its rebuild priced by its construction, not left
unknown."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check
from initlint.facts.model import ModuleFacts
from initlint.index.loading import ProjectFiles
from initlint.index.project import ProjectIndex

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


def _paths(packages: list[str], modules: list[str]) -> ProjectIndex:
    def no_load(path: Path) -> ModuleFacts:
        raise AssertionError(f"{path} read: resolving names needs module names only")

    entries = {n: (f"/p/{n}/__init__.py", True) for n in packages}
    entries |= {n: (f"/p/{n}.py", False) for n in modules}
    return ProjectIndex(entries, ProjectFiles(no_load))


def test_a_folder_beside_the_importer_resolves_only_below_a_package_of_that_name() -> None:
    index = _paths(
        ["pkg", "pkg.vendor", "pkg.vendor.decoder", "pkg.loggers", "pkg.models"],
        ["pkg.vendor.decoder.parts", "pkg.vendor.decoder.exp", "pkg.loggers.wandb"]
        + ["pkg.models.net", "pkg.utils"],
    )
    exp, logger = "pkg.vendor.decoder.exp", "pkg.loggers.wandb"
    assert index.absolute_module("decoder.parts", importer=exp) == "pkg.vendor.decoder.parts"
    # (a same-named module, the importer itself included, is no folder on the path)
    assert index.absolute_module("wandb", importer=logger) is None
    assert index.absolute_module("wandb.init", importer=logger) is None
    assert index.absolute_module("utils", importer="pkg.models.net") is None
    # (a package's own folder is one of its importer's folders)
    assert index.absolute_module("decoder.parts", importer="pkg.vendor") == (
        "pkg.vendor.decoder.parts"
    )


def test_a_folder_without_init_below_the_importers_folders_is_a_namespace_package() -> None:
    # ``pkg/vendor/s4/__init__.py`` puts its own folder on the path at run time; ``src`` and
    # ``src/models`` have no ``__init__.py``: ``src.models.seq`` is a namespace package's.
    index = _paths(
        ["pkg", "pkg.vendor", "pkg.vendor.s4", "pkg.vendor.s4.src.models.seq"],
        ["pkg.vendor.s4.src.models.seq.base", "pkg.vendor.s4.src.models.kernels.conv"],
    )
    conv = "pkg.vendor.s4.src.models.kernels.conv"
    assert index.absolute_module("src.models.seq", importer=conv) == (
        "pkg.vendor.s4.src.models.seq"
    )
    assert index.absolute_module("src.models.seq.base", importer=conv) == (
        "pkg.vendor.s4.src.models.seq.base"
    )
    # (a lone folder name is no module: nothing in the project is named by it)
    assert index.absolute_module("src", importer=conv) is None


def test_a_class_below_namespace_folders_is_simulated(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "vendoring"\n')
    s4 = tmp_path / "pkg" / "vendor" / "s4"
    for folder in (tmp_path / "pkg", tmp_path / "pkg" / "vendor", s4):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (s4 / "src" / "decoder").mkdir(parents=True)
    (s4 / "src" / "decoder" / "parts.py").write_text(PARTS)
    (s4 / "src" / "decoder" / "exp.py").write_text(
        EXP.replace("decoder.parts", "src.decoder.parts")
    )
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    assert {d.class_name.rsplit(".", 1)[-1]: d.severity for d in report.diagnostics} == {
        "Sub": "error"
    }
    assert report.unread_ancestors == ()


def test_a_module_beside_a_folder_of_that_name_is_no_namespace_package() -> None:
    # (``src.py`` and ``src/`` side by side: Python imports the module, which has no
    # ``models``; the folder below is no package there)
    index = _paths(
        ["pkg", "pkg.vendor", "pkg.vendor.s4"],
        ["pkg.vendor.s4.src", "pkg.vendor.s4.src.models.seq", "pkg.vendor.s4.train"],
    )
    assert index.absolute_module("src.models.seq", importer="pkg.vendor.s4.train") is None

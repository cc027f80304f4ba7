"""``from pkg import name`` gives the package's attribute: what its ``__init__`` bound last,
which may rebind the name of a submodule (torch.nn.utils binds ``weight_norm``, a submodule,
to the function of that name); the submodule only when ``__init__`` binds nothing."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

BASE = """
import torch
from torch import nn


class block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("table", torch.zeros(n, n))
"""

CHILD = """
import torch
from pkg.layers import block
from pkg import other


class Child(block):
    def __init__(self, n):
        super().__init__(n)
        self.register_buffer("table", torch.ones(n, n))


class FromModule(other.Plain):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("table", torch.ones(n, n))
"""


def test_a_name_rebound_by_the_package_is_its_binding(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    pkg = tmp_path / "pkg"
    (pkg / "layers").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import other\n")
    (pkg / "other.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Plain(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('table', torch.zeros(4, 4))\n"
    )
    (pkg / "layers" / "__init__.py").write_text("from .block import block\n")
    (pkg / "layers" / "block.py").write_text(BASE)
    (pkg / "child.py").write_text(CHILD)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    found = sorted((d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics)
    # ``block`` is the class the package binds, not the submodule ``pkg.layers.block``;
    # ``other`` (``from . import other``) is the submodule
    assert found == [("Child", "IL001"), ("FromModule", "IL001")]


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


BASE_AND_FACTORY = (
    "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('table', torch.zeros(4, 4))\n\n\n"
    "def b():\n    return Base()\n"
)
SUBCLASS = (
    "import torch\nfrom . import b\n\n\nclass Thing(b.Base):\n    def __init__(self):\n"
    "        super().__init__()\n        self.register_buffer('table', torch.ones(4, 4))\n"
)


def test_a_sibling_imports_the_submodule_before_the_package_rebinds_it(tmp_path: Path) -> None:
    # pkg/__init__ imports .a first, whose ``from . import b`` runs before ``from .b import b``
    # rebinds the name: ``b`` there is the submodule
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .a import Thing\nfrom .b import b\n",
            "pkg/a.py": SUBCLASS,
            "pkg/b.py": BASE_AND_FACTORY,
        },
    )
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    assert [(d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics] == [
        ("Thing", "IL001")
    ]


def test_a_star_import_back_into_the_package_ends(tmp_path: Path) -> None:
    # ``from .a import *`` in the package, whose ``a`` binds ``b`` three times by ``from .
    # import b``: each lookup of ``pkg.b`` that comes back to itself is the submodule (this
    # took minutes when every path was searched again)
    branches = "import sys\nif sys.version_info >= (3, 10):\n    from . import b\n"
    branches += (
        "elif sys.version_info >= (3, 8):\n    from . import b\nelse:\n    from . import b\n"
    )
    child = (
        "import torch\nfrom pkg import b\n\n\nclass Thing(b.Base):\n    def __init__(self):\n"
        "        super().__init__()\n        self.register_buffer('table', torch.ones(4, 4))\n"
    )
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .a import *\n",
            "pkg/a.py": branches,
            "pkg/b.py": BASE_AND_FACTORY,
            "child.py": child,
        },
    )
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    assert [(d.class_name.rsplit(".", 1)[-1], d.code) for d in report.diagnostics] == [
        ("Thing", "IL001")
    ]

"""An import inside a function binds its name there, before the module's names, as Python
does: a class a constructor imports for itself (to keep a module cycle out, or an optional
dependency lazy) is the class its call builds, priced by its own construction. A rebuild
of what such a class built is heavy work when the class owns weights, light when it owns
none, and the function's import wins over a module-level binding of the same name."""

from __future__ import annotations

from pathlib import Path

import pytest

from initlint.api import Report, check

BLOCKS = """
from torch import nn


class Encoder(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.fc = nn.Linear(n_in, n_hidden)
        self.out = nn.Linear(n_hidden, n_hidden)


class Tag:
    def __init__(self, n_in, n_hidden):
        self.name = "encoder"
"""

MODEL = """
from torch import nn

from .blocks import Tag as Encoder


class VAE(nn.Module):
    def __init__(self, n_in=2000, n_hidden=128):
        super().__init__()
        {base_import}
        self.encoder = Encoder(n_in, n_hidden)


class LinearVAE(VAE):
    def __init__(self, n_in=2000, n_hidden=128):
        super().__init__(n_in, n_hidden)
        {own_import}
        self.encoder = Encoder(n_in, n_hidden)
"""


def _report(tmp_path: Path, files: dict[str, str]) -> Report:
    """A project ``pkg`` of ``files`` (name to text), checked."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "case"\n')
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(text)
    return check([tmp_path], cwd=tmp_path, use_cache=False)


def _checked(tmp_path: Path, files: dict[str, str], target: str) -> list[tuple[str, str]]:
    """The findings in ``target`` of the project ``pkg`` of ``files``."""
    report = _report(tmp_path, files)
    return [(d.code, d.severity) for d in report.diagnostics if d.path.endswith(target)]


def _findings(tmp_path: Path, base_import: str, own_import: str) -> list[tuple[str, str]]:
    model = MODEL.format(base_import=base_import, own_import=own_import)
    return _checked(tmp_path, {"blocks.py": BLOCKS, "model.py": model}, "model.py")


HEAVY = "from .blocks import Encoder"
ABSOLUTE = "from pkg.blocks import Encoder"
LIGHT = "from .blocks import Tag as Encoder"


@pytest.mark.parametrize(
    ("base_import", "own_import", "expected"),
    [
        # both constructors import the class that owns weights: a heavy rebuild
        (HEAVY, HEAVY, [("IL003", "error")]),
        (ABSOLUTE, ABSOLUTE, [("IL003", "error")]),
        # the module's own binding (a plain object) where no function imports: light
        ("pass", "pass", [("IL003", "warning")]),
        # the import inside the constructor wins over the module's binding
        (HEAVY, "pass", [("IL003", "error")]),
        (LIGHT, LIGHT, [("IL003", "warning")]),
    ],
)
def test_a_function_import_binds_the_class_its_call_builds(
    tmp_path: Path, base_import: str, own_import: str, expected: list[tuple[str, str]]
) -> None:
    assert _findings(tmp_path, base_import, own_import) == expected


POOLS = """
def make_pool(device):
    from fastlib.allocator import Allocator

    return Allocator.get_allocator(device)


def make_name(device):
    return str(device)
"""

CACHE = """
from torch import nn

from .pools import make_name, make_pool


class Cache(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.pool = {builder}(device)


class DeviceCache(Cache):
    def __init__(self, device="cpu"):
        super().__init__(device)
        self.pool = None
"""


@pytest.mark.parametrize(("builder", "expected"), [("make_pool", ["IL005"]), ("make_name", [])])
def test_a_method_of_a_class_imported_from_a_library_not_read_is_not_cheap(
    tmp_path: Path, builder: str, expected: list[str]
) -> None:
    """``Allocator.get_allocator(device)`` after a function's ``from fastlib.allocator
    import Allocator``, a library not installed: work of a cost not known, never free."""
    files = {"pools.py": POOLS, "cache.py": CACHE.format(builder=builder)}
    assert _checked(tmp_path, files, "cache.py") == [(code, "warning") for code in expected]


LAZY = """
from torch import nn


class Tiny(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.act = nn.ReLU()


class Base(nn.Module):
    def __init__(self, d=512, encoder_cls=None):
        super().__init__()
        if encoder_cls is None:
            from .blocks import Encoder as encoder_cls
        self.enc = encoder_cls(d, d)


class Child(Base):
    def __init__(self, d=512):
        super().__init__(d, encoder_cls=Tiny)
        self.enc = Tiny(d)
"""


def test_an_import_under_a_test_binds_the_name_only_where_it_runs(tmp_path: Path) -> None:
    """``if encoder_cls is None: from .blocks import Encoder as encoder_cls``: the class the
    caller passed stands where the import does not run (a light ``Tiny`` here)."""
    files = {"blocks.py": BLOCKS, "model.py": LAZY}
    assert _checked(tmp_path, files, "model.py") == [("IL003", "warning")]


SMALL = """
from torch import nn


class Encoder(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.{part} = nn.Linear(n_in, n_hidden)
"""

ARMS = """
from torch import nn


class Head(nn.Module):
    def __init__(self, fast, n_in=2048, n_hidden=2048):
        super().__init__()
        if fast:
            from .blocks import Encoder
        else:
            {other}
        self.encoder = Encoder(n_in, n_hidden)
        self.encoder.fc = nn.Linear(n_in, 2 * n_hidden)
"""


@pytest.mark.parametrize(
    ("other", "part", "expected"),
    [
        # one of two classes, each building ``fc``: thrown away whichever runs
        ("from .small import Encoder", "fc", [("IL005", "error", "definite")]),
        # only one of them builds it: on some paths
        ("from .small import Encoder", "proj", [("IL005", "error", "possible")]),
        # the other arm's class is not known here: thrown away where the known one runs
        ("from fastlib_not_installed import Encoder", "fc", [("IL005", "error", "possible")]),
        # the other arm binds no class: nothing claimed
        ("Encoder = None", "fc", []),
    ],
)
def test_a_name_imported_on_each_arm_is_one_of_their_classes(
    tmp_path: Path, other: str, part: str, expected: list[tuple[str, str, str]]
) -> None:
    """``if fast: from .blocks import Encoder`` ``else: from .small import Encoder``: calling
    the name builds one of the two, so a part both build is thrown away when replaced."""
    files = {"blocks.py": SMALL.format(part="fc"), "small.py": SMALL.format(part=part)}
    files["head.py"] = ARMS.format(other=other)
    report = _report(tmp_path, files)
    found = [
        (d.code, d.severity, d.confidence) for d in report.diagnostics if d.path.endswith("head.py")
    ]
    assert found == expected

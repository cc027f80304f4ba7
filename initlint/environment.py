"""The project's Python environment: where installed ancestors live (docs/design.md).

An import that does not resolve in the project resolves here, in the ``site-packages``
folders of the environment the project runs in, and in the paths their ``.pth`` files add.
The environment is chosen the way type checkers choose it, first match wins:

1. ``--python`` on the command line, or ``python = "..."`` in ``[tool.initlint]``: a venv
   (or conda) folder, or an interpreter;
2. ``VIRTUAL_ENV`` (an activated venv; see :func:`find_environment` for pre-commit's);
3. ``CONDA_PREFIX`` (an activated conda environment);
4. a ``.venv`` or ``venv`` folder in the project root;
5. the interpreter running initlint.

Everything is read statically: ``pyvenv.cfg`` and the folder layout say where
``site-packages`` is. A ``python`` from configuration (a file the repository carries) is
never run: an interpreter named there is read from the folders around it (its venv or conda
prefix, or a plain installation's ``lib/pythonX.Y/site-packages``), and one that cannot be
read so is an error (:class:`PythonNotRun`) that says to pass it as ``--python``. Only an
interpreter the user names on the command line, outside any venv or conda layout, is run,
as ``python -I -S`` (isolated: no project folder on its path, no ``site`` processing), and
only to print its ``site-packages`` folders; project code is never imported.

:class:`ModuleFinder` then finds a dotted module name on that path with Python's own rules:
a regular package (``__init__``) or a module beats a namespace portion, an extension
module beats a ``.py`` in the same folder (and stays unresolvable: it has no source),
namespace packages gather every portion on the path, and editable installs resolve through
their ``.pth`` lines or the ``MAPPING`` of a setuptools ``__editable__`` finder, read as a
literal; a finder that cannot be read so leaves its names unresolved.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import field
from pathlib import Path

from initlint.digest import blake2b
from initlint.errors import ConfigError
from initlint.records import dataclass

_EXTENSION_SUFFIXES = (".so", ".pyd")  # any ``name.<tag>.so`` counts: it has no source
_VERSION_DIR = re.compile(r"python(\d+)\.(\d+)t?$")
_EDITABLE_IMPORT = re.compile(r"\bimport\s+(__editable___[A-Za-z0-9_]+_finder)\b")
_DIST_INFO = re.compile(r"^(?P<name>.+?)-(?P<version>[^-]+?)\.(dist-info|egg-info)$")
STDLIB = frozenset(sys.stdlib_module_names)


class PythonNotFound(ConfigError):
    """The configured ``python`` does not exist, or no ``site-packages`` can be found in it."""


class PythonNotRun(PythonNotFound):
    """A ``python`` from configuration names a program whose ``site-packages`` cannot be read
    from the folders around it: initlint does not run what a repository names."""


@dataclass(frozen=True)
class Distribution:
    """An installed distribution, as its ``.dist-info`` folder names it."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}" if self.version else self.name


@dataclass(frozen=True)
class Environment:
    """The chosen environment: where it is, why it was chosen, and its module path."""

    source: str  # why: "--python", "python in pyproject.toml", "VIRTUAL_ENV", ...
    location: str  # the venv/conda folder or interpreter, as found
    site_dirs: tuple[Path, ...]  # the site-packages folders, in path order
    paths: tuple[Path, ...]  # site_dirs, then the folders their .pth files add
    editable: tuple[tuple[str, Path], ...] = ()  # top-level name -> folder or file
    skipped: tuple[str, ...] = ()  # candidates looked at first, and why they were passed over

    def fingerprint(self) -> str:
        """What a new, removed or upgraded distribution changes: the folders' listings
        (an install or uninstall renames entries of site-packages, so its mtime moves)."""
        h = blake2b(digest_size=12)
        for path in self.paths:
            try:
                stamp = os.stat(path).st_mtime_ns
            except OSError:
                stamp = -1
            h.update(f"{path}\0{stamp}\n".encode("utf-8", "surrogateescape"))
        for name, target in self.editable:
            h.update(f"{name}\0{target}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def describe(self) -> list[str]:
        """Lines for ``--show-settings``."""
        lines = [f"# environment: {self.location}  ({self.source})"]
        lines.extend(f"#   site-packages: {d}" for d in self.site_dirs)
        lines.extend(f"#   .pth path:     {p}" for p in self.paths if p not in self.site_dirs)
        lines.extend(f"#   editable:      {n} -> {t}" for n, t in self.editable)
        if not self.site_dirs:
            lines.append("#   (no site-packages found: installed ancestors stay unresolved)")
        lines.extend(f"#   skipped: {s}" for s in self.skipped)
        return lines


# -- discovery --------------------------------------------------------------------------


def find_environment(
    root: Path,
    python: str = "",
    python_source: str = "",
    environ: dict[str, str] | None = None,
    may_run: bool = True,
) -> Environment:
    """The project's environment (see the module docstring for the order).

    ``python``: the configured value (``--python`` or config); relative paths are taken
    from the folder of the config file that gave it, or the working directory for the
    command line (the caller makes it absolute). ``python_source`` says which gave it.
    ``may_run``: whether an interpreter named by ``python`` may be run to ask it for its
    ``site-packages`` (only for one the user typed; False for configuration, which then
    raises :class:`PythonNotRun` for an interpreter it cannot read statically).

    ``VIRTUAL_ENV`` that names the environment initlint itself runs in, outside the project,
    is taken last, as the running interpreter: pre-commit sets it to the hook's own
    isolated environment, which is not the project's.
    """
    env = os.environ if environ is None else environ
    skipped: list[str] = []
    if python:
        where = Path(python).expanduser()
        found = _from_configured(where, may_run)
        if found is None and not may_run and where.is_file():
            raise PythonNotRun(f"{python_source or 'python'}: {str(where)!r} names a program")
        if found is None:
            what = "does not exist" if not where.exists() else "holds no site-packages"
            raise PythonNotFound(
                f"{python_source or 'python'}: {str(where)!r} {what} (give a venv or conda "
                "folder, or a Python interpreter)"
            )
        return _complete(python_source or "python setting", str(where), found, skipped)
    own = _same_dir(Path(sys.prefix))
    venv = env.get("VIRTUAL_ENV", "")
    if venv:
        folder = Path(venv)
        if own is not None and _same_dir(folder) == own and not _inside(folder, root):
            skipped.append(f"VIRTUAL_ENV={venv} is initlint's own environment: taken last")
        else:
            found = _from_prefix(folder)
            if found is not None:
                return _complete("VIRTUAL_ENV", venv, found, skipped)
            skipped.append(f"VIRTUAL_ENV={venv}: no site-packages there")
    conda = env.get("CONDA_PREFIX", "")
    if conda:
        found = _from_prefix(Path(conda))
        if found is not None:
            return _complete("CONDA_PREFIX", conda, found, skipped)
        skipped.append(f"CONDA_PREFIX={conda}: no site-packages there")
    for name in (".venv", "venv"):
        folder = root / name
        if (folder / "pyvenv.cfg").is_file():
            found = _from_prefix(folder)
            if found is not None:
                return _complete(f"{name} in the project root", str(folder), found, skipped)
            skipped.append(f"{folder}: no site-packages there")
    return _complete("the interpreter running initlint", sys.executable, _running(), skipped)


def _same_dir(path: Path) -> str | None:
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def _inside(path: Path, root: Path) -> bool:
    real, top = _same_dir(path), _same_dir(root)
    return real is not None and top is not None and (real + os.sep).startswith(top + os.sep)


def _from_configured(where: Path, may_run: bool = True) -> list[Path] | None:
    """site-packages of a configured folder or interpreter; None when there is none. An
    interpreter outside a venv or conda prefix is asked only when ``may_run``; otherwise
    its installation's layout is read (:func:`_plain_layout`)."""
    if where.is_dir():
        return _from_prefix(where)
    if not where.is_file():
        return None
    exes = [where]
    real = Path(os.path.realpath(where))
    if real != where:
        exes.append(real)  # /usr/bin/python3 -> python3.11; a venv's link to its base
    for exe in exes:
        # An interpreter: bin/python (POSIX) or Scripts/python.exe (Windows) of a prefix.
        prefix = _prefix_of(exe)
        if (prefix / "pyvenv.cfg").is_file() or (prefix / "conda-meta").is_dir():
            found = _from_prefix(prefix)
            if found is not None:
                return found
    if may_run:
        return _ask_interpreter(where)
    for exe in exes:
        found = _plain_layout(exe)
        if found is not None:
            return found
    return None


_INTERPRETER_NAME = re.compile(r"python(\d+)\.(\d+)t?(?:\.exe)?$")


def _prefix_of(exe: Path) -> Path:
    return exe.parent.parent if exe.parent.name in ("bin", "Scripts") else exe.parent


def _plain_layout(exe: Path) -> list[Path] | None:
    """site-packages of an interpreter outside any venv, read from its installation's
    folders and never by running it: ``<prefix>/lib/pythonX.Y/site-packages`` (or
    ``dist-packages``; X.Y from the interpreter's name when it has one, else the newest),
    then Debian's ``<prefix>/lib/python3/dist-packages``; Windows' ``Lib/site-packages``."""
    m = _INTERPRETER_NAME.match(exe.name)
    wanted = (int(m.group(1)), int(m.group(2))) if m else None
    prefix = _prefix_of(exe)
    found = _layout_site_dirs(prefix, wanted)
    if not found:
        return None
    debian = prefix / "lib" / "python3" / "dist-packages"
    if debian.is_dir() and debian not in found:
        found.append(debian)
    return found


def _from_prefix(prefix: Path) -> list[Path] | None:
    """site-packages below a venv or conda prefix, read from the layout (and pyvenv.cfg)."""
    if not prefix.is_dir():
        return None
    cfg = _pyvenv_cfg(prefix)
    wanted = _cfg_version(cfg)
    found = _layout_site_dirs(prefix, wanted)
    if cfg.get("include-system-site-packages", "").lower() == "true":
        home = cfg.get("home", "")
        if home:
            base = Path(home)
            base = base.parent if base.name in ("bin", "Scripts") else base
            found.extend(d for d in _layout_site_dirs(base, wanted) if d not in found)
    return found or None


def _pyvenv_cfg(prefix: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        text = (prefix / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip()
    return out


def _cfg_version(cfg: dict[str, str]) -> tuple[int, int] | None:
    parts = (cfg.get("version_info") or cfg.get("version") or "").split(".")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
        return int(parts[0]), int(parts[1])
    return None


def _layout_site_dirs(prefix: Path, wanted: tuple[int, int] | None) -> list[Path]:
    windows = prefix / "Lib" / "site-packages"
    if windows.is_dir():
        return [windows]
    found: list[tuple[tuple[int, int], Path]] = []
    for lib in ("lib", "lib64"):
        try:
            names = os.listdir(prefix / lib)
        except OSError:
            continue
        for name in names:
            m = _VERSION_DIR.match(name)
            if m is None:
                continue
            for leaf in ("site-packages", "dist-packages"):
                site = prefix / lib / name / leaf
                if site.is_dir() and all(_same_dir(site) != _same_dir(p) for _, p in found):
                    found.append(((int(m.group(1)), int(m.group(2))), site))
    if wanted is not None and any(v == wanted for v, _ in found):
        found = [(v, p) for v, p in found if v == wanted]
    found.sort(key=lambda vp: vp[0], reverse=True)  # the newest Python's first
    newest = found[0][0] if found else None
    return [p for v, p in found if v == newest]


def _ask_interpreter(python: Path) -> list[Path] | None:
    """Run an interpreter (isolated, without site processing) for its site-packages."""
    import subprocess  # here: most runs never start one, and its import costs ~5 ms

    code = "import site,sys;print('\\n'.join(site.getsitepackages()))"
    try:
        out = subprocess.run(
            [str(python), "-I", "-S", "-c", code],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            cwd=os.path.dirname(str(python)) or None,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    dirs = [Path(line) for line in out.stdout.splitlines() if line.strip()]
    return [d for d in dirs if d.is_dir()] or None


def _running() -> list[Path]:
    import site

    dirs = [Path(d) for d in site.getsitepackages() if os.path.isdir(d)]
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else ""
    if user and os.path.isdir(user):
        dirs.append(Path(user))
    return dirs


def _complete(source: str, location: str, site_dirs: list[Path], skipped: list[str]) -> Environment:
    """Add the paths and editable mappings the site folders' ``.pth`` files give."""
    paths = list(site_dirs)
    editable: list[tuple[str, Path]] = []
    for site in site_dirs:
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:  # site.py reads them in this (sorted) order
            try:
                text = (site / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.startswith(("import ", "import\t")):
                    for finder in _EDITABLE_IMPORT.findall(line):
                        editable.extend(_editable_mapping(site / f"{finder}.py"))
                    continue
                folder = Path(os.path.join(site, line))
                if folder.is_dir() and folder not in paths:
                    paths.append(folder)
    return Environment(
        source, location, tuple(site_dirs), tuple(paths), tuple(editable), tuple(skipped)
    )


def _editable_mapping(finder: Path) -> list[tuple[str, Path]]:
    """The literal ``MAPPING = {name: path}`` of a setuptools editable finder, or nothing."""
    try:
        tree = ast.parse(finder.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id == "MAPPING" and value is not None:
            try:
                mapping = ast.literal_eval(value)
            except ValueError:
                return []
            if isinstance(mapping, dict):
                return [
                    (k, Path(v))
                    for k, v in mapping.items()
                    if isinstance(k, str) and isinstance(v, str) and k.isidentifier()
                ]
    return []


# -- finding modules --------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A module found in the environment. ``path`` is the source file (``__init__.py`` of
    a package), or the first folder of a namespace package (which has no source)."""

    name: str
    path: Path
    is_package: bool
    locations: tuple[Path, ...]  # where its submodules are looked for (packages only)
    dist: Distribution | None
    namespace: bool = False


BLOCKED = "blocked"  # found, but without source: an extension module, or only bytecode


@dataclass
class ModuleFinder:
    """Finds dotted module names in one environment, memoised (read-only)."""

    environment: Environment
    _found: dict[str, Found | str | None] = field(default_factory=dict)
    _listings: dict[Path, frozenset[str]] = field(default_factory=dict)
    _dists: dict[Path, _Distributions] = field(default_factory=dict)

    def find(self, name: str) -> Found | str | None:
        """The module ``name``: :class:`Found`, :data:`BLOCKED`, or None when absent."""
        if name in self._found:
            return self._found[name]
        parent, _, last = name.rpartition(".")
        result: Found | str | None
        if not parent:
            result = None if name in STDLIB else self._top(name)
        else:
            above = self.find(parent)
            if not isinstance(above, Found) or not above.is_package:
                result = None
            else:
                result = self._search(name, last, above.locations, above.dist)
        self._found[name] = result
        return result

    def _top(self, name: str) -> Found | str | None:
        found = self._search(name, name, self.environment.paths, None)
        if found is None:
            for top, target in self.environment.editable:
                if top == name:
                    return self._editable(name, target)
        return found

    def _editable(self, name: str, target: Path) -> Found | None:
        dist = self._dist_of_editable(name)
        if target.is_dir():
            init = target / "__init__.py"
            if init.is_file():
                return Found(name, init, True, (target,), dist)
            return Found(name, target, True, (target,), dist, namespace=True)
        if target.suffix == ".py" and target.is_file():
            return Found(name, target, False, (), dist)
        return None

    def _dist_of_editable(self, name: str) -> Distribution | None:
        for site in self.environment.site_dirs:
            dist = self._distributions(site).of(name)
            if dist is not None:
                return dist
        return None

    def _listing(self, folder: Path) -> frozenset[str]:
        names = self._listings.get(folder)
        if names is None:
            try:
                names = frozenset(os.listdir(folder))
            except OSError:
                names = frozenset()
            self._listings[folder] = names
        return names

    def _search(
        self,
        name: str,
        last: str,
        locations: tuple[Path, ...],
        dist: Distribution | None,
    ) -> Found | str | None:
        portions: list[Path] = []
        for folder in locations:
            names = self._listing(folder)
            if last in names:
                pkg = folder / last
                inner = self._listing(pkg)
                if "__init__.py" in inner:
                    return Found(name, pkg / "__init__.py", True, (pkg,), dist or self._dist(pkg))
                if any(n.startswith("__init__.") for n in inner):
                    return BLOCKED  # a compiled package (__init__.so, __init__.pyc)
            compiled = any(
                n.startswith(last + ".") and n.endswith(_EXTENSION_SUFFIXES) for n in names
            )
            if compiled:
                return BLOCKED  # extension modules come before sources in a folder
            if last + ".py" in names:
                path = folder / (last + ".py")
                return Found(name, path, False, (), dist or self._dist(path))
            if last + ".pyc" in names:
                return BLOCKED
            if last in names and (folder / last).is_dir():
                portions.append(folder / last)
        if portions:
            return Found(name, portions[0], True, tuple(portions), dist, namespace=True)
        return None

    def _dist(self, path: Path) -> Distribution | None:
        """The distribution a top-level module or package in a site folder belongs to."""
        folder, top = path.parent, path.stem if path.suffix == ".py" else path.name
        return self._distributions(folder).of(top)

    def _distributions(self, folder: Path) -> _Distributions:
        found = self._dists.get(folder)
        if found is None:
            found = self._dists[folder] = _Distributions(folder, self._listing(folder))
        return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


class _Distributions:
    """The ``.dist-info`` folders of one site folder, and which owns a top-level name: by
    its own name first, then ``top_level.txt``, then its ``RECORD`` (read once, on need)."""

    def __init__(self, folder: Path, names: frozenset[str]) -> None:
        self.folder = folder
        self.infos: list[tuple[str, Distribution]] = []
        for entry in sorted(names):
            m = _DIST_INFO.match(entry)
            if m is not None:
                self.infos.append((entry, Distribution(m.group("name"), m.group("version"))))
        self.by_name = {_normal(d.name): d for _, d in self.infos}
        self._tops: dict[str, Distribution] | None = None

    def of(self, top: str) -> Distribution | None:
        found = self.by_name.get(_normal(top))
        if found is not None:
            return found
        if self._tops is None:
            self._tops = self._read_tops()
        return self._tops.get(top)

    def _read_tops(self) -> dict[str, Distribution]:
        tops: dict[str, Distribution] = {}
        for entry, dist in self.infos:
            info = self.folder / entry
            try:
                text = (info / "top_level.txt").read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            for line in text.splitlines():
                tops.setdefault(line.strip(), dist)
        for entry, dist in self.infos:
            try:
                text = (self.folder / entry / "RECORD").read_text(
                    encoding="utf-8", errors="replace"
                )
            except OSError:
                continue
            for line in text.splitlines():
                path = line.split(",", 1)[0]
                first = path.split("/", 1)[0]
                if first.endswith(".py"):
                    first = first[:-3]
                elif "/" not in path or first.endswith((".dist-info", ".data")) or first == "..":
                    continue
                if first.isidentifier():
                    tops.setdefault(first, dist)
        return tops

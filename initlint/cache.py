"""On-disk caches under ``.initlint_cache/`` in the project root (DESIGN §8).

Facts are keyed by content hash, initlint version, the extractor's own source and settings;
located ranges by content hash and region. Entries are written to a temp file and moved into
place with os.replace, so concurrent runs never see a half-written entry; an entry that fails
to load (truncated, garbage, a foreign object) is ignored, recomputed and rewritten.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from initlint import __version__
from initlint.facts.model import ModuleFacts

CACHE_DIR = ".initlint_cache"


def source_fingerprint(*modules: ModuleType) -> str:
    """Hash of some modules' own source: editing them invalidates the entries they wrote."""
    h = hashlib.blake2b(digest_size=6)
    for mod in modules:
        h.update(Path(mod.__file__ or "").read_bytes())
    return h.hexdigest()


def _code_fingerprint() -> str:
    from initlint.facts import extract, model, skeleton

    return source_fingerprint(extract, model, skeleton)


FORMAT = _code_fingerprint()


def _mkstemp(folder: Path) -> tuple[int, str]:
    import tempfile  # only runs that write the cache need it

    return tempfile.mkstemp(dir=folder, prefix=".tmp-")


def content_key(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


class BlobCache:
    """Pickled values under ``root/.initlint_cache/<name>/``, one file per key."""

    def __init__(self, root: Path, name: str, enabled: bool = True) -> None:
        self.enabled = enabled
        self.dir = root / CACHE_DIR / name
        self._made = False
        self._dirs: set[Path] = set()  # folders known to exist (a mkdir each costs a syscall)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def load(self, key: str) -> object | None:
        if not self.enabled:
            return None
        try:
            with open(self._path(key), "rb") as fh:
                value: object = pickle.load(fh)
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 - corrupt or foreign entry: ignored, then rewritten
            return None
        return value

    def store(self, key: str, value: object) -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            if path.parent not in self._dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._dirs.add(path.parent)
            if not self._made:
                self._mark()
            fd, tmp = _mkstemp(path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, RecursionError, pickle.PicklingError, TypeError, ValueError):
            pass  # a read-only tree or a pathological file: run without caching it

    def _mark(self) -> None:
        """Tag the cache folder for backup tools and git (written once, content is fixed)."""
        top = self.dir.parent
        for name, text in (
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"),
            (".gitignore", "*\n"),
        ):
            if not (top / name).exists():
                fd, tmp = _mkstemp(top)
                with os.fdopen(fd, "w") as fh:
                    fh.write(text)
                os.replace(tmp, top / name)
        self._made = True


class FactsCache(BlobCache):
    def __init__(self, root: Path, fingerprint: str, enabled: bool = True) -> None:
        super().__init__(root, f"facts-{__version__}-{FORMAT}-{fingerprint}", enabled)

    def key(self, data: bytes) -> str:
        return content_key(data)

    def get(self, key: str) -> ModuleFacts | None:
        value = self.load(key)
        return value if isinstance(value, ModuleFacts) else None

    def put(self, key: str, facts: ModuleFacts) -> None:
        self.store(key, facts)


@functools.cache
def _package_fingerprint() -> str:
    """Stamp of all of initlint's source files (name, size, mtime): results depend on every
    stage, not on the facts only. Cheaper than hashing the bytes, and an edit or a
    reinstall changes it."""
    h = hashlib.blake2b(digest_size=6)
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(package).as_posix()}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


class ResultsCache(BlobCache):
    """Per-file check results of the last run, in one entry (DESIGN §8): a warm run reuses
    a file's diagnostics while nothing in its import closure changed (``index/deps.py``).

    The entry holds a table of ``(path, content key)`` for every module the run loaded,
    and for each report file its content key, the bitmask of its closure over that table
    and its diagnostics before selection and suppression. Keyed by settings and the
    project's module map: a new, moved or deleted module starts it afresh.
    """

    def __init__(self, root: Path, fingerprint: str, enabled: bool = True) -> None:
        name = f"results-{__version__}-{_package_fingerprint()}-{fingerprint}"
        super().__init__(root, name, enabled)

    def read(self, module_map: str) -> StoredResults | None:
        value = self.load(module_map)
        return value if isinstance(value, StoredResults) else None

    def write(self, module_map: str, results: StoredResults) -> None:
        self.store(module_map, results)


@dataclass(frozen=True)
class StoredResults:
    table: tuple[tuple[str, str], ...]  # (absolute path, content key) by bit number
    files: dict[str, tuple[str, int, tuple[object, ...]]]  # path -> (key, mask, partials)
    # path -> (size, mtime_ns) when its table key was known to hold; such a file is not
    # read again while its stat is the same (recorded only for files older than the run)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)

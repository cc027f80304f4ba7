"""On-disk facts cache keyed by content hash, initlint version and settings (DESIGN §8).

Entries are written to a temp file and moved into place with os.replace, so concurrent runs
never see a half-written entry; an entry that fails to load is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from initlint import __version__
from initlint.facts.model import ModuleFacts

CACHE_DIR = ".initlint_cache"


def _code_fingerprint() -> str:
    """Hash of the fact extractor's own source: editing it invalidates old entries."""
    from initlint.facts import extract, model

    h = hashlib.blake2b(digest_size=6)
    for mod in (extract, model):
        h.update(Path(mod.__file__ or "").read_bytes())
    return h.hexdigest()


FORMAT = _code_fingerprint()


class FactsCache:
    def __init__(self, root: Path, fingerprint: str, enabled: bool = True) -> None:
        self.enabled = enabled
        self.dir = root / CACHE_DIR / f"facts-{__version__}-{FORMAT}-{fingerprint}"
        self._made = False

    def key(self, data: bytes) -> str:
        return hashlib.blake2b(data, digest_size=20).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> ModuleFacts | None:
        if not self.enabled:
            return None
        try:
            with open(self._path(key), "rb") as fh:
                value = pickle.load(fh)
        except FileNotFoundError:
            return None
        except Exception:  # corrupt or foreign entry: ignore it, it gets rewritten
            return None
        return value if isinstance(value, ModuleFacts) else None

    def put(self, key: str, facts: ModuleFacts) -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not self._made:
                tag = self.dir.parent / "CACHEDIR.TAG"
                if not tag.exists():
                    tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
                gitignore = self.dir.parent / ".gitignore"
                if not gitignore.exists():
                    gitignore.write_text("*\n")
                self._made = True
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(facts, fh, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, RecursionError, pickle.PicklingError):
            pass  # a read-only tree or a pathological file: run without caching it

"""The per-user key that authenticates what initlint wrote to a project's ``.initlint_cache``.

A project folder is not trusted: a repository can carry a ``.initlint_cache`` of its own
(committed with ``git add -f``, in an archive, on a pull request's branch). Every entry a
store writes is therefore tagged with a keyed BLAKE2b over (the store, the project, the entry
key, the bytes), and every entry read is checked against its tag *before* anything decodes
it: an entry initlint did not write for this user, this project and this slot is a miss,
recomputed and rewritten. Only then are the bytes unpickled.

The key lives outside every project, in the user's cache folder
(``$INITLINT_KEY_DIR``, else ``$XDG_CACHE_HOME/initlint``, else ``~/.cache/initlint``;
``%LOCALAPPDATA%\\initlint`` on Windows): 32 random bytes in ``cache-key``, mode 0600,
created once. A key file that is not a regular file of this user, readable by no one else,
of the right size, is replaced. When no key can be read or created (a read-only home), runs
go without a cache: slower, never trusting.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from _operator import _compare_digest  # hmac's: `import hmac` loads OpenSSL
from pathlib import Path

from initlint.digest import blake2b

KEY_FILE = "cache-key"
KEY_SIZE = 32
TAG_SIZE = 16  # bytes of BLAKE2b tag before each entry


def key_dir() -> Path:
    """The folder that holds the key (not created here)."""
    override = os.environ.get("INITLINT_KEY_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return Path(base) / "initlint"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.expanduser("~/.cache")
    return Path(base) / "initlint"


@functools.cache
def user_key() -> bytes | None:
    """This user's key, created on first use; None when it can be neither read nor made, or
    when the key folder is not an absolute path (no home: ``~`` would be taken from the
    working directory, which may be the project itself)."""
    folder = key_dir()
    if not folder.is_absolute():
        return None
    path = folder / KEY_FILE
    key = _read_key(path)
    if key is not None:
        return key
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = os.urandom(KEY_SIZE)  # what secrets.token_bytes returns
        tmp = folder / f".{KEY_FILE}-{os.getpid()}-{os.urandom(4).hex()}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(fresh)
            try:
                os.link(tmp, path)  # a first run racing another: one key wins, both use it
            except FileExistsError:
                if _read_key(path) is None:  # a key file not fit to trust: replaced
                    os.replace(tmp, path)
            except OSError:  # no hard links here (some network and Windows file systems)
                os.replace(tmp, path)
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    except OSError:
        return None
    return _read_key(path)


def _read_key(path: Path) -> bytes | None:
    """The key in ``path`` if it is a regular file of this user that no one else can read
    or write, holding exactly :data:`KEY_SIZE` bytes; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != KEY_SIZE:
            return None
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            return None
        data = os.read(fd, KEY_SIZE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == KEY_SIZE else None


class Sealer:
    """Tags and checks the entries of one store: the tag binds an entry's bytes to this
    user's key, the store's name and the project folder (``context``), and the entry's key,
    so an entry moved to another key, store or project does not verify."""

    __slots__ = ("_base",)

    def __init__(self, key: bytes, context: str) -> None:
        base = blake2b(key=key, digest_size=TAG_SIZE, person=b"initlint-cache")
        base.update(context.encode("utf-8", "surrogateescape") + b"\0")
        self._base = base

    def tag(self, entry: str, data: bytes | memoryview) -> bytes:
        h = self._base.copy()
        h.update(entry.encode("utf-8", "surrogateescape") + b"\0")
        h.update(data)
        return h.digest()

    def seal(self, entry: str, data: bytes) -> bytes:
        """``data`` with its tag in front: what goes on disk."""
        return self.tag(entry, data) + data

    def open(self, entry: str, sealed: bytes) -> bytes | None:
        """The bytes of an entry read from disk, or None when its tag does not verify."""
        if not isinstance(sealed, bytes) or len(sealed) < TAG_SIZE:
            return None
        body = memoryview(sealed)[TAG_SIZE:]
        if not _compare_digest(self.tag(entry, body), sealed[:TAG_SIZE]):
            return None
        return bytes(body)


def sealer(top: Path, store: str) -> Sealer | None:
    """A :class:`Sealer` for the store ``store`` in the cache folder ``top``; None when there
    is no user key (the store then runs disabled)."""
    key = user_key()
    if key is None:
        return None
    try:
        project = os.path.realpath(top)
    except OSError:
        project = os.path.abspath(top)
    return Sealer(key, f"{project}\0{store}")

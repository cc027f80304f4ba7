"""Reading source files: bytes, decoding with the coding cookie, and read failures."""

from __future__ import annotations

import ast
import io
import os
import stat
import textwrap
import tokenize
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from initlint.records import dataclass

# Unsaved editor buffers (the language server's open documents), by absolute normalised
# path: while set, they are what every stage reads for those files instead of the disk.
_OVERLAY: dict[str, bytes] = {}


@dataclass(frozen=True)
class Source:
    """A file's bytes and their decoded text."""

    path: Path
    data: bytes
    text: str
    encoding: str


class UnreadableError(Exception):
    """The file cannot be read or decoded (IL901)."""


def _overlay_key(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(path))


@contextmanager
def overlaid(files: Mapping[Path, bytes]) -> Iterator[None]:
    """Read ``files`` from the given bytes instead of the disk while the block runs (one
    overlay at a time: the language server analyses one request after another)."""
    if _OVERLAY:
        raise RuntimeError("an overlay is already active")
    _OVERLAY.update({_overlay_key(p): data for p, data in files.items()})
    try:
        yield
    finally:
        _OVERLAY.clear()


def is_overlaid(path: Path | str) -> bool:
    """Whether ``path`` is read from an editor buffer now (its content is not the disk's:
    nothing derived from it may be stored as the file's)."""
    return bool(_OVERLAY) and _overlay_key(path) in _OVERLAY


def overlay_active() -> bool:
    return bool(_OVERLAY)


def read_bytes(path: Path) -> bytes:
    if _OVERLAY:
        data = _OVERLAY.get(_overlay_key(path))
        if data is not None:
            return data
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableError("not a regular file")
        return path.read_bytes()
    except PermissionError as exc:
        raise UnreadableError(f"permission denied: {exc.strerror or exc}") from exc
    except OSError as exc:
        raise UnreadableError(exc.strerror or str(exc)) from exc


def decode(data: bytes) -> tuple[str, str]:
    """Decode like the interpreter does (BOM, coding cookie, default UTF-8)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, ValueError) as exc:  # ValueError: any UnicodeError
        raise UnreadableError(f"cannot decode: {exc}") from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


def read_source(path: Path) -> Source:
    data = read_bytes(path)
    text, encoding = decode(data)
    return Source(path, data, text, encoding)


def source_lines(path: Path, line: int, end_line: int) -> str | None:
    """Lines ``line`` to ``end_line`` (1-based) of the file, dedented, when they read as
    Python on their own (a whole statement or function); None when the file is unreadable
    or they do not parse."""
    parsed = _parsed_lines(path, line, end_line)
    return parsed[0] if parsed is not None else None


def source_tree(path: Path, line: int, end_line: int) -> ast.Module | None:
    """``source_lines``, parsed."""
    parsed = _parsed_lines(path, line, end_line)
    return parsed[1] if parsed is not None else None


def _parsed_lines(path: Path, line: int, end_line: int) -> tuple[str, ast.Module] | None:
    try:
        text = read_source(path).text
    except UnreadableError:
        return None
    chunk = textwrap.dedent("\n".join(text.splitlines()[line - 1 : end_line]))
    try:
        return chunk, ast.parse(chunk)
    except SyntaxError:
        return None

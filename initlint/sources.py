"""Reading source files: bytes, decoding with the coding cookie, and read failures."""

from __future__ import annotations

import io
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    """A file's bytes and their decoded text."""

    path: Path
    data: bytes
    text: str
    encoding: str


class UnreadableError(Exception):
    """The file cannot be read or decoded (IL901)."""


def read_bytes(path: Path) -> bytes:
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

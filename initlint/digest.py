"""``blake2b``, taken from CPython's built-in module: ``import hashlib`` loads OpenSSL
(``_hashlib``, about 5 % of a warm check's start-up) even for the hashes it has built in."""

from __future__ import annotations

try:
    from _blake2 import blake2b as blake2b
except ImportError:  # pragma: no cover - a Python built without its own hashes
    from hashlib import blake2b as blake2b

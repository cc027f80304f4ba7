"""Resolved settings: defaults, then ``[tool.initlint]`` in pyproject.toml, then CLI flags."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


class ConfigError(Exception):
    """A bad configuration value; the message names the key and the file."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("IL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    src: tuple[str, ...] = ()
    expensive_calls: tuple[str, ...] = ()
    cheap_calls: tuple[str, ...] = ()
    flag_name: str = ""
    config_file: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return (*self.exclude, *self.extend_exclude)

    def fingerprint(self) -> str:
        """Hash of what can change analysis results (used by the facts cache key)."""
        data = asdict(self)
        data.pop("sources", None)
        data.pop("config_file", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


_LIST_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "src": "src",
    "expensive-calls": "expensive_calls",
    "cheap-calls": "cheap_calls",
}
KNOWN_KEYS = (*_LIST_KEYS, "per-file-ignores", "flag-name")


def load_settings(root: Path) -> Settings:
    path = root / "pyproject.toml"
    if not path.is_file():
        return Settings()
    return load_settings_file(path)


def load_settings_file(path: Path) -> Settings:
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    table = data.get("tool", {}).get("initlint")
    if table is None:
        return Settings()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.initlint] must be a table")
    return parse_table(table, str(path))


def _str_list(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: [tool.initlint] {key} must be a list of strings")
    return tuple(value)


def parse_table(table: dict[str, Any], where: str) -> Settings:
    kwargs: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, value in table.items():
        if key in _LIST_KEYS:
            kwargs[_LIST_KEYS[key]] = _str_list(value, key, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [tool.initlint] per-file-ignores must be a table")
            kwargs["per_file_ignores"] = tuple(
                (pat, _str_list(codes, f"per-file-ignores.{pat}", where))
                for pat, codes in value.items()
            )
        elif key == "flag-name":
            if not isinstance(value, str) or not value.isidentifier():
                raise ConfigError(
                    f"{where}: [tool.initlint] flag-name must be a Python identifier, got {value!r}"
                )
            kwargs["flag_name"] = value
        else:
            known = ", ".join(KNOWN_KEYS)
            raise ConfigError(f"{where}: unknown key {key!r} in [tool.initlint] (known: {known})")
        sources[key] = where
    from initlint.rules import REGISTRY

    for key in ("select", "ignore", "extend_select"):
        for code in kwargs.get(key, ()):
            if code != "ALL" and not any(c.startswith(code) for c in REGISTRY):
                raise ConfigError(f"{where}: [tool.initlint] {key}: unknown rule code {code!r}")
    return replace(Settings(), config_file=where, sources=sources, **kwargs)

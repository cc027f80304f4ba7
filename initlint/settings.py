"""Resolved settings: defaults, then ``[tool.initlint]`` in pyproject.toml, then CLI flags."""

from __future__ import annotations

from dataclasses import asdict, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from initlint.digest import blake2b
from initlint.errors import ConfigError as ConfigError  # (re-exported: callers catch it)
from initlint.records import dataclass


@dataclass(frozen=True)
class Settings:
    """The options of a run, as ``initlint check --show-settings`` prints them."""

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
    python: str = ""  # the project's environment: a venv/conda folder or an interpreter
    respect_gitignore: bool = True  # skip files a .gitignore (or git's excludes) ignores
    dependents: bool = True  # also report project files whose result depends on a given one
    # "warning" shows every finding; "error" only those about heavy work (docs/design.md)
    min_severity: str = "warning"
    # report on transformers-style templates (modular_*.py a generated file names)?
    check_templates: bool = False
    config_file: str = ""
    # option name (kebab-case) -> where its value came from: a file path or "command line"
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return (*self.exclude, *self.extend_exclude)

    def fingerprint(self) -> str:
        """Hash of what can change analysis results (used by the facts cache key)."""
        data = asdict(self)
        data.pop("sources", None)
        data.pop("config_file", None)
        data.pop("python", None)  # facts do not depend on it (results are keyed by it)
        # Which files are checked, not what a file's analysis says: the caches stay valid.
        data.pop("respect_gitignore", None)
        data.pop("dependents", None)
        data.pop("min_severity", None)  # filters the output only: results stay the same
        return blake2b(repr(_canonical(data)).encode(), digest_size=8).hexdigest()

    def ignored_in_file(self, code: str, paths: tuple[str, ...]) -> bool:
        """True when per-file-ignores switch ``code`` off for a file known by any of ``paths``.

        A pattern matches a path (relative to the root, or as displayed) or, when it holds
        no ``/``, the file name alone: ``"__init__.py" = ["IL001"]`` applies everywhere.
        """
        return any(
            code_selected(code, codes)
            for pattern, codes in self.per_file_ignores
            if any(path_matches(pattern, p) for p in paths)
        )


def severity_shown(severity: str, minimum: str) -> bool:
    """Whether a diagnostic of ``severity`` passes ``min-severity = minimum``."""
    return SEVERITIES.index(severity) >= SEVERITIES.index(minimum)


def path_matches(pattern: str, path: str) -> bool:
    """Glob match of a POSIX path; a pattern without ``/`` also matches the file name."""
    pattern = pattern.removeprefix("./")
    if fnmatchcase(path, pattern):
        return True
    return "/" not in pattern and fnmatchcase(path.rsplit("/", 1)[-1], pattern)


def code_selected(code: str, prefixes: tuple[str, ...]) -> bool:
    """Ruff-style prefix match: ``IL0`` covers IL001-IL005, ``ALL`` covers everything."""
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


# key in [tool.initlint] -> Settings field, for the keys whose value is a list of strings
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
_CODE_KEYS = ("select", "ignore", "extend-select")
# key -> Settings field, for the keys whose value is true or false
_BOOL_KEYS = {"respect-gitignore": "respect_gitignore", "dependents": "dependents"}
KNOWN_KEYS = (
    *_LIST_KEYS,
    "per-file-ignores",
    "flag-name",
    "python",
    *_BOOL_KEYS,
    "min-severity",
    "check-templates",
)
SEVERITIES = ("warning", "error")  # lowest first


def load_settings(root: Path) -> Settings:
    path = root / "pyproject.toml"
    if not path.is_file():
        return Settings()
    return load_settings_file(path)


def load_settings_file(path: Path) -> Settings:
    """Settings from a file: ``[tool.initlint]`` of a ``pyproject.toml``; any other file
    (``initlint.toml``, say) holds the keys at its top level, as ``ruff.toml`` does."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    import tomllib  # here, not at the top: a project without pyproject.toml never needs it

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    if path.name != "pyproject.toml":
        tool = data.get("tool")
        if isinstance(tool, dict) and "initlint" in tool and len(data) == 1:
            pass  # a copy of a pyproject.toml's table: read it as such
        else:
            return parse_table(data, str(path), table_name="")
    tool = data.get("tool", {})
    table = tool.get("initlint") if isinstance(tool, dict) else None
    if table is None:
        return Settings()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.initlint] must be a table")
    return parse_table(table, str(path))


def parse_inline(text: str) -> Settings:
    """``--config "KEY = VALUE"``: one TOML assignment of a settings key (as ruff takes)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = f"--config {text!r}: neither a file nor a TOML `key = value`: {exc}"
        raise ConfigError(msg) from exc
    return parse_table(data, "--config", table_name="")


def _str_list(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        got = type(value).__name__
        raise ConfigError(f"{where}: {key} must be a list of strings, got {got} {value!r}")
    return tuple(value)


def unknown_codes(codes: tuple[str, ...]) -> list[str]:
    """The entries of ``codes`` that are neither ``ALL`` nor a prefix of a registered code."""
    if not codes:  # (no rule module is imported for nothing: the check imports them later)
        return []
    from initlint.rules import REGISTRY

    return [c for c in codes if c != "ALL" and not any(r.startswith(c) for r in REGISTRY)]


def _codes(value: Any, key: str, where: str) -> tuple[str, ...]:
    codes = _str_list(value, key, where)
    bad = unknown_codes(codes)
    if bad:
        raise ConfigError(f"{where}: {key}: unknown rule code {bad[0]!r} (see `initlint rules`)")
    return codes


def _unknown_key(key: str, where: str, table_name: str) -> ConfigError:
    import difflib  # only for a misspelt key

    close = difflib.get_close_matches(key.replace("_", "-"), KNOWN_KEYS, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(KNOWN_KEYS)})"
    inside = f" in [{table_name}]" if table_name else ""
    return ConfigError(f"{where}: unknown key {key!r}{inside}{hint}")


def parse_table(table: dict[str, Any], where: str, table_name: str = "tool.initlint") -> Settings:
    """Settings from a table of keys; ``where`` and ``table_name`` name it in errors."""
    where = f"{where}: [{table_name}]" if table_name else where
    settings = _parse(table, where, table_name)
    return replace(settings, config_file=where.split(": [", 1)[0])


def _parse(table: dict[str, Any], where: str, table_name: str) -> Settings:
    kwargs: dict[str, Any] = {}
    for key, value in table.items():
        if key in _CODE_KEYS:
            kwargs[_LIST_KEYS[key]] = _codes(value, key, where)
        elif key in _LIST_KEYS:
            kwargs[_LIST_KEYS[key]] = _str_list(value, key, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: per-file-ignores must be a table")
            kwargs["per_file_ignores"] = tuple(
                (pat, _codes(codes, f"per-file-ignores.{pat!r}", where))
                for pat, codes in value.items()
            )
        elif key == "flag-name":
            if not isinstance(value, str) or not value.isidentifier():
                raise ConfigError(f"{where}: flag-name must be a Python identifier, got {value!r}")
            kwargs["flag_name"] = value
        elif key == "python":
            if not isinstance(value, str) or not value:
                raise ConfigError(
                    f"{where}: python must be a path (a venv folder or an "
                    f"interpreter), got {value!r}"
                )
            kwargs["python"] = value
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
            kwargs[_BOOL_KEYS[key]] = value
        elif key == "min-severity":
            if value not in SEVERITIES:
                raise ConfigError(
                    f"{where}: [tool.initlint] min-severity must be one of "
                    f"{', '.join(map(repr, SEVERITIES))}, got {value!r}"
                )
            kwargs["min_severity"] = value
        elif key == "check-templates":
            if not isinstance(value, bool):
                raise ConfigError(
                    f"{where}: [tool.initlint] check-templates must be true or false, got {value!r}"
                )
            kwargs["check_templates"] = value
        else:
            raise _unknown_key(key, where.split(": [", 1)[0], table_name)
    source = where.split(": [", 1)[0]
    sources = {key: source for key in table}
    return replace(Settings(), sources=sources, **kwargs)


def with_overrides(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """Apply command-line values (keyed by Settings field) on top of ``settings``."""
    sources = dict(settings.sources)
    sources.update({k.replace("_", "-"): "command line" for k in overrides})
    return replace(settings, sources=sources, **overrides)


def _canonical(value: object) -> object:
    """``value`` with every dict's items in key order: its ``repr`` is then the same for
    equal settings (a fingerprint without ``json``, which a check does not import)."""
    if isinstance(value, dict):
        return sorted((str(k), _canonical(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def _toml_value(value: Any) -> str:
    import json  # (--show-settings only)

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(json.dumps(v) for v in value) + "]"


def format_settings(settings: Settings, root: Path) -> str:
    """The resolved settings as TOML, each value annotated with where it came from."""
    import json  # (--show-settings only)

    lines = [
        f"# project root: {root}",
        f"# config file:  {settings.config_file or '(none; defaults)'}",
        "[tool.initlint]",
    ]
    for key in KNOWN_KEYS:
        if key == "per-file-ignores":
            continue
        value = getattr(settings, key.replace("-", "_"))
        lines.append(f"{key} = {_toml_value(value)}  # {settings.sources.get(key, 'default')}")
    lines.append("")
    source = settings.sources.get("per-file-ignores", "default")
    lines.append(f"[tool.initlint.per-file-ignores]  # {source}")
    for pattern, codes in settings.per_file_ignores:
        lines.append(f"{json.dumps(pattern)} = {_toml_value(codes)}")
    return "\n".join(lines) + "\n"

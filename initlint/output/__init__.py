"""Renderers: each turns diagnostics into one output format (``check --format NAME``).

A renderer's module is imported when its format is used: a text run does not pay for
JSON's or SARIF's imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence

from initlint.diagnostics import Diagnostic

# (diagnostics, colour) -> the whole report
Renderer = Callable[[Sequence[Diagnostic], bool], str]

_WHERE = {
    "github": ("initlint.output.github", "render_github"),
    "json": ("initlint.output.json_format", "render_json"),
    "sarif": ("initlint.output.sarif", "render_sarif"),
    "text": ("initlint.output.text", "render_text"),
}


class _Renderers(Mapping[str, Renderer]):
    """Format name -> renderer, importing the renderer's module on first use."""

    def __getitem__(self, name: str) -> Renderer:
        module, attr = _WHERE[name]
        found: Renderer = getattr(importlib.import_module(module), attr)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(_WHERE)

    def __len__(self) -> int:
        return len(_WHERE)


RENDERERS: Mapping[str, Renderer] = _Renderers()

__all__ = ["RENDERERS", "Renderer"]

"""Renderers: each turns diagnostics into one output format."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from initlint.diagnostics import Diagnostic
from initlint.output.json_format import render_json
from initlint.output.text import render_text

Renderer = Callable[[Sequence[Diagnostic], bool], str]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
}

__all__ = ["RENDERERS", "Renderer", "render_json", "render_text"]

"""Renderers: each turns diagnostics into one output format (``check --format NAME``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from initlint.diagnostics import Diagnostic
from initlint.output.github import render_github
from initlint.output.json_format import render_json
from initlint.output.sarif import render_sarif
from initlint.output.text import render_text

# (diagnostics, colour) -> the whole report
Renderer = Callable[[Sequence[Diagnostic], bool], str]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}

__all__ = ["RENDERERS", "Renderer", "render_github", "render_json", "render_sarif", "render_text"]

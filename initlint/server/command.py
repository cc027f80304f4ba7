"""The ``initlint server`` command."""

from __future__ import annotations

import sys

import click


@click.command()
@click.option(
    "--debounce",
    type=click.FloatRange(min=0.0),
    default=0.0,
    show_default=True,
    help="Seconds to wait after a change for more changes before analysing.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes for reading files the cache does not hold yet.",
)
def server(debounce: float, jobs: int) -> None:
    """Run the language server over stdin/stdout (for editors; see the README).

    Diagnostics on open, change and save (unsaved text counts; editing a base class
    refreshes its subclasses' open files), code actions for each fix (unsafe ones say so),
    hover and related information at the ancestor statement. Settings come from the
    project's [tool.initlint]. Needs the `lsp` extra: pip install 'initlint[lsp]'.
    """
    try:
        from initlint.server.lsp import serve
    except ImportError as exc:
        click.echo(
            f"error: initlint server needs the lsp extra ({exc.name or exc} is missing): "
            "pip install 'initlint[lsp]'",
            err=True,
        )
        sys.exit(2)
    serve(debounce=debounce, jobs=jobs)

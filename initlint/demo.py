"""``initlint demo``: check and fix the shipped DeepSeek V4 rotary-embedding example."""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

import click

from initlint.driver import analyze
from initlint.fix.api import run_fix
from initlint.fix.propose import fix_planner
from initlint.output.text import render_text

EXAMPLE = "deepseek_v4"


def copy_example(dest: Path) -> Path:
    """Copy the buggy example project into ``dest`` and return its root."""
    src = resources.files("initlint") / "examples" / EXAMPLE
    root = dest / EXAMPLE
    with resources.as_file(src) as path:
        shutil.copytree(path, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml.txt").rename(root / "pyproject.toml")
    return root


@click.command()
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Copy the example here (and keep it) instead of a temporary folder.",
)
def demo(keep: Path | None) -> None:
    """Check the shipped buggy DeepSeek V4 rotary embedding and show the fix as a diff.

    The example has vLLM's bug: the YaRN class swallows `init_cache`, so the V4 subclass
    builds and registers its cos/sin cache twice. Nothing is written outside a temporary
    copy (or --keep DIR).
    """
    with tempfile.TemporaryDirectory() as tmp:
        base = keep if keep is not None else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        root = copy_example(base)
        analysis = analyze([root], cwd=root, use_cache=False, fix_planner=fix_planner)
        click.echo(f"$ initlint check   (in {root})")
        click.echo(render_text(analysis.diagnostics, sys.stdout.isatty()), nl=False)
        click.echo()
        click.echo("$ initlint fix --unsafe-fixes --diff")
        _, outcome, _ = run_fix([root], unsafe=True, write=False, use_cache=False, cwd=root)
        for change in outcome.changes:
            click.echo(change.diff(analysis.display(change.path)), nl=False)
        n = len(analysis.diagnostics)
        click.echo(
            f"\n{n} finding{'s' if n != 1 else ''}; the diff above is the fix vLLM made by hand."
        )

"""The ``initlint trace`` command. Imports torch only when it runs."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from .paths import display_path
from .render import render_model_text, render_text
from .target import TargetError, make_factory, one_line, parse_target
from .tracer import DeviceUnavailableError, trace_init
from .whole import trace_model

NO_TORCH = "initlint trace needs torch: pip install 'initlint[rope]'"

HELP = """Construct an object once and report the work its __init__ chain repeats.

TARGET is 'module:Expression'. MODULE is imported (the current directory and each --path are
put first on sys.path), then the expression is evaluated with the module's names and `torch` in
scope. A bare 'module:Class' is called with no arguments.

trace EXECUTES the call you give it (importing MODULE runs its code); check, fix and server
never execute repository code.

Recorded on the constructed object: register_buffer / register_parameter and tensor attribute
assignments (by name, with bytes), calls of project methods (code below the class's top package),
wall time and peak memory (the CUDA allocator with --device cuda; on CPU the bytes malloc has
handed out, glibc's mallinfo2, sampled every millisecond). An item is repeated when the same
kind and name happen more than once; its wasted bytes are those of every occurrence but the
last. Sites are shown relative to the current folder, in text and JSON alike.

--device meta builds every tensor on PyTorch's meta device: shapes and dtypes, no storage. Bytes
are priced from them, so a full-size model costs no memory; peak memory is not measured there.

--all-modules records every module (and project object) built during the call, each on its own,
ranks their classes by wasted bytes, counts waste inside a replaced submodule once (under the
repeat that replaced it), and names the `initlint check` finding (code, file:line) that predicted
each repeat, if any.

\b
Examples:
  initlint trace 'mypkg.rope:Rope(64, max_positions=4096)'
  initlint trace 'mypkg.rope:Rope(64, dtype=torch.bfloat16)' --device cuda
  initlint trace 'model:Net' --path src --format json
  initlint trace 'model:Net(layers=80)' --device meta --all-modules

Exit codes: 0 no repeated work, 1 repeated work found, 2 error.
"""


class _FactoryFailed(Exception):
    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@contextmanager
def _import_paths(paths: tuple[str, ...]) -> Iterator[None]:
    saved = sys.path[:]
    sys.path[:0] = [os.path.abspath(p) for p in paths] + [os.getcwd()]
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path[:] = saved


def _fail(message: str) -> NoReturn:
    click.echo(message, err=True)
    click.get_current_context().exit(2)


def _guarded(factory: Callable[[], object]) -> Callable[[], object]:
    """Tell the factory's own errors apart from the tracer's."""

    def run() -> object:
        try:
            return factory()
        except Exception as exc:
            raise _FactoryFailed(exc) from exc

    return run


def _import_torch() -> Any:
    try:
        import torch
    except ImportError:
        _fail(NO_TORCH)
    except Exception as exc:  # a broken install
        _fail(f"error: cannot import torch: {one_line(exc)}")
    return torch


@click.command("trace", help=HELP, short_help="Run a constructor and report repeated init work.")
@click.argument("target")
@click.option(
    "--device",
    type=click.Choice(["cpu", "cuda", "meta"]),
    default="cpu",
    show_default=True,
    help="Construct under `with torch.device(DEVICE)`; meta allocates no tensor memory.",
)
@click.option(
    "--all-modules",
    is_flag=True,
    help="Trace every module built during the call, not only the returned object.",
)
@click.option(
    "--no-static",
    is_flag=True,
    help="With --all-modules: do not run `initlint check` to link repeats to findings.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--path",
    "paths",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Directory to put on sys.path before importing (repeatable).",
)
def trace(
    target: str,
    device: str,
    all_modules: bool,
    no_static: bool,
    output_format: str,
    paths: tuple[str, ...],
) -> None:
    torch = _import_torch()
    try:
        spec = parse_target(target)
    except TargetError as exc:
        _fail(f"error: {exc}")
    try:
        with _import_paths(paths):
            factory = make_factory(spec, torch)
            if all_modules:
                model = trace_model(_guarded(factory), device=device, static=not no_static)
            else:
                result = trace_init(_guarded(factory), device=device)
    except TargetError as exc:
        _fail(f"error: {exc}")
    except _FactoryFailed as exc:
        _fail(f"error: {spec.expression} raised {one_line(exc.error)}")
    except (DeviceUnavailableError, ValueError) as exc:
        _fail(f"error: {exc}")
    if all_modules:
        text = render_model_text(model) if output_format == "text" else _json(model.to_json())
        click.echo(text)
        click.get_current_context().exit(1 if model.has_repeats else 0)
    click.echo(render_text(result) if output_format == "text" else _json(_shown(result.to_json())))
    click.get_current_context().exit(1 if result.has_repeats else 0)


def _json(data: object) -> str:
    return json.dumps(data, indent=2)


def _shown(data: dict[str, Any]) -> dict[str, Any]:
    """A trace's JSON with its sites as the text shows them (relative to the cwd)."""
    for item in (*data["repeated"], *data["events"]):
        if "sites" in item:
            item["sites"] = [display_path(s) for s in item["sites"]]
        if "site" in item:
            item["site"] = display_path(item["site"])
    return data

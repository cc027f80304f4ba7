"""The package's layers (docs/architecture.md): no module imports a module of a higher layer,
none imports another module's private name, and the imports form no circle.

Every import counts, the ones inside functions too: a lazy import that runs back up a layer
is still a dependency on it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "initlint"

# Lowest first. A module belongs to the layer of the longest prefix that names it, and may
# import its own layer's modules and lower layers' only.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "initlint",
            "initlint.errors",
            "initlint.diagnostics",
            "initlint.sources",
            "initlint.cache",
            "initlint.gitignore",
            "initlint.progress",
            "initlint.suppressions",
        ),
    ),
    ("files", ("initlint.discovery", "initlint.environment", "initlint.generated")),
    ("facts", ("initlint.facts",)),
    ("index", ("initlint.index", "initlint.locate")),
    ("simulation", ("initlint.simulation",)),
    ("rules", ("initlint.rules",)),
    ("settings", ("initlint.settings",)),
    ("pipeline", ("initlint.pipeline",)),
    ("driver", ("initlint.driver",)),
    ("fix", ("initlint.fix",)),
    ("output", ("initlint.output",)),
    (
        "commands",
        (
            "initlint.fix.command",
            "initlint.api",
            "initlint.options",
            "initlint.reporting",
            "initlint.projects",
            "initlint.dependents",
            "initlint.noqa",
            "initlint.explain_class",
            "initlint.demo",
            "initlint.examples",
            "initlint.server",
            "initlint.runtime",
            "initlint.cli",
            "initlint.__main__",
        ),
    ),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


def imports(module: str) -> Iterator[tuple[str, str, int]]:
    """(imported module, imported name or "", line) of each initlint import in ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "initlint":
                    yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            if base.split(".")[0] != "initlint":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:  # `from initlint.fix import verify`: a module
                    yield sub, "", node.lineno
                else:
                    yield base, alias.name, node.lineno


def graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, _, _ in imports(module):
            if target in MODULES and target != module:
                out[module].add(target)
    return out


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_import_runs_up_a_layer() -> None:
    bad = []
    for module in MODULES:
        for target, _, line in imports(module):
            if target in MODULES and layer_of(target) > layer_of(module):
                bad.append(
                    f"{MODULES[module].relative_to(PACKAGE.parent)}:{line}: {module} "
                    f"({LAYERS[layer_of(module)][0]}) imports {target} "
                    f"({LAYERS[layer_of(target)][0]})"
                )
    assert bad == []


def test_no_module_imports_another_modules_private_name() -> None:
    bad = []
    for module in MODULES:
        for target, name, line in imports(module):
            if name.startswith("_") and not name.startswith("__") and target != module:
                bad.append(f"{MODULES[module].relative_to(PACKAGE.parent)}:{line}: {name}")
    assert bad == []


def test_no_import_circle() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    circles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges[module]):
            # A package's __init__ importing its own submodules is how packages export.
            if module == target.rpartition(".")[0] and MODULES[module].name == "__init__.py":
                continue
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, path)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])
    assert circles == []


def test_the_pipeline_never_imports_the_driver() -> None:
    """The speed machinery sits above the check pipeline, never inside it."""
    for module in MODULES:
        if module.startswith("initlint.pipeline") or layer_of(module) < layer_of("initlint.driver"):
            assert not any(t.startswith("initlint.driver") for t in graph()[module]), module


@pytest.mark.parametrize("layer", [name for name, _ in LAYERS])
def test_layers_name_real_modules(layer: str) -> None:
    """Each prefix in LAYERS names a module or package that exists (no stale entries)."""
    prefixes = dict(LAYERS)[layer]
    for prefix in prefixes:
        assert any(m == prefix or m.startswith(prefix + ".") for m in MODULES), prefix

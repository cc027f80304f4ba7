"""The buggy autofix fixture differs from fixed_rope in exactly the lines of the vLLM fix."""

import ast
import difflib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXED = REPO / "fixed_rope"
BUGGY = REPO / "tests" / "fixtures" / "autofix" / "deepseek_v4_before"
MODULES = ["__init__.py", "base.py", "yarn.py", "deepseek.py"]

# Lines (stripped) that only fixed_rope has, and the one line only the fixture has.
FIXED_ONLY = [
    "init_cache: bool = True,",
    "init_cache=init_cache,",
    'kwargs.pop("init_cache", None)',
    "super().__init__(*args, **kwargs, init_cache=False)",
]
BUGGY_ONLY = ["super().__init__(*args, **kwargs)"]


def test_fixture_holds_exactly_the_package_modules() -> None:
    assert sorted(p.name for p in BUGGY.glob("*.py")) == sorted(MODULES)
    assert sorted(p.name for p in FIXED.glob("*.py")) == sorted(MODULES)


@pytest.mark.parametrize("name", ["__init__.py", "base.py", "yarn.py"])
def test_unchanged_modules_are_byte_identical(name: str) -> None:
    assert (BUGGY / name).read_bytes() == (FIXED / name).read_bytes()


def test_deepseek_differs_only_in_the_fix_lines() -> None:
    fixed = (FIXED / "deepseek.py").read_text().splitlines()
    buggy = (BUGGY / "deepseek.py").read_text().splitlines()
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.unified_diff(fixed, buggy, lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:].strip())
    assert removed == FIXED_ONLY
    assert added == BUGGY_ONLY


def _init_of(tree: ast.Module, class_name: str) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return item
    raise AssertionError(f"{class_name}.__init__ not found")


def _super_init_call(func: ast.FunctionDef) -> ast.Call:
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super"
        ):
            return node
    raise AssertionError(f"no super().__init__ call in {func.name}")


def test_fixed_yarn_threads_init_cache_last() -> None:
    tree = ast.parse((FIXED / "deepseek.py").read_text())
    init = _init_of(tree, "DeepseekScalingRotaryEmbedding")
    last = init.args.kwonlyargs[-1]
    assert last.arg == "init_cache"
    default = init.args.kw_defaults[-1]
    assert default is not None and ast.unparse(default) == "True"
    call = _super_init_call(init)
    assert [ast.unparse(a) for a in call.args] == [
        "head_size",
        "rotary_dim",
        "max_position_embeddings",
        "base",
        "is_neox_style",
        "dtype",
    ]
    assert [(k.arg, ast.unparse(k.value)) for k in call.keywords] == [("init_cache", "init_cache")]


def test_fixed_v4_init_is_exactly_the_contract() -> None:
    tree = ast.parse((FIXED / "deepseek.py").read_text())
    init = _init_of(tree, "DeepseekV4ScalingRotaryEmbedding")
    assert [ast.unparse(s) for s in init.body] == [
        "kwargs.pop('init_cache', None)",
        "super().__init__(*args, **kwargs, init_cache=False)",
        "cache = self._compute_cos_sin_cache()",
        "self.register_buffer('cos_sin_cache', cache, persistent=False)",
    ]


def test_base_init_builds_cache_under_the_flag() -> None:
    tree = ast.parse((FIXED / "base.py").read_text())
    init = _init_of(tree, "RotaryEmbeddingBase")
    guarded = [s for s in init.body if isinstance(s, ast.If)]
    assert len(guarded) == 1 and ast.unparse(guarded[0].test) == "init_cache"
    assert [ast.unparse(s) for s in guarded[0].body] == [
        "cache = self._compute_cos_sin_cache()",
        "cache = cache.to(dtype)",
        "self.register_buffer('cos_sin_cache', cache, persistent=False)",
    ]


def test_package_imports_are_relative() -> None:
    for name in MODULES:
        tree = ast.parse((FIXED / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.level == 1 or not node.module.startswith("fixed_rope"), name
            if isinstance(node, ast.Import):
                assert all(not a.name.startswith("fixed_rope") for a in node.names), name

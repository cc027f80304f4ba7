"""Whether a function writes to storage, read from its source: a fix that skips ancestor
work must not skip what writes a file the class then reads back."""

from __future__ import annotations

import ast
from pathlib import Path

from initlint.index.records import FunctionInfo
from initlint.sources import source_tree

# Calls that write what they are given to a file, by the name written (``torch.save``) or
# the method's (``state.save(path)``, ``fh.write(text)``).
_WRITERS = frozenset(
    """torch.save numpy.save np.save numpy.savez np.savez pickle.dump json.dump yaml.dump
    joblib.dump shutil.copy shutil.copyfile shutil.move""".split()
)
_WRITING_METHODS = frozenset("save save_pretrained dump write writelines to_csv".split())


def writes_storage(fn: FunctionInfo) -> bool:
    """Whether ``fn``'s own body calls something that writes a file: a writer by name, a
    writing method, or ``open`` with a mode that writes."""
    span = fn.facts.span
    return lines_write_storage(fn.module.path, span.line, span.end_line)


def lines_write_storage(path: Path, line: int, end_line: int) -> bool:
    """Whether the statement at those lines of a file calls something that writes a file."""
    tree = source_tree(path, line, end_line)
    return tree is not None and any(
        isinstance(node, ast.Call) and _writing(node) for node in ast.walk(tree)
    )


def _writing(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        mode = call.args[1] if len(call.args) > 1 else None
        mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
        return (
            isinstance(mode, ast.Constant)
            and isinstance(mode.value, str)
            and any(c in mode.value for c in "wax+")
        )
    if isinstance(func, ast.Attribute):
        if func.attr in _WRITING_METHODS:
            return True
        return ast.unparse(func) in _WRITERS
    return False

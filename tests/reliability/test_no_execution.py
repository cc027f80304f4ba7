"""The checker reads source only: it never imports or executes the code it checks."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from .conftest import Project, marked_lines, summary


def _evil_module(marker: Path) -> str:
    """Every place where importing or defining the classes would run code writes ``marker``."""
    m = repr(str(marker))
    return textwrap.dedent(f"""
        import os
        import torch
        from torch import nn

        open({m}, "a").write("module top level\\n")
        os.system("echo shell >> " + {m})


        def touch(*args, **kwargs):
            open({m}, "a").write("decorator or metaclass\\n")
            return args[0] if args else None


        class Meta(type):
            def __new__(mcs, name, bases, ns):
                open({m}, "a").write("metaclass\\n")
                return super().__new__(mcs, name, bases, ns)


        class Base(nn.Module):
            open({m}, "a").write("class body\\n")

            def __init_subclass__(cls, **kwargs):
                open({m}, "a").write("init_subclass\\n")

            def __init__(self):
                super().__init__()
                open({m}, "a").write("init\\n")
                self.register_buffer("cache", torch.zeros(4))


        @touch
        class Child(Base, metaclass=type):
            open({m}, "a").write("child class body\\n")

            def __init__(self):
                super().__init__()
                self.register_buffer("cache", torch.zeros(4))  # REDO


        if __name__ == "__main__":
            open({m}, "a").write("main\\n")
    """)


def test_api_never_imports_or_runs_the_checked_code(project: Project) -> None:
    marker = project.root.parent / "EXECUTED.txt"
    source = _evil_module(marker)
    project.write("evilpkg/__init__.py", f"open({str(marker)!r}, 'a').write('package init\\n')\n")
    project.write("evilpkg/evil_mod.py", source)
    project.write("conftest.py", f"open({str(marker)!r}, 'a').write('conftest\\n')\n")
    project.write("sitecustomize.py", f"open({str(marker)!r}, 'a').write('site\\n')\n")
    analysis = project.check()
    assert not marker.exists(), marker.read_text()
    assert not any(name.startswith("evilpkg") for name in sys.modules)
    # It did read the file: the redo is reported.
    assert summary(analysis) == [("evilpkg/evil_mod.py", marked_lines(source)[0], "IL001")]


def test_cli_never_imports_or_runs_the_checked_code(project: Project) -> None:
    marker = project.root.parent / "EXECUTED.txt"
    source = _evil_module(marker)
    project.write("evilpkg/__init__.py", f"open({str(marker)!r}, 'a').write('package init\\n')\n")
    project.write("evilpkg/evil_mod.py", source)
    project.write("sitecustomize.py", f"open({str(marker)!r}, 'a').write('site\\n')\n")
    result = project.cli(".")
    result.assert_no_traceback()
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 1
    assert result.codes() == [("evilpkg/evil_mod.py", "IL001")]

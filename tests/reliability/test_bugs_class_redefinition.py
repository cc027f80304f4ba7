"""``class Y(Y)`` after an earlier ``Y`` names the earlier class (the binding visible at the
class statement): it is a redefinition, not an inheritance cycle, and it is checked."""

from __future__ import annotations

import textwrap

from .conftest import BASE, REDO, Project, marked_lines, summary
from .test_deep_inputs import CYCLE_A, CYCLE_B

HEAD = "import torch\nfrom torch import nn\n\n"

REDEFINED = HEAD + textwrap.dedent("""
    class Y(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.zeros(3))


    class Y(Y):
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.zeros(3))  # REDO
""")


def test_redefinition_that_extends_the_previous_class(project: Project) -> None:
    project.write("m.py", REDEFINED)
    analysis = project.check()
    assert summary(analysis) == [("m.py", marked_lines(REDEFINED)[0], "IL001")]
    (d,) = analysis.diagnostics
    first_line = 1 + REDEFINED.splitlines().index(
        '        self.register_buffer("c", torch.zeros(3))'
    )
    assert [(r.path, r.line) for r in d.related] == [("m.py", first_line)]
    assert d.class_name == "m.Y"
    assert analysis.internal_errors == 0


THREE = HEAD + textwrap.dedent("""
    class Y(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", torch.zeros(3))


    class Y(Y):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.zeros(3))


    class Y(Y):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", torch.zeros(3))  # REDO
            self.register_buffer("b", torch.zeros(3))  # REDO
            self.register_buffer("c", torch.zeros(3))
""")


def test_three_definitions_in_a_row(project: Project) -> None:
    project.write("m.py", THREE)
    analysis = project.check()
    assert summary(analysis) == [("m.py", line, "IL001") for line in marked_lines(THREE)]


def test_redefinition_of_an_imported_class(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    source = (
        "import torch\nfrom pkg.base import Base\n\n\nclass Base(Base):\n"
        "    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("cache", torch.zeros(4))  # REDO\n'
    )
    project.write("pkg/child.py", source)
    analysis = project.check()
    assert summary(analysis) == [("pkg/child.py", marked_lines(source)[0], "IL001")]


def test_subclass_of_the_redefined_class_sees_both(project: Project) -> None:
    """A later ``class Z(Y)`` names the last Y, whose MRO holds the earlier Y too."""
    source = REDEFINED + textwrap.dedent("""

        class Z(Y):
            def __init__(self):
                super().__init__()
                self.register_buffer("c", torch.zeros(3))  # REDO
    """)
    project.write("m.py", source)
    analysis = project.check()
    assert summary(analysis) == [("m.py", line, "IL001") for line in marked_lines(source)]


def test_redefinition_in_another_module_is_resolved_there(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/m.py", REDEFINED)
    leaf = (
        "import torch\nfrom pkg.m import Y\n\n\nclass Leaf(Y):\n"
        "    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("c", torch.zeros(3))  # REDO\n'
    )
    project.write("pkg/leaf.py", leaf)
    analysis = project.check()
    assert summary(analysis) == [
        ("pkg/leaf.py", marked_lines(leaf)[0], "IL001"),
        ("pkg/m.py", marked_lines(REDEFINED)[0], "IL001"),
    ]


def test_real_cycles_stay_cycles(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", CYCLE_A)
    project.write("pkg/b.py", CYCLE_B)
    self_base = HEAD + (
        "class Z(Z):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("c", torch.zeros(1))\n'
    )
    project.write("pkg/selfbase.py", self_base)
    # Y names itself, but the earlier "Y" is a later name: only the binding *before* counts.
    later = HEAD + (
        "class W(W):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("c", torch.zeros(1))\n\n\n'
        "class W(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("c", torch.zeros(1))\n'
    )
    project.write("pkg/later.py", later)
    project.write("pkg/good.py", BASE + REDO.format(name="Good"))
    analysis = project.check()
    assert analysis.internal_errors == 0
    good_line = marked_lines(BASE + REDO.format(name="Good"))[0]
    assert summary(analysis) == [("pkg/good.py", good_line, "IL001")]
    index = analysis.index
    for qual in ("pkg.a.A", "pkg.b.B", "pkg.selfbase.Z"):
        result = index.mro(qual)
        assert not result.ok and "cycle" in result.error, (qual, result)
    assert index.mro("pkg.later.W").ok  # the last W is a plain nn.Module


def test_earlier_definition_is_its_own_class_in_the_index(project: Project) -> None:
    project.write("m.py", REDEFINED)
    analysis = project.check()
    index = analysis.index
    mro = index.mro("m.Y")
    assert mro.ok
    first = mro.classes[1]
    assert first != "m.Y" and first.startswith("m.Y")
    info = index.class_info(first)
    assert info is not None and info.facts.span.line < index.class_info("m.Y").facts.span.line  # type: ignore[union-attr]
    assert mro.classes[2:] == ("torch.nn.Module",)

"""No recursion crashes: deep hierarchies, cycles, self-calls, deep expressions, huge files.

Each case also checks that the checker still did its job where the input allows it, so a
run that silently skipped everything cannot pass.
"""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from initlint.pipeline.analysis import Analysis

from .conftest import BASE, REDO, Project, internal_codes, marked_lines, summary

HEAD = "import torch\nfrom torch import nn\n\n"
ROOT = """
class C0(nn.Module):
    def __init__(self):
        super().__init__()
{root_body}
"""
LEVEL = """
class C{i}(C{j}):
    def __init__(self):
        super().__init__()
"""
LEAF = """
class Leaf(C{j}):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(8))  # REDO
"""
REGISTER = '        self.register_buffer("cache", torch.zeros(8))'


def chain_source(levels: int, *, register: bool, redo: bool) -> str:
    parts = [HEAD, ROOT.format(root_body=REGISTER if register else "        pass")]
    parts += [LEVEL.format(i=i, j=i - 1) for i in range(1, levels)]
    if redo:
        parts.append(LEAF.format(j=levels - 1))
    return "".join(parts)


def assert_no_internal_errors(analysis: Analysis) -> None:
    assert [d for d in internal_codes(analysis) if d[1] == "IL902"] == []
    assert analysis.internal_errors == 0


# -- deep and cyclic hierarchies ------------------------------------------------------------


def test_chain_of_1000_levels(project: Project) -> None:
    project.write("chain.py", chain_source(1000, register=False, redo=False))
    analysis = project.check()
    assert summary(analysis) == []
    assert_no_internal_errors(analysis)


def test_chain_of_1000_levels_with_a_redo_at_the_leaf(project: Project) -> None:
    source = chain_source(1000, register=True, redo=True)
    project.write("chain.py", source)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    # The simulation may stop at its depth limit (no finding), but it must never blame
    # any other statement than the leaf's redo.
    (leaf_line,) = marked_lines(source)
    assert {(d.line, d.code) for d in analysis.diagnostics} <= {(leaf_line, "IL001")}


def test_chain_of_30_levels_with_a_redo_is_found(project: Project) -> None:
    """The same shape at a realistic depth: the redo at the leaf is reported."""
    source = chain_source(30, register=True, redo=True)
    project.write("chain.py", source)
    analysis = project.check()
    assert summary(analysis) == [("chain.py", line, "IL001") for line in marked_lines(source)]


def test_chain_across_200_files(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/m0.py", HEAD + ROOT.format(root_body=REGISTER))
    for i in range(1, 200):
        imp = f"from pkg.m{i - 1} import C{i - 1}\n"
        project.write(f"pkg/m{i}.py", imp + LEVEL.format(i=i, j=i - 1))
    leaf = HEAD + "from pkg.m199 import C199\n" + LEAF.format(j=199)
    project.write("pkg/leaf.py", leaf)
    near = HEAD + "from pkg.m20 import C20\n" + LEAF.format(j=20).replace("Leaf", "Near")
    project.write("pkg/near.py", near)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    diags = summary(analysis)
    assert ("pkg/near.py", marked_lines(near)[0], "IL001") in diags
    assert {d for d in diags if d[0] != "pkg/near.py"} <= {
        ("pkg/leaf.py", marked_lines(leaf)[0], "IL001")
    }


CYCLE_A = """
import torch
from torch import nn
from pkg.b import B


class A(B):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))
"""
CYCLE_B = """
import torch
from pkg.a import A


class B(A):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4))
"""


def test_inheritance_cycles(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", CYCLE_A)
    project.write("pkg/b.py", CYCLE_B)
    # A three-class cycle, a class that names itself, and a redefinition that (legally)
    # names the previous class of the same name.
    project.write(
        "pkg/tri.py",
        HEAD
        + "".join(
            f"class {x}({y}):\n    def __init__(self):\n        super().__init__()\n"
            f'        self.register_buffer("c", torch.zeros(1))\n\n'
            for x, y in (("P", "R"), ("Q", "P"), ("R", "Q"))
        ),
    )
    project.write(
        "pkg/selfbase.py",
        HEAD + "class X(X):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("c", torch.zeros(1))\n\n'
        "class Y(nn.Module):\n    pass\n\n"
        "class Y(Y):\n    def __init__(self):\n        super().__init__()\n",
    )
    # The checker still works next to the cycles.
    project.write("pkg/good.py", BASE + REDO.format(name="Good"))
    analysis = project.check()
    assert_no_internal_errors(analysis)
    good_line = marked_lines(BASE + REDO.format(name="Good"))[0]
    assert summary(analysis) == [("pkg/good.py", good_line, "IL001")]


SELF_CALLS = HEAD + textwrap.dedent("""
    class B(nn.Module):
        def __init__(self):
            super().__init__()
            self.build()
            self.ping()

        def build(self):
            self.build()
            self.register_buffer("c", torch.zeros(8))

        def ping(self):
            self.pong()

        def pong(self):
            self.ping()
            self.t = torch.ones(3)


    class C(B):
        def __init__(self):
            super().__init__()
            self.build()  # REDO
            self.__init__()

        def pong(self):
            self.pong()
            self.ping()
            super().pong()


    class D(B):
        def __init__(self):
            D.__init__(self)
            super(D, self).__init__()
            B.__init__(self)
""")


def test_methods_that_call_themselves(project: Project) -> None:
    project.write("m.py", SELF_CALLS)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    (redo_line,) = marked_lines(SELF_CALLS)
    # C calls the (recursive) builder again after super().__init__() already did.
    assert any(d.line == redo_line and d.code in ("IL001", "IL002") for d in analysis.diagnostics)


# -- deep expressions -----------------------------------------------------------------------

DEEP_EXPRESSIONS = {
    "parens_300": "(" * 300 + "x" + ")" * 300,
    "parens_190": "(" * 190 + "x" + ")" * 190,
    "plus_5000": "+".join(["x"] * 5000),
    "plus_1500": "+".join(["x"] * 1500),
    "calls_190": "f(" * 190 + "x" + ")" * 190,
    "lists_190": "[" * 190 + "x" + "]" * 190,
    "attrs_2000": "x" + ".a" * 2000,
    "subscripts_1000": "x" + "[0]" * 1000,
    "not_500": "not " * 500 + "x",
    "neg_1000": "-" * 1000 + "x",
    "ifexp_300": "x if x else " * 300 + "x",
    "lambdas_150": "lambda: " * 150 + "x",
    "compare_3000": " < ".join(["x"] * 3000),
    "strings_5000": "(" + " ".join(['"s"'] * 5000) + ")",
}


def _deep_source(expr: str) -> str:
    """A class using ``expr`` in a value, a guard and a super() argument, plus a real redo."""
    return BASE + textwrap.dedent(f"""
        def f(v):
            return v


        class Deep(Base):
            def __init__(self, x=1):
                super().__init__(n={expr})
                if {expr}:
                    self.value = {expr}
                self.register_buffer("cache", torch.zeros({expr}))  # REDO
    """)


def _python_compiles(source: str) -> bool:
    try:
        compile(source, "<deep>", "exec", flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@pytest.mark.parametrize("name", sorted(DEEP_EXPRESSIONS))
def test_deeply_nested_expressions(project: Project, name: str) -> None:
    source = _deep_source(DEEP_EXPRESSIONS[name])
    project.write("deep.py", source)
    project.write("good.py", BASE + REDO.format(name="Good"))
    analysis = project.check()
    assert_no_internal_errors(analysis)
    good_line = marked_lines(BASE + REDO.format(name="Good"))[0]
    assert ("good.py", good_line, "IL001") in summary(analysis)
    deep = {(d.line, d.code) for d in analysis.diagnostics if d.path == "deep.py"}
    redo = (marked_lines(source)[0], "IL001")
    if _python_compiles(source):
        # Python reads this file, so initlint must analyse it, and find the redo.
        assert deep == {redo}
    else:
        # Beyond the parser's own limits: a syntax error, never a crash.
        assert len(deep) == 1 and next(iter(deep))[1] in ("IL900", "IL001")


def test_deeply_nested_blocks(project: Project) -> None:
    depth = 90  # the tokenizer allows 100 indentation levels
    body = "".join("    " * (i + 2) + f"if x > {i}:\n" for i in range(depth))
    body += "    " * (depth + 2) + 'self.register_buffer("cache", torch.zeros(4))  # REDO\n'
    source = BASE + (
        "\n\nclass Nested(Base):\n    def __init__(self, x=1):\n        super().__init__()\n" + body
    )
    project.write("nested.py", source)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    assert [(d.line, d.code, d.confidence) for d in analysis.diagnostics] == [
        (marked_lines(source)[0], "IL001", "possible")
    ]


# -- big files --------------------------------------------------------------------------------


def test_file_of_100000_lines(project: Project) -> None:
    """A 100,000-line module whose base class sits near the end; a subclass in another file
    and one on the big file's last lines redo its work."""
    parts = ["import torch\nfrom torch import nn\n\n"]
    parts += [f"TABLE_{i} = ({i}, 'row {i}', {i}.5)\n" for i in range(85000)]
    parts += [f"\n\ndef helper_{i}(x):\n    y = x + {i}\n    return y\n" for i in range(2000)]
    parts.append(BASE.split("\n\n", 1)[1])  # Base, without its imports
    parts.append("\n\nclass Wide(Base):\n    def __init__(self, x=1):\n")
    parts.append("        super().__init__()\n")
    parts += [f"        self.a{i} = x + {i}\n" for i in range(5000)]
    parts.append(REDO.format(name="Inside"))  # a finding on the last lines of the big file
    huge = "".join(parts)
    assert huge.count("\n") >= 100_000
    project.write("pkg/__init__.py", "")
    project.write("pkg/huge.py", huge)
    leaf = "import torch\nfrom pkg.huge import Base\n" + REDO.format(name="Leaf")
    project.write("pkg/leaf.py", leaf)
    analysis = project.check()
    assert summary(analysis) == [
        ("pkg/huge.py", marked_lines(huge)[0], "IL001"),
        ("pkg/leaf.py", marked_lines(leaf)[0], "IL001"),
    ]
    assert marked_lines(huge)[0] > 100_000
    d = analysis.diagnostics[1]
    register_line = next(
        i for i, line in enumerate(huge.splitlines(), 1) if "register_buffer" in line
    )
    assert register_line > 95_000
    assert [(r.path, r.line) for r in d.related] == [("pkg/huge.py", register_line)]


# -- dynamic and unusual class statements -------------------------------------------------------

DYNAMIC = BASE + textwrap.dedent("""
    import functools


    def make():
        return Base


    bases = (Base,)
    options = {"metaclass": type}


    class FromCall(make()):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))


    class FromStar(*bases):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))


    class FromLambda((lambda: Base)()):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))


    class WithStarKeywords(Base, **options):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))  # REDO


    class Generic(Base[int], metaclass=type):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))  # REDO


    def deco(cls):
        return cls


    @deco
    @functools.total_ordering
    @(lambda cls: cls)
    class Decorated(Base):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4))  # REDO


    class Outer:
        class Inner(Base):
            def __init__(self):
                super().__init__()
                self.register_buffer("cache", torch.zeros(4))  # REDO

            class Deeper(Base):
                def __init__(self):
                    super(Outer.Inner.Deeper, self).__init__()
                    self.register_buffer("cache", torch.zeros(4))  # REDO

        def method(self):
            class Local(Base):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("cache", torch.zeros(4))

            return Local
""")


def test_dynamic_nested_and_decorated_classes(project: Project) -> None:
    project.write("m.py", DYNAMIC)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    found = {(d.line, d.code) for d in analysis.diagnostics}
    # Resolvable bases are analysed; dynamic ones may be skipped but never crash.
    assert {(line, "IL001") for line in marked_lines(DYNAMIC)} <= found
    assert {code for _, code in found} == {"IL001"}


def test_star_imports_including_cycles(project: Project) -> None:
    project.write("pkg/__init__.py", "from pkg.a import *\nfrom pkg import *\n")
    project.write("pkg/base.py", BASE)
    source = "from pkg.base import *\nfrom torch import *\nimport torch\n" + REDO.format(name="A")
    project.write("pkg/a.py", source)
    cyclic = "from pkg.c import *\nfrom pkg.b import *\n\nclass Q(Missing):\n    pass\n"
    project.write("pkg/b.py", cyclic)
    project.write("pkg/c.py", "from pkg.b import *\nfrom .c import *\nfrom ... import *\n")
    analysis = project.check()
    assert_no_internal_errors(analysis)
    assert summary(analysis) == [("pkg/a.py", marked_lines(source)[0], "IL001")]


SUPER_FORMS = BASE + textwrap.dedent("""
    class TypeOfSelf(Base):
        def __init__(self):
            super(type(self), self).__init__()
            self.register_buffer("cache", torch.zeros(4))


    class ViaGetattr(Base):
        def __init__(self):
            getattr(super(), "__init__")()
            self.register_buffer("cache", torch.zeros(4))


    class MultiLine(Base):
        def __init__(self):
            super(
                MultiLine,
                self,
            ).__init__(
                n=4,
            )
            self.register_buffer(  # REDO
                "cache",
                torch.zeros(4),
            )


    class InIf(Base):
        def __init__(self, flag=True):
            if flag:
                super().__init__()
            else:
                super().__init__(n=2)
            self.register_buffer("cache", torch.zeros(4))  # REDO


    class InTry(Base):
        def __init__(self):
            try:
                super().__init__()
            except Exception:
                Base.__init__(self)
            finally:
                pass
            self.register_buffer("cache", torch.zeros(4))  # REDO


    class OtherSelfName(Base):
        def __init__(this):
            super().__init__(); this.register_buffer("cache", torch.zeros(4))  # REDO


    class Odd(Base):
        def __init__(*args, **kwargs):
            (super()).__init__()
            super().__init__.__call__()
            init = super().__init__
            init()
            super(Odd).__init__()
            super(Odd, args[0], 1).__init__()
            Base.__init__()
            Base.__init__(*args)
            lambda: super().__init__()
            [super().__init__() for _ in range(1)]


    class Async(Base):
        async def __init__(self):
            await super().__init__()
            self.register_buffer(*["cache", torch.zeros(4)])
            self.register_buffer(name="cache", tensor=torch.zeros(4))
""")


def test_super_init_written_in_unusual_ways(project: Project) -> None:
    project.write("m.py", SUPER_FORMS)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    found = {(d.line, d.code) for d in analysis.diagnostics}
    assert {(line, "IL001") for line in marked_lines(SUPER_FORMS)} <= found
    assert {code for _, code in found} <= {"IL001", "IL002", "IL003"}


def test_recursion_limit_is_left_alone(project: Project) -> None:
    before = sys.getrecursionlimit()
    project.write("chain.py", chain_source(300, register=True, redo=True))
    project.write("deep.py", _deep_source(DEEP_EXPRESSIONS["plus_5000"]))
    project.check()
    assert sys.getrecursionlimit() == before


def _tokenizer_lines(text: str) -> list[str]:
    """Lines as Python numbers them: only \\r\\n, \\r and \\n end a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def test_odd_line_ends_tabs_and_form_feeds(project: Project) -> None:
    """Helper bodies are read on demand by line numbers: odd whitespace must not shift them."""
    base = (
        "import torch\r\nfrom torch import nn\r\n\x0c\r\n"
        "class Base(nn.Module):\r"
        "\tdef __init__(self):\r"
        "\t\tsuper().__init__()\r"
        "\t\tself._build()\r"
        "\x0c\r"
        "\t@staticmethod\r"
        "\tdef sep(): return 'a\u2028b\x0bc\x1cd'\r"
        "\r"
        "\t@property\r"
        "\tdef p(self): return 1; x = 2\r"
        "\r"
        "\tdef _build(self,\r"
        "\t           n=4) \\\r"
        "\t\t\t-> None:\r"
        "\t\tlabel = '''multi\r\x0c\u2028line'''\r"
        "\t\tself.register_buffer('cache', torch.zeros(n))\r"
    )
    child = (
        "\n\nclass Child(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        s = 'x\u2028y'\n"
        "        self._build()  # REDO\n"
    )
    source = base + child
    project.write("odd.py", source.encode("utf-8"))
    analysis = project.check()
    assert_no_internal_errors(analysis)
    (redo_line,) = [i for i, t in enumerate(_tokenizer_lines(source), 1) if "# REDO" in t]
    (register_line,) = [
        i for i, t in enumerate(_tokenizer_lines(source), 1) if "register_buffer" in t
    ]
    assert [(d.path, d.line) for d in analysis.diagnostics] == [("odd.py", redo_line)]
    (call_line,) = [
        i for i, t in enumerate(_tokenizer_lines(source), 1) if t == "\t\tself._build()"
    ]
    (d,) = analysis.diagnostics
    # IL002 points back at Base's call, IL001 at the registration inside the helper.
    first = {"IL002": call_line, "IL001": register_line}[d.code]
    assert [(r.path, r.line) for r in d.related][:1] == [("odd.py", first)]


def test_web_of_star_imports_reads_each_module_once_per_name(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Modules that each star-import every later one: a name none of them binds has
    2**n paths to it, and the search must read each module once, not once per path."""
    from initlint.index.resolution import NameResolver

    count = 30
    project.write("pkg/__init__.py", "")
    for i in range(count - 1):
        stars = "".join(f"from pkg.m{j} import *\n" for j in range(i + 1, count))
        project.write(f"pkg/m{i}.py", stars)
    project.write(f"pkg/m{count - 1}.py", BASE)
    source = "from pkg.m0 import *\n" + textwrap.dedent("""
        class A(Base):
            def __init__(self):
                super().__init__()
                size = unbound_helper(4)
                self.table = size
                self.register_buffer("cache", torch.zeros(4))  # REDO
    """)
    project.write("pkg/a.py", source)
    reads = 0
    real = NameResolver.name_table

    def counted(self: NameResolver, mod: object) -> object:
        nonlocal reads
        reads += 1
        assert reads < 50_000, "star imports followed once per path, not once per module"
        return real(self, mod)  # type: ignore[arg-type]

    monkeypatch.setattr(NameResolver, "name_table", counted)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    assert summary(analysis) == [("pkg/a.py", marked_lines(source)[0], "IL001")]


def test_a_later_star_import_rebinds_a_name(project: Project) -> None:
    """``from a import *`` then ``from b import *``: the name is b's, as Python binds it."""
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/light.py", "class Base:\n    def __init__(self, n=4):\n        pass\n")
    source = "import torch\nfrom pkg.light import *\nfrom pkg.base import *\n" + REDO.format(
        name="A"
    )
    project.write("pkg/a.py", source)
    flipped = "import torch\nfrom pkg.base import *\nfrom pkg.light import *\n" + REDO.format(
        name="A"
    )
    project.write("pkg/b.py", flipped)
    analysis = project.check()
    assert_no_internal_errors(analysis)
    assert summary(analysis) == [("pkg/a.py", marked_lines(source)[0], "IL001")]

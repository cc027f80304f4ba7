"""The skeleton fact pass (docs/design.md) must give the facts the whole-file parse gives."""

from __future__ import annotations

import textwrap

import pytest

from initlint.facts import extract
from initlint.facts.model import BodySyntaxError, ModuleFacts
from initlint.facts.skeleton import skeleton


def _summary(facts: ModuleFacts) -> object:
    fns = (*facts.functions, *(m for c in facts.classes for m in c.methods))
    return (
        facts.imports,
        tuple((c.qualname, c.bases, c.decorators, c.span, c.dynamic_bases) for c in facts.classes),
        facts.names,
        facts.error,
        tuple(
            (f.qualname, f.span.line, f.span.col, f.span.end_line, f.decorators, f.params)
            + (f.effects,)
            for f in fns
        ),
    )


def _full(source: str, monkeypatch: pytest.MonkeyPatch) -> ModuleFacts:
    with monkeypatch.context() as m:
        m.setattr(extract, "skeleton", lambda text: None)
        return extract.extract_facts(source)


CASES = {
    "plain": """
        import torch
        class A(torch.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.register_buffer("c", torch.zeros(n))
                self.build(n)

            def build(self, n):
                x = torch.ones(n)
                self.register_buffer("d", x)
                return x

            @property
            def size(self) -> int:
                return 3
        def helper(a, b=(1,
                2)):
            return a
        """,
    "col0_string_in_body": '''
        class A:
            def __init__(self):
                self.x = 1

            def template(self):
                return """
        class Fake(Base):
            def __init__(self):
                pass
        """

            def after(self):
                return 2
        ''',
    "overloads_and_one_liners": """
        from typing import overload
        class A:
            @overload
            def f(self, x: int) -> int: ...
            @overload
            def f(self, x: str) -> str: ...
            def f(self, x):
                return x
            def g(self): return 1
        """,
    "async_and_nested": """
        class A:
            def __init__(self):
                def inner():
                    return 1
                self.v = inner()

            async def run(self):
                async def go():
                    return 1
                return await go()
        """,
    "comments_and_continuations": """
        class A:
            def f(self):
                x = 1
        # a comment at column 0 inside the body
                y = (
            2)
                return x + \\
                    y

            def g(self):
                s = '\"\"\"'
                return s
        """,
    "closing_bracket_dedented": """
        class A:
            def f(self):
                return dict(
            a=1,
        )
            def g(self):
                return 2
        """,
    "decorated_class_and_conditional_imports": """
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            class A(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                def forward(self, x):
                    return x
        """,
    "header_comment_and_annotations": """
        class A:
            def f(  # comment (
                self,
                x: "dict[str, int]" = {"a": 1},
            ) -> None:  # trailing
                pass
                return None
        """,
    "multi_line_signatures": """
        import torch
        class A(torch.nn.Module):
            def __init__(self, d: int, act=torch.nn.GELU(approximate=None)) -> None:
                super().__init__()
                self.proj = torch.nn.Linear(d, d)

            @torch.no_grad()
            def forward(
                self,
                x: torch.Tensor,
                mask: torch.Tensor | None = None,
                *,
                scale: float = (1.0 / 2),
            ) -> tuple[torch.Tensor, torch.Tensor]:
                return x, x

            async def fetch(self, n: int = 3,
                            **kw: dict[str, int]) -> list[int]:
                return [n]

            def named(self, sep: str = "(", end="") -> str:
                return sep

            # its string closes the bracket that named's string opened, as counted
            def closes(self, sep=")"):
                return sep
        def top(a: int,
                b: list[int] = [1, 2]) -> int:
            return a
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_skeleton_facts_equal_whole_file_facts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = textwrap.dedent(CASES[name]).lstrip("\n")
    # Every case but one blanks something (that one's bodies must all be kept).
    assert (skeleton(source) is None) == (name == "comments_and_continuations")
    assert _summary(extract.extract_facts(source)) == _summary(_full(source, monkeypatch))


def test_skeleton_blanks_bodies_but_keeps_lines_and_init() -> None:
    source = textwrap.dedent(CASES["plain"]).lstrip("\n")
    shape = skeleton(source)
    assert shape is not None
    text, ends = shape
    assert text.count("\n") == source.count("\n")
    assert 'self.register_buffer("c"' in text  # __init__ is kept whole
    assert "torch.ones" not in text  # build() is blanked
    build_line = source.splitlines().index("    def build(self, n):") + 1
    assert ends[build_line] == (build_line + 1, build_line + 3)


def test_plain_signatures_are_blanked_with_their_lines_and_others_kept() -> None:
    """A blanked body's signature goes too (its parameters are read with the body) when
    it holds no string, comment or backslash: only then are its brackets counted exactly."""
    source = textwrap.dedent(CASES["multi_line_signatures"]).lstrip("\n")
    shape = skeleton(source)
    assert shape is not None
    text, _ = shape
    lines = text.split("\n")
    assert len(lines) == len(source.split("\n"))
    assert "    def forward():" in lines
    assert "    async def fetch():" in lines
    assert "def top():" in lines
    assert "mask" not in text and "**kw" not in text and "[1, 2]" not in text
    assert '    def named(self, sep: str = "(", end="") -> str:' in lines  # strings: kept
    assert "    @torch.no_grad()" in lines  # decorators are facts
    assert "act=torch.nn.GELU(approximate=None)" in text  # __init__'s signature is read


def test_unblankable_text_is_left_to_the_whole_parse() -> None:
    assert skeleton("class A:\n\tdef f(self):\n\t\treturn 1\n") is None  # tabs
    assert skeleton("class A:\n    def f(self): return 1\n") is None  # nothing to blank
    odd = 'class A:\n    def f(self):\n        return """\nx\n"""\n'
    assert skeleton(odd) is None  # the dedent falls inside a string


def test_lazy_body_with_a_syntax_error_raises_body_syntax_error() -> None:
    source = (
        "class A:\n    def __init__(self):\n        self.f()\n    def f(self):\n        print 'x'\n"
    )
    facts = extract.extract_facts(source)
    assert facts.error is None
    lazy = facts.classes[0].methods[1]
    with pytest.raises(BodySyntaxError) as info:
        _ = lazy.effects
    assert info.value.line == 5


def test_read_self_calls_reads_what_init_calls_on_self_only() -> None:
    """The workers read the bodies a constructor calls on ``self`` before sending facts:
    the same params and effects as reading them on first use, and nothing else read."""
    source = textwrap.dedent(CASES["plain"]).lstrip("\n")
    source += (
        "\n\nclass B:\n    def __init__(self):\n        self.f(1)\n"
        "    def f(self, n):\n        self.x = n\n    def g(self):\n        return 2\n"
    )
    eager = extract.extract_facts(source)
    extract.read_self_calls(eager)
    lazy = extract.extract_facts(source)
    b_eager = eager.classes[-1].methods
    assert [m.name for m in b_eager] == ["__init__", "f", "g"]
    assert [m.is_lazy for m in b_eager] == [False, False, True]
    assert all(m.is_lazy for c in lazy.classes for m in c.methods if m.name != "__init__")
    assert not any(m._source is not None and m._source.fresh for m in b_eager)
    assert _summary(eager) == _summary(lazy)  # reading lazy's bodies now gives the same


def test_read_self_calls_leaves_a_body_with_a_syntax_error_unread() -> None:
    source = (
        "class A:\n    def __init__(self):\n        self.f()\n    def f(self):\n        print 'x'\n"
    )
    facts = extract.extract_facts(source)
    extract.read_self_calls(facts)  # does not raise
    lazy = facts.classes[0].methods[1]
    assert lazy.is_lazy
    with pytest.raises(BodySyntaxError):
        _ = lazy.effects

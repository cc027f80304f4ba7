"""Cheaper facts give the same answers (issue 7).

Function bodies other than ``__init__`` are read on first use, from the function's own lines;
the Locator parses only the function around a finding. Both must agree exactly with reading
the whole file, on awkward sources too.
"""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from initlint.diagnostics import Diagnostic
from initlint.facts.extract import extract_facts
from initlint.facts.model import FunctionFacts, ModuleFacts, has_fresh_bodies
from initlint.facts.module_reader import ModuleReader
from initlint.locate import Locator

TRICKY = '''\
import torch
from torch import nn  # noqa: F401


def helper(x, *args, scale=2.0, **kw):
    y = torch.ones(3) * scale
    return torch.cat([x, y])


if True:
    def conditional(a=(1, 2), b="é"):
        return a


class Outer(nn.Module):
    """Doc with a line that looks like code:
def not_a_function(self):
    pass
"""

    def __init__(self, dim, flag=True):
        super().__init__()
        if flag:
            self.register_buffer("cache", self._build(dim), persistent=False)  # initlint: ignore
        self.x = helper(torch.zeros(dim), 1, 2,
                        scale=3)

    @staticmethod
    def _static(a, b): return a + b

    @property
    def size(self):
        text = """
unindented text inside a method
"""
        return len(text)

    def _build(self, dim):
        t = torch.arange(dim)
        t = t \\
            .float()
        return t.cos()  # noqa: IL001

    async def fetch(self, url: str = "x") -> None:
        async with self.session.get(url) as r:
            self.data = await r.json()

    class Inner:
        def __init__(self):
            self.v = [i for i in range(3)]

        def deep(self, q):
            def nested():
                return q
            return nested()


def one_liner(self): self.z = torch.eye(2); return self.z


\x0c
def after_form_feed(x):
    return x
'''


def _functions(facts: ModuleFacts) -> list[FunctionFacts]:
    return [*facts.functions, *(m for c in facts.classes for m in c.methods)]


def _eager(text: str) -> ModuleFacts:
    return ModuleReader(None).read(ast.parse(text))


VARIANTS = {
    "lf": TRICKY,
    "crlf": TRICKY.replace("\n", "\r\n"),
    "cr": TRICKY.replace("\n", "\r"),
    "tabs": TRICKY.replace("    ", "\t"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_bodies_read_on_demand_equal_bodies_read_at_once(variant: str) -> None:
    text = VARIANTS[variant]
    eager, lazy = _eager(text), extract_facts(text)
    assert [f.qualname for f in _functions(lazy)] == [f.qualname for f in _functions(eager)]
    lazy_ones = [f for f in _functions(lazy) if f.is_lazy]
    assert lazy_ones and all(f.name != "__init__" for f in lazy_ones)
    assert all(not f.is_lazy for f in _functions(lazy) if f.name == "__init__")
    for a, b in zip(_functions(eager), _functions(lazy), strict=True):
        assert (b.span, b.params, b.effects) == (a.span, a.params, a.effects), b.qualname
        assert b == a


def test_bytes_with_bom_and_coding_cookie() -> None:
    text = "# -*- coding: latin-1 -*-\n" + TRICKY.replace("é", "\xe9")
    for data in (text.encode("latin-1"), b"\xef\xbb\xbf" + TRICKY.encode()):
        lazy = extract_facts(data)
        eager = ModuleReader(None).read(ast.parse(data))
        for a, b in zip(_functions(eager), _functions(lazy), strict=True):
            assert (b.params, b.effects) == (a.params, a.effects), b.qualname


def test_pickles_keep_what_was_read() -> None:
    facts = extract_facts(TRICKY)
    assert not has_fresh_bodies(facts)
    cold = pickle.loads(pickle.dumps(facts))
    assert all(g.is_lazy for g in _functions(cold))  # bodies come back as text or a pickle
    build = next(f for f in _functions(cold) if f.name == "_build")
    assert build.is_lazy and build.effects and not build.is_lazy
    assert has_fresh_bodies(cold)
    warm = pickle.loads(pickle.dumps(cold))
    again = next(f for f in _functions(warm) if f.name == "_build")
    assert (again.params, again.effects) == (build.params, build.effects)
    assert not has_fresh_bodies(warm)  # unpickled, not read from the text
    assert _functions(warm) == _functions(_eager(TRICKY))


def test_read_bodies_are_unpickled_on_first_use() -> None:
    facts = pickle.loads(pickle.dumps(extract_facts(TRICKY)))
    init = next(f for f in _functions(facts) if f.qualname == "Outer.__init__")
    inner = next(f for f in _functions(facts) if f.qualname == "Outer.Inner.__init__")
    assert init.is_lazy and inner.is_lazy  # still pickled
    assert init.calls_super_init and not inner.calls_super_init  # known without unpickling
    assert init.is_lazy and inner.is_lazy
    assert any(e.kind == "super_init" for e in init.effects)
    assert not init.is_lazy


def test_equal_spans_and_expressions_are_shared() -> None:
    facts = extract_facts(TRICKY)
    init = next(f for f in _functions(facts) if f.qualname == "Outer.__init__")
    assign = next(e for e in init.effects if e.kind == "assign")
    assert assign.span is assign.stmt_span


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_locator_on_one_function_equals_whole_file(variant: str, tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_bytes(VARIANTS[variant].encode())
    facts = extract_facts(VARIANTS[variant])
    spans = [fn.span for fn in _functions(facts)]

    def enclosing(p: Path, line: int) -> tuple[int, int, int] | None:
        inside = [s for s in spans if s.line <= line <= s.end_line]
        s = min(inside, key=lambda s: s.end_line - s.line, default=None)
        return None if s is None else (s.line, s.end_line, s.col)

    whole, parts, cached = Locator(), Locator(enclosing), Locator(enclosing, tmp_path)
    again = Locator(enclosing, tmp_path)  # reads what `cached` stored
    checked = 0
    for fn in _functions(facts):
        for eff in fn.effects:
            for span in filter(None, (eff.span, eff.stmt_span, *(a.span for a in eff.args))):
                want = whole.range(path, span)
                for loc in (parts, cached, again):
                    assert loc.range(path, span) == want, (fn.qualname, span)
                line, col, end_line, end_col = want
                for code in ("IL001", "IL003"):
                    d = Diagnostic(str(path), line, col, end_line, end_col, code, "r", "m")
                    expect = whole.suppressed(d, tmp_path)
                    for loc in (parts, cached, again):
                        assert loc.suppressed(d, tmp_path) == expect, (fn.qualname, span, code)
                checked += 1
    assert checked > 20
    d = Diagnostic(str(path), 24, 9, 24, 80, "IL001", "r", "m")
    assert whole.suppressed(d, tmp_path)  # the ignore comment in Outer.__init__
    assert parts.suppressed(d, tmp_path)

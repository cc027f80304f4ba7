"""Two shortcuts in rendering a fix for JSON and SARIF: hunks found after cutting off the
unchanged ends, and the string and comment lines (for the line limit) found by a regular
expression, as tokenize finds them."""

from __future__ import annotations

import difflib
import io
import random
import tokenize
from pathlib import Path

import pytest

from initlint.fix import layout
from initlint.fix.apply import changed_hunks


def _full(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return [(a, b, c, d) for tag, a, b, c, d in matcher.get_opcodes() if tag != "equal"]


def _apply(old: list[str], new: list[str], hunks: list[tuple[int, int, int, int]]) -> list[str]:
    out = list(old)
    for a, b, c, d in reversed(hunks):
        out[a:b] = new[c:d]
    return out


def _edited(rng: random.Random, old: list[str], alphabet: list[str]) -> list[str]:
    new = list(old)
    for _ in range(rng.randint(0, 4)):
        at = rng.randint(0, len(new))
        kind = rng.choice(("insert", "delete", "replace"))
        if kind == "insert":
            new[at:at] = [rng.choice(alphabet) for _ in range(rng.randint(1, 3))]
        elif new and at < len(new):
            new[at : at + rng.randint(1, 3)] = [rng.choice(alphabet)] if kind == "replace" else []
    return new


@pytest.mark.parametrize("seed", range(200))
def test_same_hunks_as_difflib_on_distinct_lines(seed: int) -> None:
    # With no line repeated, the longest match is unique: cutting the ends changes nothing.
    rng = random.Random(seed)
    pool = [f"line {i}\n" for i in range(400)]
    rng.shuffle(pool)
    old = pool[: rng.randint(0, 40)]
    alphabet = pool[300:]
    new = _edited(rng, old, alphabet)
    new = list(dict.fromkeys(new))  # keep lines distinct
    assert changed_hunks(old, new) == _full(old, new)


@pytest.mark.parametrize("seed", range(200))
def test_hunks_rebuild_the_new_lines_with_repeats(seed: int) -> None:
    # Repeated lines (blank lines, `pass`) make several diffs right; each must rebuild `new`,
    # and touch no line at either unchanged end.
    rng = random.Random(1000 + seed)
    alphabet = ["\n", "pass\n", "x = 1\n", "y = 2\n", "return x\n"]
    old = [rng.choice(alphabet) for _ in range(rng.randint(0, 30))]
    new = _edited(rng, old, alphabet)
    hunks = changed_hunks(old, new)
    assert _apply(old, new, hunks) == new
    if old == new:
        assert hunks == []
    else:
        lead = next(
            i for i in range(len(old) + 1) if i == len(old) or old[i : i + 1] != new[i : i + 1]
        )
        assert min(a for a, _, _, _ in hunks) >= lead


def test_an_insert_in_a_large_file_is_one_hunk_at_its_place() -> None:
    old = [f"a{i}\n" for i in range(5000)]
    new = old[:2500] + ["inserted\n"] + old[2500:]
    assert changed_hunks(old, new) == [(2500, 2500, 2500, 2501)]
    assert changed_hunks(old, old) == []
    assert changed_hunks([], ["x\n"]) == [(0, 0, 0, 1)]
    assert changed_hunks(["x\n"], []) == [(0, 1, 0, 0)]


def _tokenize_lines(lines: list[str]) -> set[int]:
    """The reference: what tokenize calls strings and comments (empty when it fails)."""
    out: set[int] = set()
    source = "\n".join(lines) + "\n"
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT):
                out.update(range(tok.start[0], tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set()
    return out


_SHAPES = [
    'x = "a # b"  # a comment with "quotes"\ny = 1\n',
    "s = '''one\ntwo \"\"\" still in\nthree'''\nz = 2\n",
    's = """a \\""" not the end\nb"""\nw = 3\n',
    's = """ends with a quote""""x"\n',
    "e = ''\nf = \"\"\ng = ''''''\nh = \"\"\"\"\"\"\n",
    's = "line one \\\ncontinued"\nq = 4\n',
    "b = rb'\\\\'\nc = f\"{d['k']} # not a comment\"\n",
    "def f():\n    '''doc\n\n    more'''\n    return 1  # done\n",
    "x = (1 +\n     2)  # '\n",
    's = """never ends\nx = 1\n',
    "s = 'never ends\nx = 1\n",
    "t = u'\\'' + \"\\\"\"\n# '''\nv = 5\n",
]


@pytest.mark.parametrize("source", _SHAPES, ids=range(len(_SHAPES)))
def test_string_lines_as_tokenize_finds_them(source: str) -> None:
    lines = source.splitlines()
    assert layout.string_or_comment_lines(lines) == _tokenize_lines(lines)


def test_string_lines_as_tokenize_finds_them_on_initlint_itself() -> None:
    files = sorted(Path(layout.__file__).parents[1].rglob("*.py"))
    files += sorted(Path(__file__).parent.glob("*.py"))
    assert len(files) > 100
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert layout.string_or_comment_lines(lines) == _tokenize_lines(lines), path

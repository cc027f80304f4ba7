"""A super call Python refuses (a required parameter left out, a surplus positional, an
unknown keyword) raises TypeError before the ancestor runs: on that path nothing is built, so
nothing after it is a repeat. Where a ``*``/``**`` pack of unknown length is passed, or the
ancestor takes ``*args``/``**kw``, the call may bind, and the repeat is reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint.api import check
from initlint.cli import main

BASE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, cfg, n=4096, *, scale=1.0):
        super().__init__()
        self.register_buffer("table", torch.randn(n, n))


class Open(nn.Module):
    def __init__(self, cfg, *args, **kw):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


class KwOnly(nn.Module):
    def __init__(self, *, cfg):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))
"""

REFUSED = {
    "missing": "class C(Base):\n    def __init__(self):\n        super().__init__()",
    "surplus": "class C(Base):\n    def __init__(self, cfg):\n        super().__init__(cfg, 8, 9)",
    "unknown_keyword": (
        "class C(Base):\n    def __init__(self, cfg):\n        super().__init__(cfg, m=3)"
    ),
    "given_twice": (
        "class C(Base):\n    def __init__(self, cfg):\n        super().__init__(cfg, cfg=cfg)"
    ),
    "explicit": "class C(Base):\n    def __init__(self, cfg):\n        Base.__init__(self)",
    "keyword_only": "class C(KwOnly):\n    def __init__(self, cfg):\n        super().__init__(cfg)",
}

BINDS = {
    "given": "class C(Base):\n    def __init__(self, cfg):\n        super().__init__(cfg)",
    "keyword": (
        "class C(Base):\n    def __init__(self, cfg):\n        super(C, self).__init__(cfg=cfg)"
    ),
    "explicit": "class C(Base):\n    def __init__(self, cfg):\n        Base.__init__(self, cfg)",
    "forwarded": (
        "class C(Base):\n    def __init__(self, *args, **kw):\n"
        "        super().__init__(*args, **kw)"
    ),
    "forwarded_positionals": (
        "class C(Base):\n    def __init__(self, *args):\n        super().__init__(*args)"
    ),
    "ancestor_takes_packs": (
        "class C(Open):\n    def __init__(self, cfg):\n        super().__init__(cfg, 1, 2, m=3)"
    ),
    "caught": (
        "class C(Base):\n    def __init__(self, cfg):\n        try:\n"
        "            super().__init__()\n        except TypeError:\n"
        "            super().__init__(cfg)"
    ),
    "one_branch": (
        "class C(Base):\n    def __init__(self, cfg, flag):\n        if flag:\n"
        "            super().__init__()\n        else:\n            super().__init__(cfg)"
    ),
}

# An ancestor whose ``__init__`` may not be the ``def`` as written, or a pack changed in ways
# not followed: a call that looks refused may bind at runtime, so the construction goes on
# (the repeat is reported).
REWRITTEN = {
    "decorated": """
def flexible(init):
    def wrapper(self, *args, **kw):
        init(self, *(args or (4,)), **kw)
    return wrapper


class Wrapped(nn.Module):
    @flexible
    def __init__(self, d):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


class C(Wrapped):
    def __init__(self):
        super().__init__()""",
    "assigned_in_the_body": """
def loose(self, *args, **kw):
    nn.Module.__init__(self)


class Loose(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))

    __init__ = loose


class C(Loose):
    def __init__(self):
        super().__init__()""",
    "patched_in_its_module": """
class Patched(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


def _patched(self, d=4):
    nn.Module.__init__(self)


Patched.__init__ = _patched


class C(Patched):
    def __init__(self):
        super().__init__()""",
    "defined_twice": """
class Twice(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


if torch.cuda.is_available():

    class Twice(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.register_buffer("table", torch.randn(4096, 4096))


class C(Twice):
    def __init__(self):
        super().__init__()""",
    "assigned_in_a_class_between": """
def loose(self, *args, **kw):
    Base.__init__(self, 1)


class Between(Base):
    __init__ = loose


class C(Between):
    def __init__(self):
        super().__init__()""",
    "a_pack_updated_between": """
class Mid(Base):
    def __init__(self, **kw):
        kw.update(cfg=1)
        super().__init__(**kw)


class C(Mid):
    def __init__(self):
        super().__init__()""",
    "a_pack_cleared_between": """
class Mid(Base):
    def __init__(self, **kw):
        kw.clear()
        super().__init__(1, **kw)


class C(Mid):
    def __init__(self):
        super().__init__(extra=2)""",
    "subclass_hook": """
class Root(nn.Module):
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)


class Hooked(Root):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


class C(Hooked):
    def __init__(self):
        super().__init__()""",
}

KEPT_SIGNATURE = """
class Graded(nn.Module):
    @torch.no_grad()
    def __init__(self, d):
        super().__init__()
        self.register_buffer("table", torch.randn(4096, 4096))


class C(Graded):
    def __init__(self):
        super().__init__()"""

REBUILD = '\n        self.register_buffer("table", torch.randn(4096, 4096))\n'


def _codes(tmp_path: Path, child: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(BASE + "\n\n" + child + REBUILD)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return [d.code for d in report.diagnostics if d.class_name.endswith(".C")]


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_refused_super_call_ends_the_construction(tmp_path: Path, case: str) -> None:
    assert _codes(tmp_path, REFUSED[case]) == []


@pytest.mark.parametrize("case", sorted(BINDS))
def test_a_super_call_that_may_bind_runs_the_ancestor(tmp_path: Path, case: str) -> None:
    assert _codes(tmp_path, BINDS[case]) == ["IL001"]


def test_explain_class_shows_where_the_call_raises(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "nets"\n')
    (tmp_path / "nets.py").write_text(BASE + "\n\n" + REFUSED["missing"] + REBUILD)
    run = CliRunner().invoke(main, ["explain-class", "--no-cache", "nets:C", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert "raises TypeError: the call's arguments do not bind to" in run.output
    assert "every construction stops here" in run.output


@pytest.mark.parametrize("case", sorted(REWRITTEN))
def test_an_init_that_may_be_rewritten_refuses_nothing(tmp_path: Path, case: str) -> None:
    assert _codes(tmp_path, REWRITTEN[case]) == ["IL001"]


def test_a_decorator_that_keeps_the_signature_keeps_the_refusal(tmp_path: Path) -> None:
    assert _codes(tmp_path, KEPT_SIGNATURE) == []

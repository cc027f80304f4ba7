"""A name that stands for a part of the object inside the code its construction runs: a
parameter handed ``self.head`` (``self._tie(self.head, emb)``) and a local bound to what a
method of the object returns when it returns a part (``out = self.get_out()``). What is
stored through the name is stored into the part (``out.weight = emb.weight`` throws the
head's own weight away, IL005), and what is read through it is a read of the part, so a
weight read before it is replaced is no finding. When an installed base's method does the
replacing (a ``post_init()`` that ties the weights), the finding sits on the project's call
of it."""

from __future__ import annotations

import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

from initlint.api import Report, check

SOURCE = """
import torch.nn as nn


def helper(m):
    return m


class ByGetter(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie()

    def get_out(self):
        return self.head

    def tie(self):
        out = self.get_out()
        if out is not None:
            out.weight = self.emb.weight


class ByParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head, self.emb)

    def tie(self, out, inp):
        out.weight = inp.weight


class ReadFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie()

    def get_out(self):
        return self.head

    def tie(self):
        out = self.get_out()
        self.total = out.weight.sum()
        out.weight = self.emb.weight


class HandedElsewhereFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        helper(m)
        m.weight = self.emb.weight


class TestedByItsNumbers(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        if m.weight.sum() > 0:
            pass
        m.weight = self.emb.weight


class MadeFromItself(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(1024, 50000, bias=False)
        self.scale(self.head)

    def scale(self, m):
        m.weight = nn.Parameter(m.weight * 2)


class ReturnedAndUsed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.total = helper(self.get_out())
        self.tie()

    def get_out(self):
        return self.head

    def tie(self):
        out = self.get_out()
        out.weight = self.emb.weight
"""

# Reads through a name that the simulation does not follow as the part, or names that
# may stand for something else: no finding (a review's reproducers).
NOT_FOLLOWED = """
import torch
import torch.nn as nn
from missing_mixins import Mixin


class VarArgs(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        self._log(m)
        m.weight = self.emb.weight

    def _log(self, *mods):
        self.norm = mods[0].weight.norm()


class KwArgs(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        self._log(mod=m)
        m.weight = self.emb.weight

    def _log(self, **kw):
        self.norm = kw["mod"].weight.norm()


class ViaMixin(Mixin, nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        self.summarize(m)
        m.weight = self.emb.weight


class TwoCalls(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.total = self.noop(self.head) + self.count(self.head)
        self.head.weight = self.emb.weight

    def noop(self, m):
        return 0

    def count(self, *ms):
        return ms[0].weight.sum()


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        def f():
            return m.weight.clone()

        self.saved = f()
        m.weight = self.emb.weight


class AliasAfterARead(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        torch.save(m.state_dict(), "head.pt")
        n = m
        n.weight = self.emb.weight


class Walrus(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        if (m := nn.Linear(3, 3)) is not None:
            m.weight = self.emb.weight


class OneBranch(nn.Module):
    def __init__(self, flag):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.other = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head, self.other, flag)

    def tie(self, a, b, flag):
        if flag:
            a = b
        a.weight = self.emb.weight


class PartRebuilt(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 1024)
        self.head = nn.Linear(1024, 50000, bias=False)
        self.tie(self.head)

    def tie(self, m):
        self.head = nn.Linear(1024, 50000, bias=False)
        m.weight = self.emb.weight
"""

BASE = """
import torch.nn as nn


class TiedBase(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    def get_output_embeddings(self):
        return None

    def get_input_embeddings(self):
        return self.embed

    def post_init(self):
        if getattr(self.config, "tie_word_embeddings", True):
            output_embeddings = self.get_output_embeddings()
            if output_embeddings is not None:
                self._tie_or_clone_weights(output_embeddings, self.get_input_embeddings())

    def _tie_or_clone_weights(self, output_embeddings, input_embeddings):
        output_embeddings.weight = input_embeddings.weight
"""

PLUGIN = """
import torch.nn as nn
from tiepkg import TiedBase


class ForLM(TiedBase):
    def __init__(self, config):
        super().__init__(config)
        self.embed = nn.Embedding(50000, 1024)
        self.lm_head = nn.Linear(1024, 50000, bias=False)
        self.post_init()

    def get_output_embeddings(self):
        return self.lm_head
"""


def _found(report: Report) -> dict[str, list[tuple[str, int, str]]]:
    out: dict[str, list[tuple[str, int, str]]] = {}
    for d in report.diagnostics:
        name = d.class_name.rsplit(".", 1)[-1]
        out.setdefault(name, []).append((d.code, d.line, d.severity))
    return out


@pytest.fixture(autouse=True)
def _torch_from_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # (torch's Linear, read from its source)


def test_a_store_through_a_name_for_a_part_throws_its_build_away(
    check_source: Callable[..., Report],
) -> None:
    found = _found(check_source(SOURCE))
    lines = SOURCE.splitlines()
    getter = next(i for i, t in enumerate(lines, 1) if t.strip() == "out.weight = self.emb.weight")
    assert found["ByGetter"] == [("IL005", getter, "error")]
    param = next(i for i, t in enumerate(lines, 1) if t.strip() == "out.weight = inp.weight")
    assert found["ByParameter"] == [("IL005", param, "error")]


@pytest.mark.parametrize(
    "name",
    [
        "ReadFirst",
        "HandedElsewhereFirst",
        "TestedByItsNumbers",
        "MadeFromItself",
        "ReturnedAndUsed",
    ],
)
def test_what_is_read_through_the_name_first_is_a_use(
    check_source: Callable[..., Report], name: str
) -> None:
    assert name not in _found(check_source(SOURCE))


@pytest.mark.parametrize(
    "name",
    [
        "VarArgs",
        "KwArgs",
        "ViaMixin",
        "TwoCalls",
        "Nested",
        "AliasAfterARead",
        "Walrus",
        "OneBranch",
    ],
)
def test_a_read_not_followed_as_the_part_or_a_name_that_may_be_another_is_no_store(
    check_source: Callable[..., Report], name: str
) -> None:
    assert name not in _found(check_source(NOT_FOLLOWED))


def test_a_name_for_a_part_rebuilt_since_holds_the_old_object(
    check_source: Callable[..., Report],
) -> None:
    [(code, line, _)] = _found(check_source(NOT_FOLLOWED))["PartRebuilt"]
    lines = NOT_FOLLOWED.splitlines()
    rebuilt = max(i for i, t in enumerate(lines, 1) if "self.head = nn.Linear" in t)
    # (the head built first is replaced by the method's rebuild; the store through the
    # name changes the old head, no part of the object any more)
    assert (code, line) == ("IL005", rebuilt)


def test_a_dependency_that_ties_the_weight_is_reported_at_the_projects_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / "venv"
    (env / "pyvenv.cfg").parent.mkdir()
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n", encoding="utf-8")
    site = env / "lib" / "python3.11" / "site-packages" / "tiepkg"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text(BASE)
    # (torch from the running environment, through a path file as an editable install has)
    (site.parent / "torch_here.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    monkeypatch.setenv("VIRTUAL_ENV", str(env))
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "plugin"\n')
    (project / "plugin.py").write_text(PLUGIN)
    report = check([project], cwd=project, use_cache=False)
    [diag] = report.diagnostics
    call = next(i for i, t in enumerate(PLUGIN.splitlines(), 1) if "self.post_init()" in t)
    assert (diag.code, diag.line, diag.severity) == ("IL005", call, "error")
    assert "possibly replaced on some paths by `TiedBase._tie_or_clone_weights`" in diag.message
    assert "which this call runs" in diag.message
